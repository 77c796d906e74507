"""Turns the raw outputs of scripts/gpu/collector.sh into results.json and a summary table.

  python3 collector_analyze.py WORKDIR OUTDIR

Reads the collector's records through parascope-collector-dump output (*.jsonl, *.summary.json),
the PyTorch profiler traces and the benchmark JSON lines that collector.sh left in WORKDIR. Every
number in the table is computed here from those files; nothing is assumed.
"""
import glob
import json
import os
import statistics
import sys


def load_jsonl(path):
    out = []
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError:
                    pass
    return out


def load_json(path, default=None):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, json.JSONDecodeError):
        return default


def pct(x):
    return f"{100 * x:+.2f} %"


# ---------------------------------------------------------------- PyTorch program vs torch.profiler
def torch_comparison(work):
    res = {"ranks": []}
    manifest = load_json(os.path.join(work, "torch_rec", "manifest.json"), {})
    recs = load_jsonl(os.path.join(work, "torch_rec.jsonl"))
    summaries = load_json(os.path.join(work, "torch_rec.summary.json"), []) or []
    res["manifest_files"] = [{k: f.get(k) for k in ("path", "rank", "status", "complete", "kernels", "dropped_records")}
                             for f in manifest.get("files", [])]
    res["exit"] = manifest.get("exit")
    for s in summaries:
        md = s.get("metadata", {})
        res.setdefault("cupti", []).append({"rank": md.get("rank"), "cupti_path": md.get("cupti_path"),
                                            "cupti_source": md.get("cupti_source"),
                                            "cupti_api_runtime": md.get("cupti_api_runtime"),
                                            "status": md.get("status"), "warnings": s.get("warnings", [])[:8]})
    for f in manifest.get("files", []):
        rank = f.get("rank")
        if rank is None or rank < 0:
            res.setdefault("rankless_files", []).append(f.get("path"))  # torchrun's own process, if it touched CUDA
            continue
        path = os.path.join(work, "torch_rec", f["path"])
        win = load_json(os.path.join(work, "torch_rec_win", f"window_rank{rank}.json"))
        kin = load_json(os.path.join(work, "torch_prof", f"kineto_rank{rank}.json"))
        mine = [r for r in recs if r.get("file") == path]
        entry = {"rank": rank, "file": f["path"]}
        if not win:
            entry["error"] = "no window file (the workload did not finish?)"
            res["ranks"].append(entry)
            continue
        t0, t1 = win["t0_ns"], win["t1_ns"]
        # NVTX "measure" range as the collector saw it (cross-check of the NVTX path)
        starts = {r["id"]: r for r in mine if r["t"] == "marker" and r["flags"] & 2 and r["name"] == "measure"}
        ends = {r["id"]: r for r in mine if r["t"] == "marker" and r["flags"] & 4}
        nv = [(int(s["ts"]), int(ends[i]["ts"])) for i, s in starts.items() if i in ends]
        entry["nvtx_measure_range"] = bool(nv)
        if nv:
            entry["nvtx_vs_host_clock_ns"] = [nv[0][0] - t0, t1 - nv[0][1]]
        entry["nvtx_ranges_total"] = sum(1 for r in mine if r["t"] == "marker" and r["flags"] & 2)
        inwin = [r for r in mine if r["t"] in ("kernel", "memcpy", "memset") and t0 <= int(r["start"]) <= t1
                 and not (r["t"] == "kernel" and r["name"].startswith("parascope_"))]
        linked = {r["kernel_corr"] for r in mine if r["t"] in ("nccl_collective", "nccl_p2p") and r["kernel_corr"]}
        devs = {}
        for r in inwin:
            d = devs.setdefault(r["dev"], {"kernels": 0, "memcpys": 0, "peer_memcpys": 0, "memsets": 0,
                                           "nccl_kernels": 0, "nccl_annotated": 0, "peer_pairs": {}})
            if r["t"] == "kernel":
                d["kernels"] += 1
                if "nccl" in r["name"].lower():
                    d["nccl_kernels"] += 1
                    d["nccl_annotated"] += r["corr"] in linked
            elif r["t"] == "memcpy":
                if r["peer"]:
                    d["peer_memcpys"] += 1
                    key = f'{r["src"]}->{r["dst"]}'
                    d["peer_pairs"][key] = d["peer_pairs"].get(key, 0) + 1
                else:
                    d["memcpys"] += 1
            else:
                d["memsets"] += 1
        kdevs = {}
        if kin:
            for e in kin.get("traceEvents", []):
                cat = e.get("cat", "")
                if cat not in ("kernel", "gpu_memcpy", "gpu_memset"):
                    continue
                dev = e.get("args", {}).get("device")
                d = kdevs.setdefault(dev, {"kernels": 0, "memcpys": 0, "peer_memcpys": 0, "memsets": 0, "nccl_kernels": 0})
                if cat == "kernel":
                    d["kernels"] += 1
                    d["nccl_kernels"] += "nccl" in e.get("name", "").lower()
                elif cat == "gpu_memcpy":
                    if "PtoP" in e.get("name", ""):
                        d["peer_memcpys"] += 1
                    else:
                        d["memcpys"] += 1
                else:
                    d["memsets"] += 1
        else:
            entry["kineto_error"] = "no PyTorch profiler trace for this rank"
        entry["collector"] = {str(k): v for k, v in sorted(devs.items())}
        entry["kineto"] = {str(k): v for k, v in sorted(kdevs.items(), key=lambda kv: str(kv[0]))}
        entry["nccl_ops"] = sum(1 for r in mine if r["t"] in ("nccl_collective", "nccl_p2p"))
        entry["nccl_launches"] = sum(1 for r in mine if r["t"] == "nccl_kernel_launch")
        entry["nccl_launches_with_corr"] = sum(1 for r in mine if r["t"] == "nccl_kernel_launch" and r["kernel_corr"])
        sample = next((r for r in mine if r["t"] == "nccl_collective"), None)
        if sample:
            entry["nccl_example"] = {k: sample[k] for k in ("func", "count", "dtype", "algo", "proto", "channels", "seq",
                                                            "rank", "nranks", "kernel_corr")}
        res["ranks"].append(entry)
    # loop times of the three runs of the same program
    for name in ("torch_plain", "torch_rec_win", "torch_prof"):
        ws = [load_json(p) for p in sorted(glob.glob(os.path.join(work, name, "window_rank*.json")))]
        res[f"loop_s_{name}"] = [w["loop_s"] for w in ws if w]
    return res


