#!/usr/bin/env python3
"""The one-GPU predictions of issue 21 (docs/accuracy.md, "One-GPU predictions"): with --cli, runs
`whatif REC --topology T --step RE --json` for every recording (N = 2: h200x2 and hgx_h200x8; N = 8:
hgx_h200x8), with --set cpu_scale=S where the untraced stand-in run of the same program gives S;
then gathers predictions.json (frozen: the commit of the model that made it, the time, every
predicted step), overhead.json and summary.txt. Runs on the CPU; onegpu_batch.sh calls it too.

Two figures per recording and machine, both per step (a step is one NVTX range: "step <i>" of
onegpu_gpt.py / onegpu_tp_mlp.py, "pkb <name> #<k>" of onegpu_pkb.py):
  as recorded     the replay of the recording: compute and host calls as measured under the
                  collector, communication simulated;
  host-corrected  the same with the host's time scaled by S = untraced / traced program step time
                  (median over steps; for PKB the median over references of the per-reference
                  ratio): the collector's per-call cost taken out of the host (a GPT step makes
                  ~8 900 traced API calls). S comes from runs on the one GPU, never from more GPUs.
Exposed communication is per step too: the most exposed rank's communication not under its
compute inside the step's replayed range (whatif's steps[].exposed_ns), mean over steps.

predictions.json says which figure is scored and that the truth is not measured yet (frozen
before the multi-GPU run: resources/predictions/onegpu/, docs/accuracy.md).

usage: onegpu_predictions.py --rec DIR --logs DIR --commit SHA --out DIR
         [--cli PATH] [--untraced DIR] [--pred DIR] [--jobs J]
  --logs      the programs' JSON of the recordings (<w>_n<N>.json) and the overhead pairs
  --untraced  the untraced stand-in runs (untraced_<w>_n<N>.json; default --logs)
  --pred      where the whatif outputs are (written there with --cli; default OUT/pred)"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import statistics
import subprocess
import time

STEP_RE = {"gpt": "^step ", "tpmlp": "^step ", "pkb": "^pkb "}
TOPOLOGIES = {2: ["h200x2", "hgx_h200x8"], 8: ["hgx_h200x8"]}


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def program_ms(d, workload):
    """The program's own median step time (ms); for PKB, reference -> median call time."""
    if not d:
        return None
    if workload == "pkb":
        return {r["name"]: statistics.median(r["host_ms"]) for r in d.get("results", []) if r.get("status") == "ok" and r.get("host_ms")}
    return d.get("median_ms")


def host_scale(workload, traced, untraced):
    """S = untraced / traced, or None when either run is missing."""
    t, u = program_ms(traced, workload), program_ms(untraced, workload)
    if not t or not u:
        return None
    if workload == "pkb":
        ratios = [u[k] / t[k] for k in t if k in u and t[k] > 0]
        return statistics.median(ratios) if ratios else None
    return u / t


def whatif(cli, rec, topo, step, scale, out_json):
    cmd = [cli, "whatif", rec, "--topology", topo, "--step", step, "--json", "-q"]
    if scale is not None:
        cmd += ["--set", "cpu_scale=%.4f" % scale]
    with open(out_json, "w") as f, open(out_json[:-5] + ".err", "w") as e:
        rc = subprocess.call(cmd, stdout=f, stderr=e, timeout=600)
    with open(out_json[:-5] + ".rc", "w") as f:
        f.write("%d\n" % rc)
    return rc


def per_step(summary, workload):
    """step name -> {predicted_ms: slowest rank, recorded_one_gpu_ms: recorded rank 0, exposed_ms: most exposed rank}."""
    out = {}
    for s in summary.get("steps", []):
        e = out.setdefault(s["step"], {"predicted_ms": 0.0, "recorded_one_gpu_ms": 0.0, "exposed_ms": 0.0})
        e["predicted_ms"] = max(e["predicted_ms"], s["replay_ns"] / 1e6)
        e["exposed_ms"] = max(e["exposed_ms"], s.get("exposed_ns", 0) / 1e6)
        if s["rank"] == 0:
            e["recorded_one_gpu_ms"] = max(e["recorded_one_gpu_ms"], s["measured_ns"] / 1e6)
    return out


def figures(summary):
    steps = [s for s in summary.get("steps", [])]
    by = {}
    for s in steps:
        by.setdefault(s["step"], []).append(s["replay_ns"])
    slowest = [max(v) / 1e6 for v in by.values()]
    return {"step_ms": summary["step_ns"] / 1e6, "step_median_ms": statistics.median(slowest) if slowest else 0.0,
            "recorded_one_gpu_step_ms": summary["measured_step_ns"] / 1e6,
            "exposed_per_step_ms": summary.get("step_exposed_ns", 0) / 1e6, "steps": len(by)}


