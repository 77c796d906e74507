#!/usr/bin/env bash
# A/B of the four benchmark programs between two release builds of different commits, interleaved
# round by round in one run (this VM's speed drifts by up to 35 % within an hour, so only
# interleaved runs compare code): the .pstrace load, the GUI's frame times on a generated trace,
# the simulator at scale (1024-GPU ring) and the what-if sweep (100 variants). Prints one table of
# medians and ranges; writes every round's JSON under OUT.
#   scripts/bench/ab.sh OLD_BUILD NEW_BUILD [ROUNDS] [OUT]
# Each build needs the targets parascope-bench-pstrace parascope-gui-bench bench_sim_scale
# parascope-bench-whatif (cmake --preset release -DPARASCOPE_BUILD_TESTS=ON, then --target those).
# GUI_EVENTS (default 10000000) sets the GUI trace's size, LOAD_EVENTS (2000000) the load's.
set -euo pipefail
old=${1:?old build dir}
new=${2:?new build dir}
rounds=${3:-5}
out=${4:-$(mktemp -d)}
mkdir -p "$out"
gui_events=${GUI_EVENTS:-10000000}
load_events=${LOAD_EVENTS:-2000000}
export QT_QPA_PLATFORM=offscreen

# one .pstrace both builds load (the format has one version; the new build writes it)
"$new/trace/io/bench/parascope-bench-pstrace" --events "$load_events" --dir "$out/gen" --keep > "$out/gen.log" 2>&1
pst=$(find "$out/gen" -name '*.pstrace' | head -n 1)
[ -n "$pst" ] || { echo "ab.sh: no .pstrace generated in $out/gen (see $out/gen.log)" >&2; exit 1; }

for r in $(seq "$rounds"); do
  for side in old new; do
    b=$old; [ $side = new ] && b=$new
    # load: three loads in one process; the log line carries wall and cpu seconds of each
    "$b/trace/io/bench/parascope-bench-pstrace" --load-only "$pst" 3 > "$out/load_${side}_$r.txt" 2>&1
    "$b/app/bench/parascope-gui-bench" --events "$gui_events" --size 1920x1080 --baseline-seconds 5 \
      --json "$out/gui_${side}_$r.json" > "$out/gui_${side}_$r.txt" 2>&1
    (cd "$out" && "$b/tests/sim/bench_sim_scale" > "sim_${side}_$r.txt" 2>&1 && mv bench_sim_scale.json "sim_${side}_$r.json")
    "$b/sim/whatif/bench/parascope-bench-whatif" --json "$out/sweep_${side}_$r.json" > "$out/sweep_${side}_$r.txt" 2>&1
  done
  echo "ab.sh: round $r of $rounds done" >&2
done

python3 - "$out" "$rounds" <<'EOF'
import json, re, statistics as st, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def load_s(side, r, what="wall"):
    txt = open(f"{out}/load_{side}_{r}.txt").read()
    v = [float(x) for x in re.findall(r"([0-9.]+) " + what + " s", txt)]
    return min(v) if v else float("nan")
figures = [
    ("pstrace load, best of 3, wall (s)", load_s),
    ("pstrace load, best of 3, CPU (s)", lambda s, r: load_s(s, r, "cpu")),
    ("GUI frame p99, LOD (ms)", lambda s, r: json.load(open(f"{out}/gui_{s}_{r}.json"))["lod"]["p99_ms"]),
    ("GUI frame CPU p99, LOD (ms)", lambda s, r: json.load(open(f"{out}/gui_{s}_{r}.json"))["lod"]["cpu_p99_ms"]),
    ("GUI frame p99, SM rows (ms)", lambda s, r: json.load(open(f"{out}/gui_{s}_{r}.json"))["lod_sm_rows"]["p99_ms"]),
    ("GUI first paint (s)", lambda s, r: json.load(open(f"{out}/gui_{s}_{r}.json"))["first_paint_s"]),
    ("simulator, 1024-GPU ring, wall (s)", lambda s, r: json.load(open(f"{out}/sim_{s}_{r}.json"))["wall_s"]),
    ("what-if sweep, 100 variants (s)", lambda s, r: json.load(open(f"{out}/sweep_{s}_{r}.json"))["sweep_seconds"]),
    ("what-if sweep, 1 thread (s)", lambda s, r: json.load(open(f"{out}/sweep_{s}_{r}.json"))["sweep_one_thread_seconds"]),
]
print(f"| figure | old median (range) | new median (range) | new / old |")
print("|---|---|---|---|")
for name, f in figures:
    cols = []
    for side in ("old", "new"):
        v = [f(side, r) for r in range(1, rounds + 1)]
        cols.append((st.median(v), min(v), max(v)))
    (mo, lo, ho), (mn, ln, hn) = cols
    print(f"| {name} | {mo:.3f} ({lo:.3f}-{ho:.3f}) | {mn:.3f} ({ln:.3f}-{hn:.3f}) | {mn / mo:.3f} |")
EOF
echo "ab.sh: every round's output in $out"