# ---------------------------------------------------------------- overhead
def quart(v):
    """median, 25th and 75th percentile, min, max (inclusive quartiles)."""
    v = sorted(v)
    if len(v) == 1:
        return {"median": v[0], "p25": v[0], "p75": v[0], "min": v[0], "max": v[0], "n": 1}
    q = statistics.quantiles(v, n=4, method="inclusive")
    return {"median": statistics.median(v), "p25": q[0], "p75": q[2], "min": v[0], "max": v[-1], "n": len(v)}


def paired(rows, key):
    """Per variant: its values, and its difference and ratio to the untraced run of the same round."""
    rounds = {}
    for r in rows:
        if key in r:
            rounds.setdefault(r["round"], {})[r["variant"]] = r[key]
    variants = sorted({v for rd in rounds.values() for v in rd})
    res = {}
    for v in variants:
        vals = [rd[v] for rd in rounds.values() if v in rd]
        entry = {"value": quart(vals)}
        if v != "untraced":
            d = [rd[v] - rd["untraced"] for rd in rounds.values() if v in rd and "untraced" in rd]
            r = [rd[v] / rd["untraced"] - 1 for rd in rounds.values() if v in rd and "untraced" in rd]
            if d:
                entry["delta"] = quart(d)
                entry["ratio"] = quart(r)
        res[v] = entry
    return res


def overhead(work):
    res = {}
    spin = load_jsonl(os.path.join(work, "overhead.jsonl"))
    if spin:
        res["spin"] = paired(spin, "seconds")
    launch = load_jsonl(os.path.join(work, "launch.jsonl"))
    if launch:
        res["launch_median_of_batches"] = paired(launch, "ns_per_launch")
        res["launch_mean"] = paired(launch, "mean")
        res["launch_cpu"] = sorted({r.get("cpu") for r in launch})
    for v in ("old", "new"):
        s = load_json(os.path.join(work, f"launch_{v}.summary.json"), []) or []
        if s:
            res[f"launch_{v}_trace"] = {"metadata": {k: s[0].get("metadata", {}).get(k) for k in
                                                     ("launches_seen", "kernel_records", "records", "dropped_records")},
                                        "warnings": s[0].get("warnings", [])}
    return res


