#!/usr/bin/env python3
"""The stand-in's overhead measured inside one process (issue 21 item 3). Paired runs of separate
processes (onegpu_extras.sh, standin_overhead.sh) cannot resolve 2 %: the small GPT's host-bound
step moves by +-15 % from one process to the next even when the stand-in does nothing (the bare
model, no collectives: ratios 0.89-1.19). Here both sides live in one process and alternate step by
step: two copies of the same GPT (onegpu_gpt.py's model, same seed), one wrapped in DDP over the real
world group (NCCL, world 1), the other in DDP over a stand-in group (parascope_world's StandInGroup,
registered as a backend, recording to memory). Step i runs A then B, step i+1 B then A; each step is
device-synchronised and timed on the host. Printed (and written with --out): each side's median
step, the median of the paired ratios B_i / A_i with its 25-75 % range, and the stand-in's own
time per step (its records' t1 - t0, the Python it runs per call).

usage: standin_overhead_inproc.py [--steps S] [--warmup W] [--batch B] [--seq T] [--out JSON]
                                  [--backend nccl|gloo] [--device cuda|cpu] [--impl auto|compiled|python] [--nvtx]
(--model mlp [--layers L --d D --batch B --bucket-mb M]: a stack of Linear(d, d) + GELU instead of the GPT,
the program the backend's in-step cost per call is calibrated on: backend_step_cost.sh)
(--nvtx: each measured step is an NVTX range "real <i>" / "standin <i>", for `whatif --step`; under
`parascope-cli record` (the collector, no --world) the stand-in's records go into the trace as a world
of 1 with one stand-in group, so whatif can predict the real step from the stand-in's: standin_predict.sh)
(--impl: the stand-in's compiled backend or its Python group, as parascope_world/compiled.py chooses)
(gloo/cpu is the CPU check of this script: CI's torch 1.13 has no scaled_dot_product_attention,
a plain attention stands in for it there.)"""
import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "trace", "collector", "python"))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.nn.functional as F  # noqa: E402

if not hasattr(F, "scaled_dot_product_attention"):  # torch < 2.0 (the CPU check only)
    def _sdpa(q, k, v, is_causal=False):
        s = q @ k.transpose(-1, -2) / (q.shape[-1] ** 0.5)
        if is_causal:
            n = s.shape[-1]
            s = s.masked_fill(torch.ones(n, n, dtype=torch.bool, device=s.device).triu(1), float("-inf"))
        return torch.softmax(s, -1) @ v
    F.scaled_dot_product_attention = _sdpa

from onegpu_gpt import GPT  # noqa: E402
from paired_stats import quantile  # noqa: E402
from parascope_world import compiled, standin  # noqa: E402
from parascope_world.records import Recorder  # noqa: E402


