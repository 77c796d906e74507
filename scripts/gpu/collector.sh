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
# Only some parts (the build then skips the CLI when no part needs it):
#   COLLECTOR_ONLY="overhead launch probe" OUT=/path scripts/gpu/collector.sh     (< 3 min)
# parts: torch overhead launch launch_alt crash probe peer graph smoke nvlink (default: all but
# launch_alt). launch_alt: host time per launch with capture stopped and running in turns inside
# one traced process (parascope-collector-bench launch --alternate), untraced as the noise control,
# then a bare CUPTI client's cost inside one untraced process (launch --cupti-floor). "overhead",
# "launch" and "probe" run the first collector's behaviour ("old": PARASCOPE_LAUNCH_CALLBACKS=always
# PARASCOPE_BUFFER_POOL=0 PARASCOPE_CLOCK_BRACKET=0, and the first probe code) beside the tuned one
# in the same run, interleaved (docs/history/collector.md, "Tuning log").
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
ONLY=${COLLECTOR_ONLY:-torch overhead launch crash probe peer graph smoke nvlink}
want() { [[ " $ONLY " == *" $1 "* ]]; }
needs_cli=0
for part in torch crash peer graph smoke nvlink; do want $part && needs_cli=1; done
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
  want torch && python3 - <<'EOF'
import torch
print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version(), "gpus", torch.cuda.device_count())
print("libcupti mapped after `import torch`:", sorted({l.split()[-1] for l in open("/proc/self/maps") if "cupti" in l}))
EOF
} > "$OUT/env.txt" 2>&1
say "environment written"

# ---------------------------------------------------------------- 1. build
run configure 180 cmake --preset gpu
TARGETS="parascope_cupti parascope-collector-dump parascope-collector-bench"
[ $needs_cli = 1 ] && TARGETS="parascope-cli $TARGETS"
run build 300 cmake --build build/gpu -j 16 --target $TARGETS
B=$ROOT/build/gpu
CLI=$B/app/cli/parascope-cli
DUMP=$B/trace/collector/parascope-collector-dump
BENCH=$B/trace/collector/parascope-collector-bench
LIB=$B/trace/collector/libparascope_cupti.so
if { [ $needs_cli = 1 ] && [ ! -x "$CLI" ]; } || [ ! -f "$LIB" ] || [ ! -x "$BENCH" ]; then
  say "build failed; see logs.tar.gz (logs/build.log)"
  tail -40 "$LOGS/build.log"
  finish
  exit 1
fi
say "build done: $TARGETS"
# traced VARIANT DIR CMD...: the command with the collector injected directly (no CLI), one GPU
traced() {
  local variant=$1 dir=$2
  shift 2
  local env=(CUDA_VISIBLE_DEVICES=0)
  case $variant in
    untraced) env+=() ;;
    old) env+=(PARASCOPE_LAUNCH_CALLBACKS=always PARASCOPE_BUFFER_POOL=0 PARASCOPE_CLOCK_BRACKET=0) ;;
    new) ;;
    new_noapi) env+=(PARASCOPE_KINDS=default,-runtime,-driver) ;;
    kernel_only) env+=(PARASCOPE_KINDS=kernel) ;;
    noreset) env+=(PARASCOPE_RESET_CALLBACKS=0) ;;
    cb_off) env+=(PARASCOPE_LAUNCH_CALLBACKS=off) ;;
    api_off) env+=(PARASCOPE_START=api PARASCOPE_LAUNCH_CALLBACKS=off) ;;  # attached, never capturing
    *) echo "unknown variant $variant" >&2; return 2 ;;
  esac
  if [ "$variant" != untraced ]; then
    mkdir -p "$dir"
    env+=(CUDA_INJECTION64_PATH="$LIB" NVTX_INJECTION64_PATH="$LIB" PARASCOPE_COLLECTOR_LIB="$LIB" PARASCOPE_OUTPUT_DIR="$dir")
  fi
  env "${env[@]}" "$@"
}
# the launching thread is pinned to the third CPU this process may use (after CUDA started)
PIN_CPU=$(python3 -c 'import os; c = sorted(os.sched_getaffinity(0)); print(c[min(2, len(c) - 1)])' 2>/dev/null || echo -1)
dump() {  # dump NAME DIR: NAME.jsonl (records) and NAME.summary.json
  "$DUMP" --jsonl "$2" > "$W/$1.jsonl" 2>> "$LOGS/dump.log"
  "$DUMP" --json "$2" > "$W/$1.summary.json" 2>> "$LOGS/dump.log"
}

