#!/bin/bash
# usage: OLD=/path/to/baseline/parascope-bench-pstrace scripts/bench/pstrace_load_ab.sh FILE.pstrace [ROUNDS]
# Single loads in fresh processes, interleaved (docs/benchmarks.md, "Native format"). The M/s figures
# assume the bench file of 11 925 288 events.
# Per round: the baseline (OLD), then NEW with --prefault off, then NEW with --prefault on.
F=$1; R=${2:-8}
OLD=${OLD:?set OLD to the baseline parascope-bench-pstrace}
NEW=${NEW:-build/release/trace/io/bench/parascope-bench-pstrace}
for r in $(seq $R); do
  echo "before $($OLD --load-only $F 1 2>&1 | sed -E 's/.*: ([0-9.]+) wall s.*, ([0-9.]+) cpu s.*/\1 \2/')"
  echo "prefetch $($NEW --load-only $F 1 --prefault off 2>&1 | sed -E 's/.*: ([0-9.]+) wall s.*, ([0-9.]+) cpu s.*/\1 \2/')"
  echo "prefetch+prefault $($NEW --load-only $F 1 --prefault on 2>&1 | sed -E 's/.*: ([0-9.]+) wall s.*, ([0-9.]+) cpu s.*/\1 \2/')"
done | tee /tmp/abc_raw.txt | python3 -c "
import sys,statistics as st
d={}
for l in sys.stdin:
  k,w,c=l.split(); d.setdefault(k,[]).append((float(w),float(c)))
ev=11.925288
for k,v in d.items():
  w=[x[0] for x in v]; c=[x[1] for x in v]
  print(f'{k:18s} wall median {st.median(w):.3f} s ({ev/st.median(w):.2f} M/s), range {min(w):.3f}-{max(w):.3f} ({ev/max(w):.1f}-{ev/min(w):.1f} M/s); cpu median {st.median(c):.3f} s; {len(v)} runs')
"