class MLP(torch.nn.Module):
    """layers x (Linear(d, d), GELU): many small kernels and, with a small bucket_cap_mb, many buckets."""

    def __init__(self, d, layers):
        super().__init__()
        self.net = torch.nn.Sequential(*[m for _ in range(layers) for m in (torch.nn.Linear(d, d), torch.nn.GELU())])

    def forward(self, x):
        return self.net(x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--warmup", type=int, default=6)
    ap.add_argument("--layers", type=int, default=6)
    ap.add_argument("--d", type=int, default=768)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--seq", type=int, default=512)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--vocab", type=int, default=32768)
    ap.add_argument("--backend", default="nccl")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--out", default="")
    ap.add_argument("--impl", default="auto", choices=["auto", "compiled", "python"])
    ap.add_argument("--nvtx", action="store_true")
    ap.add_argument("--model", default="gpt", choices=["gpt", "mlp"])
    ap.add_argument("--bucket-mb", type=float, default=25.0)
    a = ap.parse_args()
    cuda = a.device == "cuda"
    if cuda:
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
    sync = torch.cuda.synchronize if cuda else (lambda: None)

    recorder = Recorder(0, 1, None)  # records kept in memory
    os.environ["PARASCOPE_WORLD_BACKEND"] = a.impl
    module, why = compiled.load()
    if module is not None:
        recorder.attach_compiled(module, why)
    recorder.world(a.backend, torch.__version__)  # the heads the trace's import needs (record --world writes them)

    def create(store, rank, size, timeout):
        gid = recorder.group(list(range(size)), rank, "standin", "the in-process check's stand-in group", "parascope")
        if module is not None:
            return module.make_backend(rank, size, list(range(size)), gid)
        pg = standin.StandInGroup(recorder, rank, size, list(range(size)), gid, a.backend)
        pg._set_group_name("standin")
        return pg

    try:
        dist.Backend.register_backend("parascope", create, devices=["cpu", "cuda"])
    except TypeError:  # torch 1.13: no devices argument
        dist.Backend.register_backend("parascope", create)
    dist.init_process_group(a.backend)
    standin_group = dist.new_group(backend="parascope")

    def build(group):
        torch.manual_seed(1234)
        if a.model == "mlp":  # a stack of d x d layers: another program's buckets (the calibration, not the GPT)
            model = MLP(a.d, a.layers).to(a.device)
        else:
            model = GPT(a.vocab, a.d, a.heads, a.layers, a.seq).to(a.device)
        ddp = torch.nn.parallel.DistributedDataParallel(model, process_group=group, bucket_cap_mb=a.bucket_mb)
        opt = torch.optim.AdamW(ddp.parameters(), lr=1e-4, **({"fused": True} if cuda else {}))
        return ddp, opt

    sides = {"real": build(None), "standin": build(standin_group)}
    idx = torch.randint(0, a.vocab, (a.batch, a.seq), device=a.device)
    x_mlp = torch.randn(a.batch, a.d, device=a.device)
    dtype = torch.bfloat16

    nvtx = a.nvtx and cuda

    def step(name, i):
        ddp, opt = sides[name]
        sync()
        mark = nvtx and i >= 0
        if mark:
            torch.cuda.nvtx.range_push("%s %d" % (name, i))
        t = time.perf_counter()
        with torch.autocast(a.device, dtype=dtype):
            if a.model == "mlp":
                loss = ddp(x_mlp).float().pow(2).mean()
            else:
                logits = ddp(idx)
        if a.model != "mlp":
            loss = F.cross_entropy(logits.float().view(-1, a.vocab), idx.view(-1))
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        sync()
        t = (time.perf_counter() - t) * 1e3
        if mark:
            torch.cuda.nvtx.range_pop()
        return t

    times = {"real": [], "standin": []}
    n_records_before = 0
    for i in range(a.warmup + a.steps):
        if i == a.warmup:
            n_records_before = len(recorder.records())
        order = ("real", "standin") if i % 2 == 0 else ("standin", "real")
        got = {name: step(name, i - a.warmup) for name in order}
        if i >= a.warmup:
            for name in times:
                times[name].append(got[name])
    ops = [r for r in recorder.records()[n_records_before:] if r.get("k") == "op"]
    own_ms = sum(r["t1"] - r["t0"] for r in ops) / 1e6 / a.steps
    per_call_us = [(r["t1"] - r["t0"]) / 1e3 for r in ops] or [0.0]
    ratios = [s / r for s, r in zip(times["standin"], times["real"])]
    res = {"program": "standin_overhead_inproc.py", "model": a.model, "bucket_mb": a.bucket_mb, "impl": recorder.impl, "impl_why": recorder.impl_why, "backend": a.backend, "device": a.device,
           "batch": a.batch, "seq": a.seq, "steps": a.steps, "warmup": a.warmup, "torch": torch.__version__,
           "real_step_ms": times["real"], "standin_step_ms": times["standin"],
           "real_median_ms": statistics.median(times["real"]), "standin_median_ms": statistics.median(times["standin"]),
           "paired_ratio_median": statistics.median(ratios), "paired_ratio_p25": quantile(ratios, 0.25),
           "paired_ratio_p75": quantile(ratios, 0.75), "standin_calls_per_step": len(ops) / a.steps,
           "standin_own_ms_per_step": own_ms, "standin_own_us_per_call_median": statistics.median(per_call_us),
           "standin_own_us_per_call_p90": quantile(per_call_us, 0.9)}
    res["ratio_of_medians"] = res["standin_median_ms"] / res["real_median_ms"]
    print("[%s] real %.3f ms  stand-in %.3f ms  ratio of medians %.4f  paired ratio median %.4f (25-75 %%: %.4f-%.4f)  "
          "stand-in's own %.3f ms per step in %.1f calls (per call: median %.1f us, p90 %.1f us)"
          % (res["impl"], res["real_median_ms"], res["standin_median_ms"], res["ratio_of_medians"], res["paired_ratio_median"],
             res["paired_ratio_p25"], res["paired_ratio_p75"], own_ms, res["standin_calls_per_step"],
             res["standin_own_us_per_call_median"], res["standin_own_us_per_call_p90"]))
    if a.out:
        with open(a.out, "w") as f:
            json.dump(res, f)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
