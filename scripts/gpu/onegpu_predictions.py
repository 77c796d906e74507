#!/usr/bin/env python3
"""Gathers onegpu_batch.sh's results into predictions.json (frozen: the commit they were made at,
the time, every predicted step) and summary.txt; overhead.json and pkb.json beside them.
usage: onegpu_predictions.py --pred DIR --rec DIR --logs DIR --commit SHA --out DIR"""
import argparse
import glob
import json
import os
import re
import statistics
import time


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def steps_by_name(replay):
    """step name -> (predicted ns: slowest rank, recorded ns: the one-GPU recording's rank 0)."""
    out = {}
    for s in replay.get("steps", []):
        p, m = out.get(s["step"], (0, 0))
        out[s["step"]] = (max(p, s["replay_ns"]), max(m, s["measured_ns"]) if s["rank"] == 0 else m)
    return out


def main():
    ap = argparse.ArgumentParser()
    for a in ("--pred", "--rec", "--logs", "--commit", "--out"):
        ap.add_argument(a, required=True)
    a = ap.parse_args()
    preds, lines = [], []
    for path in sorted(glob.glob(os.path.join(a.pred, "*.json"))):
        name, topo = os.path.basename(path)[:-5].split("@")
        workload, n = name.rsplit("_n", 1)
        d = load(path)
        entry = {"workload": workload, "world_size": int(n), "ranks_recorded": [0], "topology": topo}
        if not d or "replay" not in d:
            err = open(path[:-5] + ".err").read()[-400:] if os.path.exists(path[:-5] + ".err") else ""
            entry.update(status="whatif failed", error=err)
            preds.append(entry)
            continue
        r = d["replay"]
        steps = steps_by_name(r)
        entry.update(status="ok", predicted_step_ms=r["step_ns"] / 1e6, recorded_one_gpu_step_ms=r["measured_step_ns"] / 1e6,
                     exposed_communication_ms=r.get("exposed_ns", 0) / 1e6,
                     warnings=[w for w in r.get("warnings", []) if "repeat" in w or "stand-in" in w][:6],
                     links=[{"name": l["name"], "bytes": l["bytes"], "peak_utilization": l["peak_utilization"]} for l in r.get("links", [])[:4]])
        if workload == "pkb":
            refs = {}
            for step, (p, m) in steps.items():
                mm = re.match(r"pkb (\S+) #\d+$", step)
                if mm:
                    refs.setdefault(mm.group(1), []).append((p, m))
            entry["references"] = {k: {"predicted_ms": statistics.mean(p for p, _ in v) / 1e6,
                                       "recorded_one_gpu_ms": statistics.mean(m for _, m in v) / 1e6, "iterations": len(v)}
                                   for k, v in sorted(refs.items(), key=lambda kv: int(kv[0].split("_")[0]))}
        else:
            entry["steps"] = {k: {"predicted_ms": p / 1e6, "recorded_one_gpu_ms": m / 1e6} for k, (p, m) in steps.items()}
        preds.append(entry)
    frozen = {"kind": "parascope one-GPU predictions (issue 21)", "commit": a.commit,
              "made_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
              "note": "predicted before any run on more GPUs; measured values go in a separate file",
              "predictions": preds}
    with open(os.path.join(a.out, "predictions.json"), "w") as f:
        json.dump(frozen, f, indent=1)

    # overhead: N = 1, real NCCL vs the stand-in, paired
    pairs = []
    for i in (1, 2, 3):
        real, si = load(os.path.join(a.logs, "overhead_real_%d.json" % i)), load(os.path.join(a.logs, "overhead_standin_%d.json" % i))
        if real and si:
            pairs.append({"pair": i, "real_median_ms": real["median_ms"], "standin_median_ms": si["median_ms"],
                          "ratio": si["median_ms"] / real["median_ms"], "real_ms": real["step_ms"], "standin_ms": si["step_ms"]})
    over = {"program": "onegpu_gpt.py (DDP, N = 1, 12 steps after 4 warm-up)", "pairs": pairs}
    if pairs:
        ratios = [p["ratio"] for p in pairs]
        over.update(median_ratio=statistics.median(ratios), min_ratio=min(ratios), max_ratio=max(ratios))
    with open(os.path.join(a.out, "overhead.json"), "w") as f:
        json.dump(over, f, indent=1)
    pkb = {os.path.basename(p): load(p) for p in sorted(glob.glob(os.path.join(a.logs, "pkb_n*.json")))}
    with open(os.path.join(a.out, "pkb.json"), "w") as f:
        json.dump(pkb, f, indent=1)

    lines.append("one-GPU predictions at commit %s (%s)" % (a.commit, frozen["made_utc"]))
    lines.append("%-8s %3s %-11s %12s %14s %12s" % ("workload", "N", "topology", "pred step ms", "1-GPU rec ms", "exposed ms"))
    for e in preds:
        if e["status"] != "ok":
            lines.append("%-8s %3d %-11s %s" % (e["workload"], e["world_size"], e["topology"], e["status"]))
            continue
        lines.append("%-8s %3d %-11s %12.3f %14.3f %12.3f" % (e["workload"], e["world_size"], e["topology"], e["predicted_step_ms"],
                                                             e["recorded_one_gpu_step_ms"], e["exposed_communication_ms"]))
    for e in preds:
        if e.get("references"):
            lines.append("PKB N=%d on %s: %d references predicted" % (e["world_size"], e["topology"], len(e["references"])))
            for k, v in e["references"].items():
                lines.append("  %-45s pred %9.3f ms  1-GPU %9.3f ms" % (k, v["predicted_ms"], v["recorded_one_gpu_ms"]))
    for name, d in pkb.items():
        if d:
            bad = [r for r in d["results"] if r["status"] != "ok"]
            lines.append("%s: %d ok, %d not ok: %s" % (name, len(d["results"]) - len(bad), len(bad),
                                                     "; ".join("%s (%s)" % (r["name"], r.get("error", r["status"])[:80]) for r in bad)))
    for c in ("ddp", "tp", "a2a"):
        rc = os.path.join(a.logs, "cpu_check_%s.rc" % c)
        if os.path.exists(rc):
            lines.append("stand-in CPU check %s under this torch: exit %s" % (c, open(rc).read().strip()))
    if pairs:
        lines.append("overhead N=1 stand-in / real NCCL step time: median %.4f (pairs %s)" %
                     (over["median_ratio"], ", ".join("%.4f" % p["ratio"] for p in pairs)))
    with open(os.path.join(a.out, "summary.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
