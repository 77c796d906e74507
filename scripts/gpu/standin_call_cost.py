#!/usr/bin/env python3
"""What one stand-in collective costs on the host, piece by piece (issue 21 item 3): the stream
lookup as the stand-in did it (a torch.cuda.Stream per call) and as it does it now (the raw
handle), checked equal on the default and a side stream; the stand-in's own record path; and a
whole dist.all_reduce through a stand-in group, from the main thread and from a second thread
(DDP's hooks run on autograd's device thread). Microseconds per call, median of 5 rounds.
and, beside them, the same dist.all_reduce on the real backend (NCCL on cuda, gloo on cpu).
usage: standin_call_cost.py [--calls N] [--device cuda|cpu] [--impl auto|compiled|python]
       (RANK/WORLD_SIZE/MASTER_* set, world 1; --impl as parascope_world/compiled.py chooses)"""
import argparse
import os
import statistics
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "trace", "collector", "python"))
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from parascope_world import compiled, standin  # noqa: E402
from parascope_world.records import Recorder  # noqa: E402


def per_call_us(fn, calls):
    rounds = []
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        rounds.append((time.perf_counter() - t) / calls * 1e6)
    return statistics.median(rounds)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--impl", default="auto", choices=["auto", "compiled", "python"])
    a = ap.parse_args()
    cuda = a.device == "cuda"
    recorder = Recorder(0, 1, None)
    os.environ["PARASCOPE_WORLD_BACKEND"] = a.impl
    module, why = compiled.load()
    if module is not None:
        recorder.attach_compiled(module, why)

    def create(store, rank, size, timeout):
        if module is not None:
            return module.make_backend(rank, size, list(range(size)), 1)
        pg = standin.StandInGroup(recorder, rank, size, list(range(size)), 1, "nccl")
        pg._set_group_name("standin")
        return pg

    try:
        dist.Backend.register_backend("parascope", create, devices=["cpu", "cuda"])
    except TypeError:
        dist.Backend.register_backend("parascope", create)
    dist.init_process_group("nccl" if cuda else "gloo")
    group = dist.new_group(backend="parascope")
    t = torch.zeros(1 << 20, device=a.device)
    rows = []
    if cuda:
        dev = t.get_device()
        side = torch.cuda.Stream()
        same = standin._stream_handle(dev) == torch.cuda.current_stream(dev).cuda_stream
        with torch.cuda.stream(side):
            same_side = standin._stream_handle(dev) == torch.cuda.current_stream(dev).cuda_stream == side.cuda_stream
        rows.append(("raw handle == torch.cuda.current_stream().cuda_stream (default, side stream)",
                     "%s, %s" % (same, same_side)))
        rows.append(("torch.cuda.current_stream(dev).cuda_stream (before)",
                     "%.2f us" % per_call_us(lambda: torch.cuda.current_stream(dev).cuda_stream, a.calls)))
        rows.append(("raw stream handle (now)", "%.2f us" % per_call_us(lambda: standin._stream_handle(dev), a.calls)))
        rows.append(("t.device.index (before)", "%.2f us" % per_call_us(lambda: t.device.index, a.calls)))
        rows.append(("t.get_device() (now)", "%.2f us" % per_call_us(lambda: t.get_device(), a.calls)))
    from parascope_world.records import _CollectorSink
    t0 = time.perf_counter()
    for _ in range(20):
        _CollectorSink.find()
    rows.append(("looking for the collector (dlopen RTLD_NOLOAD, none loaded), per look",
                 "%.1f us" % ((time.perf_counter() - t0) / 20 * 1e6)))
    rows.append(("_where(t)", "%.2f us" % per_call_us(lambda: standin._where(t), a.calls)))
    pg = group
    rows.append(("dist.all_reduce(t) on the real backend (the baseline)",
                 "%.2f us" % per_call_us(lambda: dist.all_reduce(t), a.calls)))
    rows.append(("group.allreduce([t]) from Python (the stand-in, %s)" % recorder.impl, "%.2f us" % per_call_us(lambda: pg.allreduce([t]), a.calls)))
    rows.append(("dist.all_reduce(t, group) (C++ -> stand-in)",
                 "%.2f us" % per_call_us(lambda: dist.all_reduce(t, group=group), a.calls)))
    out = {}
    th = threading.Thread(target=lambda: out.update(us=per_call_us(lambda: dist.all_reduce(t, group=group), a.calls)))
    th.start()
    th.join()
    rows.append(("dist.all_reduce(t, group) from a second thread", "%.2f us" % out["us"]))
    ops = [r for r in recorder.records() if r.get("k") == "op"]
    own = sorted((r["t1"] - r["t0"]) / 1e3 for r in ops)
    rows.append(("the records' own time (t1 - t0) per call: median, mean, max",
                 "%.2f, %.2f, %.1f us of %d calls" % (own[len(own) // 2], sum(own) / len(own), own[-1], len(own))))
    print("torch %s, device %s" % (torch.__version__, a.device))
    for k, v in rows:
        print("  %-78s %s" % (k, v))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