# ---------------------------------------------------------------- 2. PyTorch program
TR="torchrun --standalone --nproc-per-node 2 scripts/gpu/collector_workload.py --iters 50"
mkdir -p "$W/torch_rec_win" "$W/torch_prof" "$W/torch_plain" "$W/torch_nvl_win"
if want torch; then
run torch_rec 120 "$CLI" record -o "$W/torch_rec" -- $TR --out "$W/torch_rec_win"
dump torch_rec "$W/torch_rec"
run torch_prof 120 $TR --out "$W/torch_prof" --profile
run torch_plain 120 $TR --out "$W/torch_plain"
fi

# ---------------------------------------------------------------- 3. overhead (interleaved rounds)
# Every round runs each variant once, as its own process, in an order rotated by the round, so no
# variant always goes first and slow drifts of the machine hit all alike. Ratios are taken within
# a round (paired with that round's untraced run); the analysis reports median and IQR.
rotate() {  # rotate N WORDS...: the words starting at index N mod count
  local n=$1
  shift
  local a=("$@") k=${#a[@]} i
  for ((i = 0; i < k; ++i)); do echo -n "${a[$(((n + i) % k))]} "; done
}
if want overhead; then
  for round in $(seq 1 5); do
    for variant in $(rotate "$round" untraced old new); do
      line=$(traced "$variant" "$W/ovh/$round-$variant" \
        timeout 60 "$BENCH" spin --kernels 10000 --us 20 2>> "$LOGS/overhead.log" | grep '^{' | tail -1)
      [ -n "$line" ] && echo "${line%\}},\"round\":$round,\"variant\":\"$variant\"}" >> "$W/overhead.jsonl"
    done
  done
  say "overhead (spin): $(wc -l < "$W/overhead.jsonl" 2>/dev/null || echo 0) runs"
fi
if want launch; then
  for round in $(seq 1 6); do
    for variant in $(rotate "$round" untraced old new new_noapi kernel_only); do
      # flush period 100 ms and 250 ms idle after the warm-up: CUPTI delivers the warm-up's kernel
      # records, so the tuned collector has seen them and stopped its launch callbacks ("auto")
      line=$(PARASCOPE_FLUSH_MS=100 traced "$variant" "$W/ovh/l$round-$variant" timeout 60 "$BENCH" launch \
        --kernels 8192 --warmup 2048 --settle-ms 250 --batch 256 --us 20 --cpu "$PIN_CPU" 2>> "$LOGS/launch.log" |
        grep '^{' | tail -1)
      [ -n "$line" ] && echo "${line%\}},\"round\":$round,\"variant\":\"$variant\"}" >> "$W/launch.jsonl"
    done
  done
  say "launch: $(wc -l < "$W/launch.jsonl" 2>/dev/null || echo 0) runs"
  # what the collector wrote about itself in one traced run of each kind (pool hits, warnings)
  for v in old new; do
    f=$(ls "$W/ovh/l1-$v"/*.pstrace 2>/dev/null | head -1)
    [ -n "$f" ] && "$DUMP" --json "$f" > "$W/launch_$v.summary.json" 2>> "$LOGS/dump.log"
  done
fi
if want launch_alt; then
  # LAUNCH_ALT_ROUNDS / LAUNCH_ALT_VARIANTS: more rounds pair the processes (attach cost = the
  # stopped phase of a traced run minus the untraced run of the same round)
  for round in $(seq 1 "${LAUNCH_ALT_ROUNDS:-4}"); do
    for variant in $(rotate "$round" ${LAUNCH_ALT_VARIANTS:-untraced new kernel_only}); do
      line=$(PARASCOPE_FLUSH_MS=100 traced "$variant" "$W/ovh/a$round-$variant" timeout 60 "$BENCH" launch \
        --warmup 2048 --settle-ms 250 --batch 256 --us 20 --cpu "$PIN_CPU" --alternate 48 2>> "$LOGS/launch_alt.log" |
        grep '^{' | tail -1)
      [ -n "$line" ] && echo "${line%\}},\"round\":$round,\"variant\":\"$variant\"}" >> "$W/launch_alt.jsonl"
    done
  done
  cp "$W/launch_alt.jsonl" "$OUT/launch_alt.jsonl" 2>/dev/null
  # the collector's own counts (launches_seen: launches its callbacks counted) of round 1's runs
  for f in "$W"/ovh/a1-*/*.pstrace; do
    [ -f "$f" ] && "$DUMP" --json "$f" > "$OUT/launch_alt_$(basename "$(dirname "$f")").summary.json" 2>> "$LOGS/dump.log"
  done
  # attached but never capturing (no activity kind ever enabled) against untraced, paired rounds
  for round in $(seq 1 "${ATTACH_ROUNDS:-0}"); do
    for variant in $(rotate "$round" ${ATTACH_VARIANTS:-untraced api_off}); do
      extra=(); v=$variant
      [ "$variant" = bare_cupti ] && extra=(--bare-cupti) && v=untraced  # the bench's own minimal CUPTI tracer
      [ "$variant" = new_plain ] && v=new                                # the collector, capturing throughout
      line=$(PARASCOPE_FLUSH_MS=100 traced "$v" "$W/ovh/n$round-$variant" timeout 60 "$BENCH" launch --kernels 8192 \
        --warmup 2048 --settle-ms 250 --batch 256 --us 20 --cpu "$PIN_CPU" "${extra[@]}" 2>> "$LOGS/launch_alt.log" |
        grep '^{' | tail -1)
      [ -n "$line" ] && echo "${line%\}},\"round\":$round,\"variant\":\"$variant\"}" >> "$W/attach.jsonl"
    done
  done
  cp "$W/attach.jsonl" "$OUT/attach.jsonl" 2>/dev/null
  # what a bare CUPTI client costs per launch, in one untraced process (states rotated per round)
  for rep in $(seq 1 "${CUPTI_FLOOR_RUNS:-6}"); do
    traced untraced "$W/ovh/f$rep" timeout 60 "$BENCH" launch --warmup 2048 --batch 256 --us 20 --cpu "$PIN_CPU" \
      --cupti-floor 24 2>> "$LOGS/launch_alt.log" | grep '^{' | tail -1 >> "$W/cupti_floor.jsonl"
  done
  cp "$W/cupti_floor.jsonl" "$OUT/cupti_floor.jsonl" 2>/dev/null
  cat "$W/cupti_floor.jsonl" 2>/dev/null
  say "launch_alt: $(wc -l < "$W/launch_alt.jsonl" 2>/dev/null || echo 0) runs"
  cat "$W/launch_alt.jsonl" 2>/dev/null
fi
rm -rf "$W/ovh"  # the overhead traces are not kept

# ---------------------------------------------------------------- 4. capture safety
want crash && for how in kill abort segv; do
  run "crash_$how" 60 "$CLI" record -q -o "$W/crash_$how" --flush-ms 1000 -- "$BENCH" crash --how $how --kernels 2000 --wait-ms 2500
  grep '^{' "$LOGS/crash_$how.log" > "$W/crash_$how.out"
  dump "crash_$how" "$W/crash_$how"
done

# ---------------------------------------------------------------- 5. probes, peer copies, graphs
if want probe; then
  # %globaltimer step and read cost, untraced and traced (a profiler may change the timer's rate)
  for v in untraced new; do
    traced $v "$W/timer_$v" timeout 30 "$BENCH" timer 2>> "$LOGS/probe.log" | grep '^{' |
      sed "s/}\$/,\"variant\":\"$v\"}/" >> "$W/timer.jsonl"
  done
  # probe cost: none / v1 (first code) / span (probe.cuh) / reserved, interleaved in one process;
  # the first measurement's shape (one span per block at the end) and the fused kernels' shape
  # (8 chunks x 2 spans, each ended before a barrier); each twice to show the spread
  for rep in 1 2; do
    for shape in end chunks; do
      timeout 60 env CUDA_VISIBLE_DEVICES=0 "$BENCH" probe-cost --shape $shape --chunks 8 --kernels 200 --blocks 264 \
        2>> "$LOGS/probe.log" | grep '^{' | sed "s/}\$/,\"rep\":$rep}/" >> "$W/probe_cost.jsonl"
    done
  done
  # alignment: probe spans vs CUPTI kernel times, clock offset by the host window only (old) and
  # by host window ∩ kernel brackets (new)
  for v in old new; do
    traced $v "$W/probe_$v" timeout 60 "$BENCH" probe --kernels 50 --blocks 264 > "$LOGS/probe_$v.log" 2>&1
    echo $? > "$LOGS/probe_$v.rc"
    dump "probe_$v" "$W/probe_$v"
  done
  say "probes done"
fi
if want peer; then
run peer_rec 60 "$CLI" record -q -o "$W/peer_rec" -- "$BENCH" peer --copies 20 --mib 64
grep '^{' "$LOGS/peer_rec.log" > "$W/peer.out"
dump peer_rec "$W/peer_rec"
fi
if want graph; then
  run graph_rec 60 "$CLI" record -q -o "$W/graph_rec" -- "$BENCH" graph --launches 5
  dump graph_rec "$W/graph_rec"
fi
if want smoke; then
  run smoke 120 tests/collector/gpu_smoke.sh "$CLI" "$BENCH" "$DUMP"
  cp "$LOGS/smoke.rc" "$W/smoke.rc"
fi

# ---------------------------------------------------------------- 6. NVLink PM sampling
if ! want nvlink; then
  :
elif [ "$(elapsed)" -lt 400 ]; then
  run torch_nvl 120 "$CLI" record -o "$W/torch_nvl" --nvlink-sample-us 1000 -- $TR --out "$W/torch_nvl_win"
  dump torch_nvl "$W/torch_nvl"
else
  say "skipping the NVLink sampling run: $(elapsed) s used"
fi

finish
