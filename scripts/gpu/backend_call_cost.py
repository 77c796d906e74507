#!/usr/bin/env python3
"""The host time of one collective call into the real backend (NCCL) and into the compiled stand-in,
made from C++ as DDP's reducer makes it (issue 21 item 3). A recording made with `record --world`
holds the stand-in's time per call (1-2 us); the real backend's enqueue (events, stream waits, its
kernel launch) is absent by construction, and whatif's comm_call_us puts it back. This program is the
calibration of that knob: it is run apart from the programs it is scored on (never a DDP step).

Per size and caller thread (main, a new C++ thread): `--calls` calls of pg.allreduce([t]) timed in
C++ (backend_call_cost.cpp, built here with torch.utils.cpp_extension), median / p10 / p90, for
  real     - the world group over NCCL (world 1),
  standin  - a group of the compiled stand-in (parascope_world, recording to memory),
and the stand-in's own recorded time per call (t1 - t0 of its records). Then DDP-like rounds
(--buckets allreduces with their futures' then() callbacks, all waited at the end, from a new C++
thread) for both. The backend's host time per call as the recording lacks it:
  call_ns = median(real) - median(standin) + median(standin's own)
i.e. the real call's time less what the stand-in's call costs around its own record.

usage: torchrun --nproc-per-node 1 backend_call_cost.py [--calls N] [--sync-every K] [--out JSON]
       (or plain python3: it sets MASTER_ADDR/PORT, RANK, WORLD_SIZE for a world of 1)"""
import argparse
import json
import os
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "trace", "collector", "python"))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from torch.utils import cpp_extension  # noqa: E402

from paired_stats import quantile  # noqa: E402
from parascope_world import compiled  # noqa: E402
from parascope_world.records import Recorder  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=4000)
    ap.add_argument("--warmup", type=int, default=200)
    ap.add_argument("--sync-every", type=int, default=8)
    ap.add_argument("--sizes", default="4096,26214400", help="bytes per call (fp32)")
    ap.add_argument("--buckets", type=int, default=8, help="DDP-like rounds: 25 MiB buckets per round")
    ap.add_argument("--rounds", type=int, default=400)
    ap.add_argument("--out", default="")
    a = ap.parse_args()
    for k, v in (("MASTER_ADDR", "127.0.0.1"), ("MASTER_PORT", "29533"), ("RANK", "0"), ("WORLD_SIZE", "1")):
        os.environ.setdefault(k, v)
    torch.cuda.set_device(0)
    build = os.path.join(os.environ.get("PARASCOPE_CACHE_DIR") or tempfile.gettempdir(), "backend_call_cost")
    os.makedirs(build, exist_ok=True)
    ext = cpp_extension.load(name="parascope_backend_call_cost", sources=[os.path.join(HERE, "backend_call_cost.cpp")],
                             build_directory=build, with_cuda=True, extra_cflags=["-O2"], verbose=False)

    recorder = Recorder(0, 1, None)
    os.environ["PARASCOPE_WORLD_BACKEND"] = "compiled"
    module, why = compiled.load()
    if module is None:
        sys.exit("the compiled stand-in did not load: %s" % why)
    recorder.attach_compiled(module, why)
    dist.Backend.register_backend("parascope", lambda store, rank, size, timeout: module.make_backend(rank, size, list(range(size)), 1),
                                  devices=["cpu", "cuda"])
    dist.init_process_group("nccl")
    groups = {"real": dist.group.WORLD, "standin": dist.new_group(backend="parascope")}

    res = {"program": "backend_call_cost.py", "torch": torch.__version__, "nccl": ".".join(map(str, torch.cuda.nccl.version())),
           "gpu": torch.cuda.get_device_name(0), "calls": a.calls, "sync_every": a.sync_every, "standin": why, "rows": []}
    for size in [int(s) for s in a.sizes.split(",")]:
        t = torch.randn(size // 4, device="cuda")
        for caller, fn in (("main thread", ext.time_calls), ("new thread", ext.time_calls_thread)):
            row = {"bytes": size, "caller": caller}
            for name, pg in groups.items():
                fn(pg, t, a.warmup, a.sync_every)
                n0 = len(recorder.records())
                ns = fn(pg, t, a.calls, a.sync_every)
                row[name] = {"median_ns": statistics.median(ns), "p10_ns": quantile(ns, 0.1), "p90_ns": quantile(ns, 0.9)}
                if name == "standin":
                    ops = [r for r in recorder.records()[n0:] if r.get("k") == "op"]
                    own = [r["t1"] - r["t0"] for r in ops]
                    row["standin_records"] = len(ops)
                    row["standin_own_median_ns"] = statistics.median(own) if own else 0.0
            row["call_ns"] = row["real"]["median_ns"] - row["standin"]["median_ns"] + row["standin_own_median_ns"]
            res["rows"].append(row)
            print("%9d B, %-11s real %7.2f us (p10 %.2f, p90 %.2f)  stand-in %6.2f us (own %.2f us, %d records)  "
                  "-> the backend's call %.2f us"
                  % (size, caller, row["real"]["median_ns"] / 1e3, row["real"]["p10_ns"] / 1e3, row["real"]["p90_ns"] / 1e3,
                     row["standin"]["median_ns"] / 1e3, row["standin_own_median_ns"] / 1e3, row["standin_records"],
                     row["call_ns"] / 1e3), flush=True)
    # DDP-like rounds: --buckets allreduces of 25 MiB, each with its future's then(), waited at the end
    bucket = [torch.randn(26214400 // 4, device="cuda") for _ in range(a.buckets)]
    rounds = {}
    for name, pg in groups.items():
        ext.time_buckets_thread(pg, bucket, 20)
        n0 = len(recorder.records())
        ns = ext.time_buckets_thread(pg, bucket, a.rounds)
        rounds[name] = {"median_ns": statistics.median(ns), "p10_ns": quantile(ns, 0.1), "p90_ns": quantile(ns, 0.9)}
        if name == "standin":
            own = [r["t1"] - r["t0"] for r in recorder.records()[n0:] if r.get("k") == "op"]
            rounds["standin_own_median_ns"] = statistics.median(own) if own else 0.0
    per_call = (rounds["real"]["median_ns"] - rounds["standin"]["median_ns"]) / a.buckets + rounds["standin_own_median_ns"]
    rounds.update({"buckets": a.buckets, "rounds": a.rounds, "call_ns": per_call})
    res["ddp_like"] = rounds
    print("DDP-like round of %d buckets (new thread): real %.2f us (p10 %.2f, p90 %.2f)  stand-in %.2f us  "
          "-> the backend's cost per bucket %.2f us"
          % (a.buckets, rounds["real"]["median_ns"] / 1e3, rounds["real"]["p10_ns"] / 1e3, rounds["real"]["p90_ns"] / 1e3,
             rounds["standin"]["median_ns"] / 1e3, per_call / 1e3), flush=True)
    if a.out:
        with open(a.out, "w") as f:
            json.dump(res, f, indent=1)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