def references(steps):
    refs = {}
    for step, v in steps.items():
        mm = re.match(r"pkb (\S+) #\d+$", step)
        if mm:
            refs.setdefault(mm.group(1), []).append(v)
    return {k: {"predicted_ms": statistics.mean(x["predicted_ms"] for x in v),
                "recorded_one_gpu_ms": statistics.mean(x["recorded_one_gpu_ms"] for x in v),
                "exposed_ms": statistics.mean(x["exposed_ms"] for x in v), "iterations": len(v)}
            for k, v in sorted(refs.items(), key=lambda kv: int(kv[0].split("_")[0]))}


def main():
    ap = argparse.ArgumentParser()
    for a in ("--rec", "--logs", "--commit", "--out"):
        ap.add_argument(a, required=True)
    ap.add_argument("--cli")
    ap.add_argument("--untraced")
    ap.add_argument("--pred")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    untraced_dir = a.untraced or a.logs
    pred_dir = a.pred or os.path.join(a.out, "pred")
    os.makedirs(pred_dir, exist_ok=True)
    recs = sorted(d for d in glob.glob(os.path.join(a.rec, "*_n*")) if os.path.isdir(d))
    jobs = []
    for rec in recs:
        name = os.path.basename(rec)
        workload, n = name.rsplit("_n", 1)
        n = int(n)
        scale = host_scale(workload, load(os.path.join(a.logs, name + ".json")), load(os.path.join(untraced_dir, "untraced_%s.json" % name)))
        for topo in TOPOLOGIES.get(n, ["hgx_h200x8"]):
            jobs.append((rec, name, workload, n, topo, scale))
    if a.cli:
        with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
            list(ex.map(lambda j: whatif(a.cli, j[0], j[4], STEP_RE.get(j[2], "^step "), j[5],
                                         os.path.join(pred_dir, "%s@%s.json" % (j[1], j[4]))), jobs))

    preds = []
    for rec, name, workload, n, topo, scale in jobs:
        path = os.path.join(pred_dir, "%s@%s.json" % (name, topo))
        d = load(path)
        entry = {"workload": workload, "world_size": n, "ranks_recorded": [0], "topology": topo, "host_scale": scale}
        if not d or "replay" not in d:
            err = open(path[:-5] + ".err").read()[-400:] if os.path.exists(path[:-5] + ".err") else ""
            entry.update(status="whatif failed", error=err)
            preds.append(entry)
            continue
        entry["status"] = "ok"
        for key, summary in (("as_recorded", d["replay"]), ("host_corrected", d.get("prediction"))):
            if not summary:
                continue
            v = figures(summary)
            steps = per_step(summary, workload)
            if workload == "pkb":
                v["references"] = references(steps)
            else:
                v["per_step"] = steps
            v["links"] = [{"name": l["name"], "bytes": l["bytes"], "peak_utilization": l["peak_utilization"]} for l in summary.get("links", [])[:4]]
            entry[key] = v
        r = d["replay"]
        entry["warnings"] = [w for w in r.get("warnings", []) if "repeat" in w or "stand-in" in w][:6]
        preds.append(entry)
    frozen = {"kind": "parascope one-GPU predictions (issue 21)", "commit": a.commit,
              "made_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
              "note": "predicted before any run on more GPUs; measured values go in a separate file. "
                      "Step times are per step (one NVTX step range), in ms; host_corrected is the primary figure "
                      "where present (host time x host_scale, the untraced / traced step time on the one GPU)",
              "truth": "not measured yet: the N = 2 runs are issue 23's (2 x H200), scored blind against this file; "
                       "N = 8 has no machine lent",
              "scored_figure": "host_corrected (as_recorded where absent): for gpt and tpmlp the per-step median "
                               "(step_median_ms, robust to one replayed step's outlier), for pkb each reference's "
                               "predicted_ms (mean over its iterations); the program's own median step time is the truth",
              "predictions": preds}
    if preds:
        with open(os.path.join(a.out, "predictions.json"), "w") as f:
            json.dump(frozen, f, indent=1)

    # overhead: N = 1, real NCCL vs the stand-in, paired
    pairs = []
    indices = sorted(int(f[len("overhead_real_"):-len(".json")]) for f in os.listdir(untraced_dir)
                     if re.fullmatch(r"overhead_real_\d+\.json", f))  # every pair run (onegpu_batch: 3, onegpu_extras: PAIRS)
    for i in indices:
        real, si = load(os.path.join(untraced_dir, "overhead_real_%d.json" % i)), load(os.path.join(untraced_dir, "overhead_standin_%d.json" % i))
        if real and si:
            pairs.append({"pair": i, "real_median_ms": real["median_ms"], "standin_median_ms": si["median_ms"],
                          "ratio": si["median_ms"] / real["median_ms"], "real_ms": real["step_ms"], "standin_ms": si["step_ms"],
                          "standin_backend": si.get("backend"), "real_backend": real.get("backend")})
    over = {"program": "onegpu_gpt.py (DDP, N = 1, no collector; steps as the batch ran it)", "pairs": pairs}
    if pairs:
        ratios = [p["ratio"] for p in pairs]
        over.update(median_ratio=statistics.median(ratios), min_ratio=min(ratios), max_ratio=max(ratios))
    untraced = {}
    for w in ("gpt", "tpmlp", "pkb"):
        for n in (2, 8):
            t = program_ms(load(os.path.join(a.logs, "%s_n%d.json" % (w, n))), w)
            u = program_ms(load(os.path.join(untraced_dir, "untraced_%s_n%d.json" % (w, n))), w)
            if t or u:
                untraced["%s_n%d" % (w, n)] = {"traced_ms": t, "untraced_ms": u,
                                               "host_scale": host_scale(w, load(os.path.join(a.logs, "%s_n%d.json" % (w, n))),
                                                                        load(os.path.join(untraced_dir, "untraced_%s_n%d.json" % (w, n))))}
    over["untraced_standin"] = untraced
    with open(os.path.join(a.out, "overhead.json"), "w") as f:
        json.dump(over, f, indent=1)

    lines = ["one-GPU predictions at commit %s (%s); every time is per step (ms)" % (a.commit, frozen["made_utc"])]
    if preds:
        lines.append("%-6s %2s %-11s %7s | %9s %9s %9s | %9s %9s %9s | %9s" % (
            "work", "N", "topology", "S", "rec mean", "pred mean", "exposed", "corr mean", "corr med", "exposed", "steps"))
    for e in preds:
        if e["status"] != "ok":
            lines.append("%-6s %2d %-11s %s" % (e["workload"], e["world_size"], e["topology"], e["status"]))
            continue
        r, c = e["as_recorded"], e.get("host_corrected")
        lines.append("%-6s %2d %-11s %7s | %9.3f %9.3f %9.3f | %9s %9s %9s | %9d" % (
            e["workload"], e["world_size"], e["topology"], "%.3f" % e["host_scale"] if e["host_scale"] else "-",
            r["recorded_one_gpu_step_ms"], r["step_ms"], r["exposed_per_step_ms"],
            "%.3f" % c["step_ms"] if c else "-", "%.3f" % c["step_median_ms"] if c else "-",
            "%.3f" % c["exposed_per_step_ms"] if c else "-", r["steps"]))
    for e in preds:
        refs = (e.get("host_corrected") or e.get("as_recorded") or {}).get("references")
        if refs:
            lines.append("PKB N=%d on %s: %d references (per call, %s)" % (
                e["world_size"], e["topology"], len(refs), "host-corrected" if e.get("host_corrected") else "as recorded"))
            for k, v in refs.items():
                lines.append("  %-45s pred %8.3f  1-GPU rec %8.3f  exposed %8.3f" % (k, v["predicted_ms"], v["recorded_one_gpu_ms"], v["exposed_ms"]))
    for name in sorted(glob.glob(os.path.join(a.logs, "pkb_n*.json")) + glob.glob(os.path.join(untraced_dir, "untraced_pkb_n*.json"))):
        d = load(name)
        if d:
            bad = [r for r in d["results"] if r["status"] != "ok"]
            lines.append("%s: %d ok, %d not ok: %s" % (os.path.basename(name), len(d["results"]) - len(bad), len(bad),
                                                     "; ".join("%s (%s)" % (r["name"], r.get("error", r["status"])[:80]) for r in bad)))
    for c in ("ddp", "tp", "a2a", "leak", "funcol", "fsdp"):
        rc = os.path.join(a.logs, "cpu_check_%s.rc" % c)
        if os.path.exists(rc):
            lines.append("stand-in CPU check %s under this torch: exit %s" % (c, open(rc).read().strip()))
    for p in pairs:
        lines.append("overhead pair %d: real NCCL %.3f ms, stand-in %.3f ms (medians; backends %s / %s): ratio %.4f" % (
            p["pair"], p["real_median_ms"], p["standin_median_ms"], p["real_backend"], p["standin_backend"], p["ratio"]))
    if pairs:
        lines.append("overhead N=1 stand-in / real NCCL step time: median %.4f, range %.4f .. %.4f (target within 2 %%)" % (
            over["median_ratio"], over["min_ratio"], over["max_ratio"]))
    for k, v in untraced.items():
        fmt = lambda x: ("%.3f" % x) if isinstance(x, float) else ("%d refs" % len(x) if x else "-")
        lines.append("%-9s traced %s ms, untraced stand-in %s ms: host scale %s" % (
            k, fmt(v["traced_ms"]), fmt(v["untraced_ms"]), "%.3f" % v["host_scale"] if v["host_scale"] else "-"))
    with open(os.path.join(a.out, "summary.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
