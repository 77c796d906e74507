#!/usr/bin/env python3
"""docs/pkb.md's results tables from `parascope-cli pkb report SUITE --json` files (no number typed by hand).

  scripts/pkb/results_tables.py [--w1 w1.json] [--one-gpu og2.json[,og2_more.json]] [--one-gpu og8.json]
                                [--pkb PKB_DIR] [--predictions predictions.json]
Markdown on stdout. With --pkb, a task of PKB's reference/ folder that a suite did not run gets a
row that says so. Several reports of one suite's calls, comma-separated: a later file's task
replaces an earlier one's of the same id (a task run again). --predictions takes the eval table's
predicted speed-ups from a `pkb solutions` predictions.json written before the eval ran (when the
eval's own copy was rewritten later without references).
"""
import argparse
import json
import os
import re
import statistics


def us(v):
    if v is None or v <= 0:
        return ""
    if v >= 1000:
        return f"{v / 1000:.3f} ms"
    if v >= 1:
        return f"{v:.1f} µs"
    if v >= 1e-3:
        return f"{v * 1000:.1f} ns"
    return f"{v * 1e6:.1f} ps"


def x(v):
    return "" if v is None or v <= 0 else (f"{v:.2f}x" if v < 10 else f"{v:.0f}x" if v >= 1000 else f"{v:.1f}x")


def cell(s):
    return (s or "").replace("|", "\\|")


def pkb_tasks(pkb):
    """(id, stem) of every reference in PKB's reference/ folder."""
    out = []
    for f in os.listdir(os.path.join(pkb, "reference")):
        m = re.match(r"(\d+)_.*\.py$", f)
        if m:
            out.append((int(m.group(1)), f[:-3]))
    return sorted(out)


def suite_table(r, reference_label, all_tasks=()):
    out = [f"| id | task | {reference_label} | bound | gap | binds | best design (predicted) | speed-up | note |",
           "|---:|---|---:|---:|---:|---|---|---:|---|"]
    have = {t["id"] for t in r["tasks"]}
    missing = [{"id": i, "stem": stem, "status": "not run"} for i, stem in all_tasks if i not in have]
    for t in sorted(r["tasks"] + missing, key=lambda t: t["id"]):
        if t["status"] == "not run":
            out.append(f"| {t['id']} | {t['stem']} | not run | | | | | | the device time ran out before it |")
            continue
        if t["status"] != "ok":
            out.append(f"| {t['id']} | {t['stem']} | failed | | | | | | {cell(t['reason'])} |")
            continue
        b = t.get("bound", {})
        d = t.get("designs", {})
        best = d.get("best", {})
        ref = d.get("reference_us") or (t["reference_ms"] or 0) * 1e3
        label = best.get("label") or ("none (one rank: nothing crosses a link)" if r["suite"]["world"] == 1 else "none")
        notes = [n for n in (t["trace"].get("note"), b.get("note")) if n]
        out.append(f"| {t['id']} | {t['stem']} | {us(ref)} | {us(b.get('bound_us'))} | {x(b.get('gap'))} | "
                   f"{b.get('binds') if b.get('bound_us') else ''} | {cell(label)} ({us(best.get('task_us'))}) | "
                   f"{x(best.get('speedup'))} | {cell('; '.join(notes))} |")
    return "\n".join(out)


def summary(r):
    ok = [t for t in r["tasks"] if t["status"] == "ok"]
    gaps = [t["bound"]["gap"] for t in ok if t.get("bound", {}).get("gap")]
    binds = {}
    for t in ok:
        if t.get("bound", {}).get("bound_us"):
            binds[t["bound"]["binds"]] = binds.get(t["bound"]["binds"], 0) + 1
    whole = [t["bound"]["gap"] for t in ok if t.get("bound", {}).get("gap") and t["work"]["ops_without_work"] == 0]
    return (f"{r['tasks_ok']} ok, {r['tasks_failed']} failed; a bound for {len(gaps)} tasks, median gap "
            f"{statistics.median(gaps):.0f}x (range {min(gaps):.1f}x to {max(gaps):.3g}x; median "
            f"{statistics.median(whole):.0f}x over the {len(whole)} whose ops all have work); binding: "
            + ", ".join(f"{k} {v}" for k, v in sorted(binds.items())))


