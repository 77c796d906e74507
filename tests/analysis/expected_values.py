# Independent expected values for tests/analysis on real Kineto traces: Python json with Decimal
# timestamps, unions of kernel intervals, communication = kernels with "Collective name" or named
# nccl*. Usage: python3 tests/analysis/expected_values.py FILE...
import json, gzip, sys, math
from decimal import Decimal
def load(p):
    f = gzip.open(p, 'rt') if p.endswith('.gz') else open(p)
    return json.load(f, parse_float=Decimal)
def ns(x): return int(Decimal(x) * 1000)
def union(iv):
    iv = sorted((s, e) for s, e in iv if e > s); out = []
    for s, e in iv:
        if out and s <= out[-1][1]: out[-1][1] = max(out[-1][1], e)
        else: out.append([s, e])
    return out
def total(u): return sum(e - s for s, e in u)
def inter(a, b):
    i = j = 0; out = []
    while i < len(a) and j < len(b):
        s = max(a[i][0], b[j][0]); e = min(a[i][1], b[j][1])
        if s < e: out.append([s, e])
        if a[i][1] < b[j][1]: i += 1
        else: j += 1
    return out
for p in sys.argv[1:]:
    d = load(p); base = int(d.get('baseTimeNanoseconds', 0))
    C, M, MEM, S = [], [], [], []
    kern = {}
    for e in d['traceEvents']:
        if e.get('ph') != 'X': continue
        cat = e.get('cat'); a = e.get('args', {})
        s = ns(e['ts']) + base; t = s + ns(e['dur'])
        if cat == 'kernel':
            comm = 'Collective name' in a or e['name'].startswith('nccl')
            (M if comm else C).append((s, t))
            kern.setdefault(e['name'], []).append(t - s)
        elif cat in ('gpu_memcpy', 'gpu_memset'):
            MEM.append((s, t))
        elif cat == 'cuda_sync':
            S.append((s, t))
    c, m = union(C), union(M)
    allact = C + M + MEM + S
    first = min(s for s, t in allact); last = max(t for s, t in allact)
    ov = total(inter(c, m))
    busy = union(C + M + MEM)
    sync_only = total(union(S)) - total(inter(union(S), busy))
    print(p.split('/')[-1][:12], 'compute', total(c), 'comm', total(m), 'overlap', ov, 'exposed', total(m) - ov,
          'window', first, last, 'busy', total(busy), 'sync_only', sync_only, 'idle', last - first - total(busy) - sync_only)
    top = sorted(kern.items(), key=lambda kv: -sum(kv[1]))[0]
    v = sorted(top[1]); n = len(v)
    print('  top kernel', top[0][:50], 'count', n, 'total', sum(v), 'p50', v[math.ceil(0.5*n)-1], 'p95', v[math.ceil(0.95*n)-1], 'min', v[0], 'max', v[-1])
    for e in d['traceEvents']:
        a = e.get('args', {})
        if e.get('cat') == 'kernel' and 'Collective name' in a:
            dt = {'Float': 4, 'BFloat16': 2}[a['dtype']]
            S_ = max(a['In msg nelems'], a['Out msg nelems']) * dt
            print('  coll', a['Collective name'], 'S', S_, 'dur', ns(e['dur']), 'algbw', S_ / (ns(e['dur']) * 1e-9))
