#!/usr/bin/env python3
"""Generates a large multi-rank PyTorch profiler (Kineto) trace shaped like a real one.

The shape is taken from a real capture (default: the DDP step in
resources/captures/h200x2_2026-11-30/dp_step/, one template per rank parity): the same event mix
(cpu_op trees, cuda_runtime/driver launches, kernels, memsets, DtoD copies, NCCL kernels with
their collective args, [memory] instants, ac2g and fwdbwd flows, M metadata) with the same arg
sets and nesting. The template's profiled window is repeated back to back; each repetition shifts
timestamps and renumbers External id / correlation / flow ids / Ev Idx / Sequence number, so ids
stay unique. Kernel, memcpy and memset durations shrink by a seeded 0-5 % (shrinking a leaf never
breaks nesting). Output uses Kineto's own layout (whitespace included), one file per rank, named
like torch.profiler.tensorboard_trace_handler names them.

Deterministic: the same arguments give byte-identical files.

    scripts/gen_kineto_trace.py OUTDIR --ranks 8 --size-mb 1024 [--gzip] [--files-per-rank K]
"""

import argparse
import gzip
import io
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_TEMPLATES = [
    os.path.join(HERE, "..", "resources", "captures", "h200x2_2026-11-30", "dp_step",
                 "rank0.1796033539809103290.pt.trace.json"),
    os.path.join(HERE, "..", "resources", "captures", "h200x2_2026-11-30", "dp_step",
                 "rank1.1796033539812812236.pt.trace.json.gz"),
]