def load_reports(paths):
    """One report from several of the same suite (comma-separated): tasks by id, the later wins."""
    files = [json.load(open(p)) for p in paths.split(",")]
    r = files[0]
    by_id = {}
    for f in files:
        if f["suite"]["world"] != r["suite"]["world"] or f["machine"]["name"] != r["machine"]["name"]:
            raise SystemExit("%s: another suite's report (world or machine differs)" % paths)
        for t in f["tasks"]:
            by_id[t["id"]] = t
    r["tasks"] = [by_id[i] for i in sorted(by_id)]
    r["tasks_ok"] = sum(t["status"] == "ok" for t in r["tasks"])
    r["tasks_failed"] = len(r["tasks"]) - r["tasks_ok"]
    return r


def eval_table(r, predicted=None):
    out = ["| task | Parascope kernel | PKB eval | PKB reference | solution | measured speed-up | predicted (before the eval) |",
           "|---|---|---|---:|---:|---:|---:|"]
    for t in sorted(r["tasks"], key=lambda t: t["id"]):
        s = t.get("solution")
        if not s:
            continue
        out.append(f"| {t['stem']} | {s['kernel']} | {'PASS' if s['correct'] else 'FAIL ' + cell(s['reason'])} | "
                   f"{s['reference_ms']:.4f} ms | {s['solution_ms']:.4f} ms | {s['measured_speedup']:.2f}x | "
                   f"{(predicted or {}).get(t['stem'], s['predicted_speedup']) or 0:.2f}x |")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--w1")
    ap.add_argument("--one-gpu", action="append", default=[])
    ap.add_argument("--pkb", help="PKB checkout: rows for the tasks a suite did not run")
    ap.add_argument("--predictions", help="pkb solutions' predictions.json written before the eval")
    a = ap.parse_args()
    all_tasks = pkb_tasks(a.pkb) if a.pkb else []
    w1 = load_reports(a.w1) if a.w1 else None
    predicted = None
    if a.predictions:
        predicted = {p["stem"]: p.get("predicted_speedup") for p in json.load(open(a.predictions))["predictions"]}
    if w1:
        print(f"**World 1** ({w1['suite']['world']} rank, {w1['suite']['m']}x{w1['suite']['n']} {w1['suite']['dtype']}; "
              f"bound on {w1['machine']['name']}): {summary(w1)}.\n")
        print(suite_table(w1, "PKB reference", all_tasks))
    for path in a.one_gpu:
        og = load_reports(path)
        n = og["suite"]["world"]
        ran = len(og["tasks"])
        not_run = f"; {len(all_tasks) - ran} not run" if all_tasks and len(all_tasks) > ran else ""
        print(f"\n**N = {n} through the one-GPU mode** (rank 0 of {n} on the one GPU; "
              f"bound and designs on {og['machine']['name']}): {summary(og)}{not_run}. The reference column is PKB's "
              "one-GPU time plus NCCL's collectives as modelled (`designs.reference_us`), what the gap and the speed-up "
              "are against.\n")
        print(suite_table(og, "reference (one GPU + modelled NCCL)", all_tasks))
    if not w1:
        return
    print("\n**PKB's eval of Parascope's solutions at world 1** (one rank: every collective is a local copy, so "
          "these are world-1 numbers, not the multi-GPU ones the kernels are for; the predicted speed-up was written "
          "by `pkb solutions` before the eval ran):\n")
    print(eval_table(w1, predicted))


if __name__ == "__main__":
    main()