# ---------------------------------------------------------------- crash safety
def crash(work):
    res = {}
    for how in ("kill", "abort", "segv"):
        if not os.path.exists(os.path.join(work, f"crash_{how}.out")):
            continue  # not run (COLLECTOR_ONLY)
        log = load_jsonl(os.path.join(work, f"crash_{how}.out"))
        phases = {r["phase"]: r["completed"] for r in log if r.get("mode") == "crash"}
        recs = load_jsonl(os.path.join(work, f"crash_{how}.jsonl"))
        summ = load_json(os.path.join(work, f"crash_{how}.summary.json"), []) or []
        found = sum(1 for r in recs if r["t"] == "kernel" and "spin_kernel" in r["name"])
        s = summ[0] if summ else {}
        md = s.get("metadata", {})
        res[how] = {"completed_before_flush": phases.get(1), "completed_before_death": phases.get(2), "recorded": found,
                    "file_complete": s.get("complete"), "end_reason": md.get("end_reason", "(none: not closed)"),
                    "reader_warnings": [w for w in s.get("warnings", []) if w.startswith("reader:")]}
        k2 = phases.get(2)
        if how == "kill":
            res[how]["ok"] = bool(phases.get(1)) and found >= phases.get(1, 0)
            res[how]["lost"] = (k2 - found) if k2 is not None else None
        else:
            res[how]["ok"] = k2 is not None and found == k2
    return res


# ---------------------------------------------------------------- probes
def alignment(work, name):
    recs = load_jsonl(os.path.join(work, f"{name}.jsonl"))
    kernels = sorted((r for r in recs if r["t"] == "kernel" and "probe_kernel" in r["name"]), key=lambda r: int(r["start"]))
    spans = [r for r in recs if r["t"] == "probe"]
    summ = load_json(os.path.join(work, f"{name}.summary.json"), []) or []
    res = {"kernels": len(kernels), "spans": len(spans),
           "clock_syncs": [r for r in recs if r["t"] == "clock_sync"],
           "clock_notes": [w for s in summ for w in s.get("warnings", []) if "clock" in w]}
    if kernels and spans:
        # launch k of the measured loop is kernel k + 1 (kernel 0 is the warm-up without probes)
        inside, worst_out, min_head, min_tail, n = 0, 0, None, None, 0
        for s in spans:
            idx = s["launch"] + 1
            if idx >= len(kernels):
                continue
            n += 1
            k = kernels[idx]
            ks, ke = int(k["start"]), int(k["end"])
            head, tail = int(s["start"]) - ks, ke - int(s["end"])
            out = max(0, -head) + max(0, -tail)
            inside += out == 0
            worst_out = max(worst_out, out)
            min_head = head if min_head is None else min(min_head, head)
            min_tail = tail if min_tail is None else min(min_tail, tail)
        res.update({"checked": n, "inside": inside, "worst_outside_ns": worst_out,
                    "min_start_after_kernel_start_ns": min_head, "min_end_before_kernel_end_ns": min_tail,
                    # the offset could move by this much either way and keep every span inside
                    "slack_ns": (min_head + min_tail) if min_head is not None else None,
                    "offsets_used": sorted({s["offset"] for s in spans})})
    return res


def probes(work):
    res = {}
    for v in ("old", "new"):
        if os.path.exists(os.path.join(work, f"probe_{v}.jsonl")):
            res[f"alignment_{v}"] = alignment(work, f"probe_{v}")
    rows = load_jsonl(os.path.join(work, "probe_cost.jsonl"))
    cost = {}
    for r in rows:
        c = cost.setdefault(r["shape"], {}).setdefault(r["variant"], {"overhead": [], "ms": [], "iqr_ms": [],
                                                                      "spans": r.get("spans_per_kernel"),
                                                                      "expected": r.get("spans_expected"), "bad": 0})
        c["overhead"].append(r["overhead"])
        c["ms"].append(r["ms_median"])
        c["iqr_ms"].append([r["ms_p25"], r["ms_p75"]])
        c["bad"] += r.get("bad_records", 0)
    res["cost"] = cost
    res["timer"] = load_jsonl(os.path.join(work, "timer.jsonl"))
    return res


