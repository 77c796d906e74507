#!/usr/bin/env bash
# The CUPTI collector's measurements on the 2 x H200 machine (issue #6), in one batch of < 8 min:
#   1. build (cmake --preset gpu; only the collector, the CLI and their tools)
#   2. an unmodified 2-process PyTorch NCCL program (scripts/gpu/collector_workload.py) run three
#      times: under `parascope-cli record`, under torch.profiler, plain; per-device kernel/copy/
#      memset counts of the same measured loop compared; NCCL annotations on every NCCL kernel
#   3. overhead: 10 paired runs (traced / untraced, order alternating) of 10 000 x 20 us kernels and
#      of the host time per launch, default kinds and --kinds minimal
#   4. capture safety: SIGKILL, abort(), segfault after known numbers of completed kernels
#   5. probe spans vs CUPTI kernel times (clock sync), probe overhead; peer copies; CUDA graphs
#   6. NVLink PM sampling during the PyTorch program (works, or the exact CUPTI error)
# Writes to $OUT (default ./out-collector): summary.txt, results.json, env.txt, logs.tar.gz,
# traces.tar.gz; prints the summary table last.
# Usage (repo root, on the GPU machine): OUT=/path scripts/gpu/collector.sh
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/out-collector}
mkdir -p "$OUT"
W=$(mktemp -d /tmp/parascope-collector.XXXXXX)
LOGS=$W/logs
mkdir -p "$LOGS"
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
START=$(date +%s)
elapsed() { echo $(( $(date +%s) - START )); }
say() { echo "[$(elapsed) s] $*"; }
# run NAME TIMEOUT CMD...: stdout+stderr to logs/NAME.log, exit status to logs/NAME.rc
run() {
  local name=$1 limit=$2
  shift 2
  timeout --kill-after=10 "$limit" "$@" > "$LOGS/$name.log" 2>&1
  local rc=$?
  echo "$rc" > "$LOGS/$name.rc"
  say "$name: exit $rc"
  return 0
}
finish() {
  tar -C "$W" -czf "$OUT/logs.tar.gz" logs 2>/dev/null
  (cd "$W" && tar -czf "$OUT/traces.tar.gz" --exclude=logs --exclude='*.jsonl' . 2>/dev/null)
  python3 scripts/gpu/collector_analyze.py "$W" "$OUT" > "$LOGS/analyze.log" 2>&1 || cat "$LOGS/analyze.log"
  say "done; outputs in $OUT: $(ls "$OUT" | tr '\n' ' ')"
  echo
  cat "$OUT/summary.txt" 2>/dev/null || echo "no summary (see logs.tar.gz)"
}

# ---------------------------------------------------------------- 0. environment
{
  date -u; uname -a; id; nvidia-smi; nvidia-smi topo -m; nvcc --version | tail -2; cmake --version | head -1
  g++ --version | head -1
  echo "--- profiling permission (RmProfilingAdminOnly=1 blocks PM sampling for non-root users)"
  grep -i RmProfilingAdminOnly /proc/driver/nvidia/params 2>/dev/null || echo "(no /proc/driver/nvidia/params)"
  python3 - <<'EOF'
import torch
print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version(), "gpus", torch.cuda.device_count())
print("libcupti mapped after `import torch`:", sorted({l.split()[-1] for l in open("/proc/self/maps") if "cupti" in l}))
EOF
} > "$OUT/env.txt" 2>&1
say "environment written"

# ---------------------------------------------------------------- 1. build
run configure 180 cmake --preset gpu
run build 300 cmake --build build/gpu -j 16 --target parascope-cli parascope_cupti parascope-collector-dump parascope-collector-bench
B=$ROOT/build/gpu
CLI=$B/app/cli/parascope-cli
DUMP=$B/trace/collector/parascope-collector-dump
BENCH=$B/trace/collector/parascope-collector-bench
if [ ! -x "$CLI" ] || [ ! -f "$B/trace/collector/libparascope_cupti.so" ] || [ ! -x "$BENCH" ]; then
  say "build failed; see logs.tar.gz (logs/build.log)"
  tail -40 "$LOGS/build.log"
  finish
  exit 1
