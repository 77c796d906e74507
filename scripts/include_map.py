#!/usr/bin/env python3
# The folder include map of docs/architecture.md ("Map"), from the tree's `#include` lines: per
# folder, the folders its files include ("..." includes resolved from the repository root, the
# file's own folder, or kernels/include), and the never-rules checked: no Qt or CUDA header under
# trace/core, trace/io, sim or app/models; nothing under trace/ or sim/ includes app/ or kernels/;
# no trace/io reader folder includes load_trace.h (the benchmark programs may). One stated exception:
# the collector's overhead benchmark (trace/collector/bench, a program) launches kernels that use
# kernels/include's probe.cuh. Prints the map, then each broken rule; exit 1 if any.
# usage: scripts/include_map.py [REPO_ROOT]
import os, re, sys

root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..'))
TOP = ('app', 'kernels', 'sim', 'trace')
SRC = ('.h', '.hpp', '.cpp', '.cu', '.cuh')
QUOTED = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
ANGLED = re.compile(r'^\s*#\s*include\s+<([^>]+)>', re.M)
QT = re.compile(r'^(Q[A-Z]\w*|Qt\w+/)')
CUDA = re.compile(r'^(cuda|cupti|nccl|cub/|thrust/|cooperative_groups|mma\.h|cute/|cutlass/)')


def folder(rel):
    d = os.path.dirname(rel)
    # the kernel families are one row of the map
    m = re.match(r'kernels/(p2p|collectives|fused|gemm)(/|$)', d)
    return 'kernels/{p2p,collectives,fused,gemm}' if m else d


def resolve(rel, inc):
    # the include roots the CMake targets give (target_include_directories)
    for base in ('', os.path.dirname(rel), 'app', 'kernels', 'kernels/include', 'trace/collector/include'):
        cand = os.path.normpath(os.path.join(base, inc))
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return None


edges, qt, cuda, broken = {}, {}, {}, []
for top in TOP:
    for dp, dns, fns in os.walk(os.path.join(root, top)):
        for fn in fns:
            if not fn.endswith(SRC):
                continue
            rel = os.path.relpath(os.path.join(dp, fn), root)
            text = open(os.path.join(root, rel), encoding='utf-8', errors='replace').read()
            f = folder(rel)
            edges.setdefault(f, set())
            for inc in QUOTED.findall(text):
                tgt = resolve(rel, inc)
                if tgt is None:
                    continue  # a generated or third-party header
                tf = folder(tgt)
                if tf != f:
                    edges[f].add(tf)
                if (f.startswith('trace/io/') and not f.endswith('/bench')
                        and tgt == 'trace/io/load_trace.h'):
                    broken.append(f'{rel}: a trace/io folder includes load_trace.h')
            for inc in ANGLED.findall(text):
                if QT.match(inc):
                    qt.setdefault(f, set()).add(rel)
                if CUDA.match(inc) or inc.endswith('.cuh'):
                    cuda.setdefault(f, set()).add(rel)

for f, files in sorted(qt.items()):
    if f.startswith(('trace', 'sim', 'app/models')):
        broken += [f'{r}: includes Qt' for r in sorted(files)]
for f, files in sorted(cuda.items()):
    if f.startswith(('trace/core', 'trace/io', 'sim', 'app/models', 'kernels/host')):
        broken += [f'{r}: includes CUDA' for r in sorted(files)]
for f, tos in sorted(edges.items()):
    if f.startswith(('trace', 'sim')) and f != 'trace/collector/bench':
        broken += [f'{f}: includes {t}' for t in sorted(tos) if t.startswith(('app', 'kernels'))]

# collapse subfolders of trace/core and the collector's include/ tree into their row
def row(f):
    for pre in ('trace/core', 'trace/collector', 'kernels/include', 'app/gui', 'tests'):
        if f == pre or f.startswith(pre + '/'):
            return pre
    return f

rows = {}
for f, tos in edges.items():
    rows.setdefault(row(f), set()).update(row(t) for t in tos)
for f in rows:
    rows[f].discard(f)
print(f'{"folder":40s} {"Qt":3s} {"CUDA":4s} includes')
for f in sorted(rows, key=lambda x: (x.split('/')[0], -len(rows[x]), x)):
    hasqt = 'Qt' if any(row(q) == f for q in qt) else ''
    hascu = 'CUDA' if any(row(c) == f for c in cuda) else ''
    print(f'{f:40s} {hasqt:3s} {hascu:4s} {", ".join(sorted(rows[f]))}')

# folder cycles (within a row's subfolders they are allowed: trace/core <-> trace/core/analysis)
def cycles():
    out, seen = [], set()
    for a in rows:
        for b in rows[a]:
            if a in rows.get(b, ()) and (b, a) not in seen:
                seen.add((a, b)); out.append(f'{a} <-> {b}')
    return out
cyc = cycles()
print('cycles:', ', '.join(cyc) if cyc else 'none')
print('broken rules:', len(broken))
for b in broken:
    print('  ' + b)
sys.exit(1 if broken else 0)