# ---------------------------------------------------------------- peer copies, graphs, NVLink sampling
def misc(work):
    res = {}
    peer = load_json(os.path.join(work, "peer_rec.summary.json"), []) or []
    peer_out = load_jsonl(os.path.join(work, "peer.out"))
    if peer:
        pairs = [p for d in peer[0].get("devices", []) for p in d.get("peer_pairs", [])]
        res["peer"] = {"expected": next((r.get("copies") for r in peer_out if r.get("mode") == "peer"), None),
                       "skipped": next((r.get("skipped") for r in peer_out if r.get("mode") == "peer"), None),
                       "pairs": pairs}
    graph = load_jsonl(os.path.join(work, "graph_rec.jsonl"))
    if graph:
        gk = [r for r in graph if r["t"] == "kernel" and "spin_kernel" in r["name"]]
        res["graph"] = {"kernels": len(gk), "with_graph_id": sum(1 for r in gk if r["graph"]),
                        "distinct_nodes": len({r["node"] for r in gk if r["graph"]})}
    nvl = load_json(os.path.join(work, "torch_nvl.summary.json"), []) or []
    res["nvlink"] = []
    for s in nvl:
        md = s.get("metadata", {})
        notes = [w for w in s.get("warnings", []) if "nvlink" in w.lower() or "pm sampling" in w.lower()]
        res["nvlink"].append({"rank": md.get("rank"), "counters": s.get("counters", []), "notes": notes,
                              "nccl_collectives": s.get("nccl", {}).get("collectives")})
    smoke = open(os.path.join(work, "smoke.rc")).read().strip() if os.path.exists(os.path.join(work, "smoke.rc")) else None
    res["gpu_smoke_test_rc"] = smoke
    return res