fi
dump() {  # dump NAME DIR: NAME.jsonl (records) and NAME.summary.json
  "$DUMP" --jsonl "$2" > "$W/$1.jsonl" 2>> "$LOGS/dump.log"
  "$DUMP" --json "$2" > "$W/$1.summary.json" 2>> "$LOGS/dump.log"
}

# ---------------------------------------------------------------- 2. PyTorch program
TR="torchrun --standalone --nproc-per-node 2 scripts/gpu/collector_workload.py --iters 50"
mkdir -p "$W/torch_rec_win" "$W/torch_prof" "$W/torch_plain" "$W/torch_nvl_win"
run torch_rec 120 "$CLI" record -o "$W/torch_rec" -- $TR --out "$W/torch_rec_win"
dump torch_rec "$W/torch_rec"
run torch_prof 120 $TR --out "$W/torch_prof" --profile
run torch_plain 120 $TR --out "$W/torch_plain"

# ---------------------------------------------------------------- 3. overhead (paired, alternating order)
for pair in $(seq 1 10); do
  order="untraced traced traced_minimal"
  [ $((pair % 2)) -eq 0 ] && order="traced_minimal traced untraced"  # no variant always runs first
  for variant in $order; do
    # the --kinds minimal variant is the first thing dropped when the batch runs late
    [ "$variant" = traced_minimal ] && [ "$(elapsed)" -gt 330 ] && continue
    case $variant in
      untraced) pre=() ;;
      traced) pre=("$CLI" record -q -o "$W/ovh/$pair-$variant" --) ;;
      traced_minimal) pre=("$CLI" record -q -o "$W/ovh/$pair-$variant" --kinds minimal --) ;;
    esac
    for mode in spin launch; do
      n=10000
      line=$(timeout 60 "${pre[@]}" "$BENCH" $mode --kernels $n --us 20 2>> "$LOGS/overhead.log" | grep '^{' | tail -1)
      [ -n "$line" ] && echo "${line%\}},\"pair\":$pair,\"variant\":\"$variant\"}" >> "$W/overhead.jsonl"
    done
  done
done
say "overhead: $(wc -l < "$W/overhead.jsonl" 2>/dev/null || echo 0) runs"
rm -rf "$W/ovh"  # the overhead traces are not kept (sizes only matter for the runs above)

# ---------------------------------------------------------------- 4. capture safety
for how in kill abort segv; do
  run "crash_$how" 60 "$CLI" record -q -o "$W/crash_$how" --flush-ms 1000 -- "$BENCH" crash --how $how --kernels 2000 --wait-ms 2500
  grep '^{' "$LOGS/crash_$how.log" > "$W/crash_$how.out"
  dump "crash_$how" "$W/crash_$how"
done

# ---------------------------------------------------------------- 5. probes, peer copies, graphs
run probe_rec 60 "$CLI" record -q -o "$W/probe_rec" -- "$BENCH" probe --kernels 50 --blocks 264
dump probe_rec "$W/probe_rec"
for i in 1 2 3; do
  timeout 60 "$BENCH" probe --kernels 50 --blocks 264 2>> "$LOGS/probe_overhead.log" | grep '^{' >> "$W/probe_overhead.jsonl"
  timeout 60 "$BENCH" probe --kernels 50 --blocks 264 --no-probe 2>> "$LOGS/probe_overhead.log" | grep '^{' >> "$W/probe_overhead.jsonl"
done
run peer_rec 60 "$CLI" record -q -o "$W/peer_rec" -- "$BENCH" peer --copies 20 --mib 64
grep '^{' "$LOGS/peer_rec.log" > "$W/peer.out"
dump peer_rec "$W/peer_rec"
run graph_rec 60 "$CLI" record -q -o "$W/graph_rec" -- "$BENCH" graph --launches 5
dump graph_rec "$W/graph_rec"
run smoke 120 tests/collector/gpu_smoke.sh "$CLI" "$BENCH" "$DUMP"
cp "$LOGS/smoke.rc" "$W/smoke.rc"

# ---------------------------------------------------------------- 6. NVLink PM sampling
if [ "$(elapsed)" -lt 400 ]; then
  run torch_nvl 120 "$CLI" record -o "$W/torch_nvl" --nvlink-sample-us 1000 -- $TR --out "$W/torch_nvl_win"
  dump torch_nvl "$W/torch_nvl"
else
  say "skipping the NVLink sampling run: $(elapsed) s used"
fi

finish
