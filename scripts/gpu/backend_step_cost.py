#!/usr/bin/env python3
"""The real backend's host cost per collective *inside a training step* (issue 21 item 3): a hot loop of
calls (backend_call_cost.py: 8-14 us per call on the H200) misses what a call costs among the step's
own work (cold code and caches, the extra CUDA calls NCCL makes per call: event records and queries,
stream waits, capture checks). Calibrated on a program that is not the one scored (the GPT of
standin_predict.sh): standin_overhead_inproc.py --model mlp, DDP over Linear(d, d) + GELU layers with
small buckets, real NCCL and the compiled stand-in alternating step by step in one process.

  per call = median over paired steps of (real_i - standin_i) / calls per step + the stand-in's own
             time per call (its records' t1 - t0)

untraced (what an N-GPU run pays: the topology's host.collective_call_ns) and under `parascope-cli
record` (what a traced run pays: the value for comparing with a real step measured in a trace), each
in --repeats separate processes. Calls per step and the stand-in's own time come from the untraced
runs (under the collector its records go to the trace, not to the program).

usage: backend_step_cost.py --cli PARASCOPE_CLI --lib LIBPARASCOPE_CUPTI [--repeats R] [--out JSON]
       [--layers L --d D --batch B --bucket-mb M --steps S]"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from paired_stats import quantile  # noqa: E402


def run(cmd, log):
    with open(log, "w") as f:
        rc = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT)
    if rc != 0:
        sys.exit("%s: exit %d (see %s)" % (" ".join(cmd[:3]), rc, log))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--layers", type=int, default=24)
    ap.add_argument("--d", type=int, default=1024)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--bucket-mb", type=float, default=4.0)
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--work", default="")
    ap.add_argument("--impl", default="compiled", help="the stand-in (compiled: what record --world uses on torch >= 2.1)")
    ap.add_argument("--program-args", default="", help="more arguments for the program (the CPU check: --backend gloo --device cpu)")
    ap.add_argument("--out", default="")
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="parascope-stepcost.")
    prog = [sys.executable, os.path.join(HERE, "standin_overhead_inproc.py"), "--model", "mlp",
            "--layers", str(a.layers), "--d", str(a.d), "--batch", str(a.batch), "--bucket-mb", str(a.bucket_mb),
            "--steps", str(a.steps), "--impl", a.impl] + a.program_args.split()
    runs = {"untraced": [], "traced": []}
    for r in range(a.repeats):
        for mode in ("untraced", "traced"):
            out = os.path.join(work, "%s_%d.json" % (mode, r))
            cmd = prog + ["--out", out]
            if mode == "traced":
                cmd = [a.cli, "record", "--lib", a.lib, "-o", os.path.join(work, "rec_%d" % r), "--"] + cmd
            run(cmd, os.path.join(work, "%s_%d.log" % (mode, r)))
            with open(out) as f:
                runs[mode].append(json.load(f))
    calls = statistics.median(j["standin_calls_per_step"] for j in runs["untraced"])
    own_us = statistics.median(j["standin_own_us_per_call_median"] for j in runs["untraced"])
    res = {"program": "backend_step_cost.py", "model": "mlp", "layers": a.layers, "d": a.d, "batch": a.batch,
           "bucket_mb": a.bucket_mb, "steps": a.steps, "calls_per_step": calls, "standin_own_us_per_call": own_us}
    print("calibration program: DDP over %d x Linear(%d, %d) + GELU, batch %d, buckets of %g MB: %.1f calls per step, "
          "the stand-in's own %.2f us per call" % (a.layers, a.d, a.d, a.batch, a.bucket_mb, calls, own_us))
    for mode, js in runs.items():
        per = []
        for k, j in enumerate(js):
            diffs = [(r - s) * 1e3 for r, s in zip(j["real_step_ms"], j["standin_step_ms"])]  # us per step
            c = statistics.median(diffs) / calls + own_us
            per.append(c)
            print("  %-8s process %d: real %.3f ms, stand-in %.3f ms per step (paired difference median %.1f us, 25-75 %%: "
                  "%.1f-%.1f) -> %.1f us per call"
                  % (mode, k + 1, j["real_median_ms"], j["standin_median_ms"], statistics.median(diffs),
                     quantile(diffs, 0.25), quantile(diffs, 0.75), c))
        res[mode + "_us_per_call"] = per
        res[mode + "_us_per_call_median"] = statistics.median(per)
        print("  %-8s the backend's cost per call in a step: %.1f us (median of %d processes)" % (mode, statistics.median(per), len(per)))
    if a.out:
        with open(a.out, "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