def table(results):
    lines = []
    add = lines.append
    add("Parascope CUPTI collector on the GPU machine (issue #6)")
    add("=" * 100)
    t = results.get("torch", {})
    add("1. PyTorch 2-process NCCL program: collector (record) vs torch.profiler, same measured loop, per device")
    add(f"   {'rank':>4} {'dev':>3} | {'kernels ours/prof':>18} | {'memcpy ours/prof':>17} | {'peer ours/prof':>15} |"
        f" {'memset ours/prof':>16} | {'NCCL kernels annotated':>22}")
    for r in t.get("ranks", []):
        if "error" in r:
            add(f"   rank {r['rank']}: {r['error']}")
            continue
        for dev, c in r.get("collector", {}).items():
            k = r.get("kineto", {}).get(dev, {})
            add(f"   {r['rank']:>4} {dev:>3} | {c['kernels']:>8} / {k.get('kernels', '-'):<7} | {c['memcpys']:>7} / "
                f"{k.get('memcpys', '-'):<7} | {c['peer_memcpys']:>5} / {k.get('peer_memcpys', '-'):<7} | {c['memsets']:>6} / "
                f"{k.get('memsets', '-'):<7} | {c['nccl_annotated']:>9} / {c['nccl_kernels']:<10}"
                + (f"  peer {c['peer_pairs']}" if c["peer_pairs"] else ""))
        add(f"        NVTX 'measure' range seen: {r.get('nvtx_measure_range')}, NVTX ranges {r.get('nvtx_ranges_total')},"
            f" NCCL ops {r.get('nccl_ops')}, launches {r.get('nccl_launches')} ({r.get('nccl_launches_with_corr')} with"
            f" correlation); example {r.get('nccl_example')}")
    for c in t.get("cupti", []):
        add(f"   rank {c['rank']}: CUPTI {c['cupti_path']} ({c['cupti_source']}, API {c['cupti_api_runtime']}),"
            f" status {c['status']}")
    add(f"   loop time s: plain {t.get('loop_s_torch_plain')}, recorded {t.get('loop_s_torch_rec_win')},"
        f" torch.profiler {t.get('loop_s_torch_prof')}")
    o = results.get("overhead", {})
    add("2. Overhead: variants interleaved in rounds (one process each); per round traced - untraced;"
        " median [p25, p75] (min..max)")
    add("   variants: old = first collector (launch callbacks always, no buffer pool); new = tuned defaults;"
        " new_noapi = new without RUNTIME/DRIVER records; kernel_only = --kinds kernel")

    def fmt(q, f):
        return f"{f(q['median'])} [{f(q['p25'])}, {f(q['p75'])}] ({f(q['min'])}..{f(q['max'])})"
    ns = lambda x: f"{x:+.0f}"
    for key, label in (("spin", "10 000 x 20 us kernels, wall time"),
                       ("launch_median_of_batches", "host ns per launch, median of the 32 batches of 256 (steady state)"),
                       ("launch_mean", "host ns per launch, mean over all 8192 measured launches")):
        d = o.get(key)
        if not d:
            if key in ("spin", "launch_median_of_batches"):
                add(f"   {label}: not run")
            continue
        add(f"   {label}:")
        for v, e in d.items():
            if v == "untraced":
                val = e["value"]
                add(f"      {'untraced':<12} {val['median']:.6g} [{val['p25']:.6g}, {val['p75']:.6g}] ({val['n']} runs)")
            elif "delta" in e:
                if key == "spin":
                    add(f"      {v:<12} {fmt(e['ratio'], lambda x: pct(x))}  ({e['ratio']['n']} rounds)")
                else:
                    add(f"      {v:<12} {fmt(e['delta'], ns)} ns  = {pct(e['ratio']['median'])}  ({e['delta']['n']} rounds)")
    if o.get("launch_cpu"):
        add(f"   launching thread pinned to CPU {o['launch_cpu']}")
    for v in ("old", "new"):
        t = o.get(f"launch_{v}_trace")
        if t:
            add(f"   one traced launch run ({v}): {t['metadata']}")
    add("3. Capture safety (spin kernels completed vs recorded)")
    for how, v in results.get("crash", {}).items():
        add(f"   {how:>5}: completed {v['completed_before_flush']} before the last flush, {v['completed_before_death']}"
            f" before death; recorded {v['recorded']}; file closed: {v['file_complete']}, end reason"
            f" {v['end_reason']}; {'OK' if v['ok'] else 'NOT OK'}" + (f"; lost {v.get('lost')}" if how == "kill" else ""))
    p = results.get("probes", {})
    add("4. Probes")
    for r in p.get("timer", []):
        add(f"   %globaltimer ({r.get('variant')}): smallest step {r.get('min_step_ns')} ns, {r.get('steps_in_4096_reads')}"
            f" changes in 4096 reads, {r.get('cycles_per_read')} SM cycles per read")
    for shape, vs in p.get("cost", {}).items():
        add(f"   probe cost, shape '{shape}' (264 blocks x 128 threads; overhead vs no probes, each repetition):")
        for v, c in vs.items():
            add(f"      {v:<9} {', '.join(pct(x) for x in c['overhead'])}  ms {', '.join(f'{x:.4f}' for x in c['ms'])}"
                f"  spans/kernel {c['spans']} of {c['expected']}, bad records {c['bad']}")
    for v in ("old", "new"):
        a_ = p.get(f"alignment_{v}")
        if not a_:
            continue
        add(f"   alignment ({v}): {a_.get('spans')} spans in {a_.get('kernels')} kernels; inside {a_.get('inside')} of"
            f" {a_.get('checked')}; worst outside {a_.get('worst_outside_ns')} ns; min head"
            f" {a_.get('min_start_after_kernel_start_ns')} ns, min tail {a_.get('min_end_before_kernel_end_ns')} ns")
        for c in a_.get("clock_syncs", []):
            add(f"      clock_sync device {c['dev']}: CUPTI - globaltimer = {c['offset']} ns +- {c['uncertainty']} ns")
        for n in a_.get("clock_notes", []):
            add(f"      {n}")
    m = results.get("misc", {})
    add("5. Peer copies, CUDA graphs, NVLink PM sampling, GPU smoke test")
    add(f"   peer copies: {m.get('peer')}")
    add(f"   graph: {m.get('graph')}")
    for n in m.get("nvlink", []):
        add(f"   nvlink rank {n['rank']}: counters {n['counters']}")
        for note in n["notes"]:
            add(f"      {note}")
    add(f"   gpu smoke test exit code: {m.get('gpu_smoke_test_rc')} (0 pass, 77 skipped)")
    return "\n".join(lines) + "\n"


def main():
    work, out = sys.argv[1], sys.argv[2]
    results = {}
    for name, fn in (("torch", torch_comparison), ("overhead", overhead), ("crash", crash), ("probes", probes),
                     ("misc", misc)):
        try:
            results[name] = fn(work)
        except Exception as e:  # one broken part must not hide the others
            results[name] = {"error": f"{type(e).__name__}: {e}"}
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(results, f, indent=1, default=str)
    try:
        text = table(results)
    except Exception as e:
        text = f"summary table failed: {type(e).__name__}: {e}\n(see results.json)\n"
    with open(os.path.join(out, "summary.txt"), "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
