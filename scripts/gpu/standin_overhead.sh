#!/usr/bin/env bash
# Issue 21 item 3 on the lent 1 x H200: where the stand-in's extra step time goes (onegpu_extras.sh
# measured stand-in / real NCCL = 1.24 on the small-GPT DDP step at N = 1, no collector). Each
# variant runs real NCCL and the stand-in as a pair, alternating which goes first, pinned to the
# same cores (~2 min, no build):
#   ddp       the step as onegpu_extras.sh runs it, with --phases (forward / backward / optimizer)
#   noddp     the bare model: the stand-in's presence alone (patches, sitecustomize, no collectives)
#   bucket1g  DDP with one 1000 MB bucket: the cost per collective call
#   memsink   the stand-in without PARASCOPE_WORLD_LOG (records kept in memory)
#   profile   one torch.profiler trace (CPU + CUDA, last 3 steps) of each: diff them here
#   cprofile  the main thread's Python profile of each (pstats, top 40 by own time)
# Usage (repo root, GPU machine): PARASCOPE_COMMIT=$(git rev-parse HEAD) OUT=/path scripts/gpu/standin_overhead.sh
# Back: $OUT/overhead_probe.tar.gz (logs/*.log, .rc, each run's JSON, the profiles) and summary.txt.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/out-overhead}
mkdir -p "$OUT"
W=$(mktemp -d /tmp/parascope-overhead.XXXXXX)
LOGS=$W/logs
mkdir -p "$LOGS"
PAIRS=${PAIRS:-3}
CORES=${CORES:-0-7}
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 CUDA_VISIBLE_DEVICES=0
PYDIR=$ROOT/trace/collector/python
START=$(date +%s)
DEADLINE=$(( START + ${DEADLINE_S:-300} ))
BATCH_LOG=$LOGS/overhead.log
# shellcheck source=batch_steps.sh
. "$ROOT/scripts/gpu/batch_steps.sh"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; echo "cores $CORES"
  echo "commit ${PARASCOPE_COMMIT:-unknown}"
  python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'nccl', torch.cuda.nccl.version())"
} > "$LOGS/env.txt" 2>&1

GPT=(scripts/gpu/onegpu_gpt.py --steps 20 --warmup 4)
ONE=(RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 LOCAL_WORLD_SIZE=1 GROUP_RANK=0 MASTER_ADDR=127.0.0.1)
port=29700
real() {  # NAME ARGS...: real NCCL, world 1
  local name=$1; shift
  port=$((port + 1))
  run "$name" 90 env "${ONE[@]}" MASTER_PORT=$port taskset -c "$CORES" python3 "$@"
}
standin() {  # NAME LOG ARGS...: the stand-in, world 1 (LOG "" keeps the records in memory)
  local name=$1 log=$2; shift 2
  run "$name" 90 env "${ONE[@]}" MASTER_PORT=29500 PYTHONPATH="$PYDIR" PARASCOPE_WORLD_SIZE=1 PARASCOPE_WORLD_RANK=0 \
    PARASCOPE_WORLD_LOG="$log" PARASCOPE_WORLD_STRICT=1 taskset -c "$CORES" python3 "$@"
}
pair() {  # VARIANT I ARGS...: real and stand-in, the order alternating with I
  local v=$1 i=$2; shift 2
  if [ $((i % 2)) = 1 ]; then
    real "${v}_real_$i" "$@" --out "$LOGS/${v}_real_$i.json"
    standin "${v}_standin_$i" "$W/${v}_standin_$i.jsonl" "$@" --out "$LOGS/${v}_standin_$i.json"
  else
    standin "${v}_standin_$i" "$W/${v}_standin_$i.jsonl" "$@" --out "$LOGS/${v}_standin_$i.json"
    real "${v}_real_$i" "$@" --out "$LOGS/${v}_real_$i.json"
  fi
}
for i in $(seq 1 "$PAIRS"); do pair ddp "$i" "${GPT[@]}" --phases; done
for i in 1 2; do pair noddp "$i" "${GPT[@]}" --no-ddp; done
for i in 1 2; do pair bucket1g "$i" "${GPT[@]}" --bucket-mb 1000; done
for i in 1 2; do
  real "memsink_real_$i" "${GPT[@]}" --out "$LOGS/memsink_real_$i.json"
  standin "memsink_standin_$i" "" "${GPT[@]}" --out "$LOGS/memsink_standin_$i.json"
done
real profile_real "${GPT[@]}" --profile "$LOGS/profile_real.json" --out "$LOGS/profile_real_steps.json"
standin profile_standin "$W/profile_standin.jsonl" "${GPT[@]}" --profile "$LOGS/profile_standin.json" \
  --out "$LOGS/profile_standin_steps.json"
real cprofile_real -m cProfile -o "$LOGS/cprofile_real.prof" "${GPT[@]}"
standin cprofile_standin "$W/cprofile_standin.jsonl" -m cProfile -o "$LOGS/cprofile_standin.prof" "${GPT[@]}"
for v in real standin; do
  [ -f "$LOGS/cprofile_$v.prof" ] && python3 -c 'import pstats, sys; pstats.Stats(sys.argv[1]).sort_stats("tottime").print_stats(40)' \
    "$LOGS/cprofile_$v.prof" > "$LOGS/cprofile_$v.txt" 2>&1
done
cp "$W"/*.jsonl "$LOGS/" 2> /dev/null

# summary: each variant's medians (ms) and the stand-in / real ratio of each pair
python3 - "$LOGS" > "$LOGS/summary.txt" 2>&1 <<'EOF'
import glob, json, os, statistics, sys
logs = sys.argv[1]
def load(p):
    try:
        return json.load(open(p))
    except Exception:
        return None
for v in ("ddp", "noddp", "bucket1g", "memsink"):
    ratios = []
    for rp in sorted(glob.glob(os.path.join(logs, v + "_real_*.json"))):
        i = rp.rsplit("_", 1)[1][:-5]
        r, s = load(rp), load(os.path.join(logs, "%s_standin_%s.json" % (v, i)))
        if not r or not s:
            print("%s pair %s: incomplete" % (v, i)); continue
        ratios.append(s["median_ms"] / r["median_ms"])
        extra = ""
        if "phase_median_ms" in r and "phase_median_ms" in s:
            extra = "  phases real %s  stand-in %s" % (
                " ".join("%s %.2f" % kv for kv in r["phase_median_ms"].items()),
                " ".join("%s %.2f" % kv for kv in s["phase_median_ms"].items()))
        print("%s pair %s: real %.2f ms  stand-in %.2f ms  ratio %.3f%s" % (v, i, r["median_ms"], s["median_ms"], ratios[-1], extra))
    if ratios:
        print("%s: median ratio %.3f (%d pairs, %.3f-%.3f)" % (v, statistics.median(ratios), len(ratios), min(ratios), max(ratios)))
for v in ("real", "standin"):
    d = load(os.path.join(logs, "profile_%s_steps.json" % v))
    if d:
        print("profile_%s: median %.2f ms (profiled steps included)" % (v, d["median_ms"]))
EOF
cat "$LOGS/summary.txt" | tee -a "$BATCH_LOG"
tar -C "$W" -czf "$OUT/overhead_probe.tar.gz" logs
cp "$LOGS/summary.txt" "$OUT/overhead_summary.txt"
say "done: $(ls -la "$OUT/overhead_probe.tar.gz")"