# Args renumbered per repetition (each gets its own stride so values stay unique).
RENUMBERED = ("External id", "correlation", "Ev Idx", "Sequence number")
GPU_LEAF_CATS = ("kernel", "gpu_memcpy", "gpu_memset")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def us_text(ns):
    return "%d.%03d" % (ns // 1000, ns % 1000) if ns >= 0 else "-" + us_text(-ns)


def to_ns(us):
    return int(round(us * 1000))


def jtext(v):
    return json.dumps(v, separators=(", ", ": "))


class Template:
    """One real trace cut into: header members, per-window events, once-per-file events."""

    def __init__(self, path):
        d = load(path)
        self.header = {k: v for k, v in d.items() if k != "traceEvents"}
        self.window = []   # repeated
        self.once = []     # M events, the Spans/Traces markers
        for e in d["traceEvents"]:
            if e.get("ph") == "M" or not isinstance(e.get("pid"), int):
                self.once.append(e)
            else:
                self.window.append(e)
        starts = [to_ns(e["ts"]) for e in self.window]
        ends = [to_ns(e["ts"]) + to_ns(e.get("dur", 0)) for e in self.window]
        self.t0 = min(starts)
        self.span = max(ends) - self.t0
        self.strides = {}
        for key in RENUMBERED:
            vals = [e["args"][key] for e in self.window if key in e.get("args", {})]
            self.strides[key] = (max(vals) - min(vals) + 1) if vals else 0
        flow_ids = {}
        for e in self.window:
            if e.get("ph") in ("s", "f", "t"):
                flow_ids.setdefault(e["cat"], []).append(e["id"])
        self.flow_strides = {c: max(v) - min(v) + 1 for c, v in flow_ids.items()}
        cpu_pids = {e["pid"] for e in self.window if e.get("cat") in ("cpu_op", "cuda_runtime")}
        self.cpu_pid = min(cpu_pids)
        self.device = self.header["distributedInfo"]["rank"]
        for e in self.window:
            if e.get("cat") == "kernel":
                self.device = e["args"]["device"]
                break
        self.steps = sorted(int(e["name"].split("#")[1]) for e in self.window
                            if e.get("name", "").startswith("ProfilerStep#"))


class RankWriter:
    def __init__(self, tpl, rank, world, seed):
        self.t = tpl
        self.rank = rank
        self.world = world
        self.rng = random.Random(seed * 1000003 + rank)
        self.pid = 1000 + 97 * rank
        self.ranks_text = "[" + ", ".join(str(r) for r in range(world)) + "]"

    def map_pid(self, pid):
        if pid == self.t.cpu_pid:
            return self.pid
        if pid == self.t.device:
            return self.rank  # GPU pseudo-process: the device ordinal
        return pid

    def map_tid(self, pid, tid):
        if pid == self.t.cpu_pid and tid == self.t.cpu_pid:
            return self.pid
        return tid

    def arg_text(self, e, rep):
        parts = []
        for k, v in e.get("args", {}).items():
            if k in RENUMBERED and isinstance(v, int):
                v = v + rep * self.t.strides[k]
            elif k == "device" or (k == "Device Id" and v == self.t.device):
                v = self.rank
            elif k == "Group size":
                v = self.world
            elif k == "Process Group Ranks":
                v = self.ranks_text
            elif k == "Rank":
                v = self.rank
            parts.append(jtext(k) + ": " + jtext(v))
        return ", ".join(parts)

    def event(self, e, rep, shift):
        ph = e["ph"]
        pid = self.map_pid(e["pid"])
        tid = self.map_tid(e["pid"], e["tid"])
        ts = to_ns(e["ts"]) + shift
        if ph == "X":
            dur = to_ns(e["dur"])
            if e.get("cat") in GPU_LEAF_CATS:
                dur -= dur * self.rng.randrange(0, 51) // 1000
            name = e["name"]
            if name.startswith("ProfilerStep#"):
                name = "ProfilerStep#%d" % (int(name.split("#")[1]) + rep * len(self.t.steps))
            s = ('  {\n    "ph": "X", "cat": %s, "name": %s, "pid": %d, "tid": %d,\n'
                 '    "ts": %s, "dur": %s' % (jtext(e["cat"]), jtext(name), pid, tid, us_text(ts), us_text(dur)))
            if e.get("args"):
                s += ',\n    "args": {\n      ' + self.arg_text(e, rep) + '\n    }'
            return s + "\n  }"
        if ph in ("s", "f", "t"):
            fid = e["id"] + rep * self.t.flow_strides[e["cat"]]
            bp = ', "bp": "e"' if e.get("bp") == "e" else ""
            return ('  {\n    "ph": "%s", "id": %d, "pid": %d, "tid": %d, "ts": %s,\n    "cat": %s, "name": %s%s\n  }'
                    % (ph, fid, pid, tid, us_text(ts), jtext(e["cat"]), jtext(e["name"]), bp))
        if ph == "i":
            s = ('  {\n    "ph": "i", "cat": %s, "s": "t", "name": %s,\n    "pid": %d, "tid": %d,\n    "ts": %s'
                 % (jtext(e.get("cat", "")), jtext(e["name"]), pid, tid, us_text(ts)))
            if e.get("args"):
                s += ',\n    "args": {\n      ' + self.arg_text(e, rep) + '\n    }'
            return s + "\n  }"
        raise ValueError("unexpected phase in template window: %r" % ph)

    def once_event(self, e, first_ns, last_ns):
        if e.get("ph") == "M":
            pid = e["pid"] if not isinstance(e["pid"], int) else self.map_pid(e["pid"])
            tid = e["tid"] if not isinstance(e["pid"], int) else self.map_tid(e["pid"], e["tid"])
            args = dict(e["args"])
            if args.get("labels") == "GPU %d" % self.t.device:
                args["labels"] = "GPU %d" % self.rank
            return ('  {\n    "name": %s, "ph": "M", "ts": %s, "pid": %s, "tid": %s,\n    "args": {\n      %s\n    }\n  }'
                    % (jtext(e["name"]), us_text(first_ns), jtext(pid), jtext(tid),
                       ", ".join(jtext(k) + ": " + jtext(v) for k, v in args.items())))
        if e.get("ph") == "X":
            return ('  {\n    "ph": "X", "cat": "Trace", "ts": %s, "dur": %s,\n    "pid": "Spans", "tid": %s,\n'
                    '    "name": %s,\n    "args": {\n      "Op count": 0\n    }\n  }'
                    % (us_text(first_ns), us_text(last_ns - first_ns), jtext(e["tid"]), jtext(e["name"])))
        ts = first_ns if e["name"].startswith("Iteration") else last_ns
        return ('  {\n    "name": %s, "ph": "i", "s": "g",\n    "pid": %s, "tid": %s, "ts": %s\n  }'
                % (jtext(e["name"]), jtext(e["pid"]), jtext(e["tid"]), us_text(ts)))

    def header_text(self, trace_name):
        h = dict(self.t.header)
        props = h.pop("deviceProperties")
        dev = dict(props[0])
        out = ['\n  {\n    "schemaVersion": 1,\n    "deviceProperties": [']
        items = []
        for i in range(self.world):
            dev["id"] = i
            items.append("\n    " + jtext(dev))
        out.append(",".join(items) + "\n    ],")
        dist = dict(h.pop("distributedInfo"))
        dist["rank"] = self.rank
        dist["world_size"] = self.world
        dist["pg_config"] = [dict(dist["pg_config"][0], pg_size=self.world, ranks=list(range(self.world)))]
        h["distributedInfo"] = dist
        base = h.pop("baseTimeNanoseconds")
        h.pop("traceName", None)
        unit = h.pop("displayTimeUnit", "ms")
        h.pop("schemaVersion", None)
        for k, v in h.items():
            out.append("\n      %s: %s," % (jtext(k), jtext(v)))
        out.append('\n  "displayTimeUnit": %s,\n  "baseTimeNanoseconds": %d,\n  "traceEvents": [\n'
                   % (jtext(unit), base))
        return "".join(out)

    def write(self, path, reps, gap_ns, compress):
        # mtime=0: the gzip header carries no clock, so .gz output is deterministic too
        opener = ((lambda p: io.TextIOWrapper(gzip.GzipFile(p, "wb", compresslevel=6, mtime=0)))
                  if compress else (lambda p: open(p, "w")))
        t = self.t
        first = t.t0 + reps[0] * (t.span + gap_ns)
        last = t.t0 + reps[-1] * (t.span + gap_ns) + t.span
        with opener(path) as f:
            f.write(self.header_text(path))
            sep = ""
            for rep in reps:
                shift = rep * (t.span + gap_ns) + self.rng.randrange(0, 1000)
                chunk = [self.event(e, rep, shift) for e in t.window]
                f.write(sep + ",\n".join(chunk))
                sep = ",\n"
            for e in t.once:
                f.write(",\n" + self.once_event(e, first, last))
            f.write('\n  ],\n  "traceName": %s\n}' % jtext(os.path.basename(path)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("--ranks", type=int, default=8)
    ap.add_argument("--size-mb", type=float, default=1024, help="approximate total size of all files (MiB, uncompressed)")
    ap.add_argument("--files-per-rank", type=int, default=1, help="split each rank's steps over K files (TensorBoard cycles)")
    ap.add_argument("--gzip", action="store_true", help="write .pt.trace.json.gz")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--template", action="append", help="real Kineto trace(s) to take the shape from")
    a = ap.parse_args()
    templates = [Template(p) for p in (a.template or DEFAULT_TEMPLATES)]
    os.makedirs(a.outdir, exist_ok=True)
    # size of one window, measured on rank 0's template
    probe = RankWriter(templates[0], 0, a.ranks, a.seed)
    window_bytes = sum(len(probe.event(e, 0, 0)) + 2 for e in templates[0].window)
    reps = max(1, int(round(a.size_mb * 1048576 / (a.ranks * window_bytes))))
    gap_ns = 1_000_000
    total = 0
    for r in range(a.ranks):
        tpl = templates[r % len(templates)]
        w = RankWriter(tpl, r, a.ranks, a.seed)
        per_file = -(-reps // a.files_per_rank)
        for k in range(a.files_per_rank):
            chunk = list(range(k * per_file, min(reps, (k + 1) * per_file)))
            if not chunk:
                break
            stamp = 1796033539809103290 + 1000 * r + 7 * k
            name = "rank%d.%d.pt.trace.json%s" % (r, stamp, ".gz" if a.gzip else "")
            path = os.path.join(a.outdir, name)
            w.write(path, chunk, gap_ns, a.gzip)
            size = os.path.getsize(path)
            total += size
            print("%s  %d steps  %.1f MiB" % (path, len(chunk) * len(tpl.steps), size / 1048576), file=sys.stderr)
    print("total %.1f MiB in %d files (%d repetitions of a %d-event window per rank)"
          % (total / 1048576, a.ranks * a.files_per_rank, reps, len(templates[0].window)), file=sys.stderr)


if __name__ == "__main__":
    main()
