#!/usr/bin/env bash
# Issue 21 on the lent 1 x H200 (kind nvidia-h200), one batch of ~8 min:
#   0. the stand-in's CPU tests (tests/collector/standin) under this machine's torch
#   1. build the CLI and the collector (cmake --preset gpu)
#   2. overhead: the small-GPT DDP step at N = 1, the real NCCL process group vs the stand-in
#      (no collector in either), 3 pairs, order alternating; median step times and their spread
#   3. record --world N (rank 0, collector on) at N = 2 and N = 8 of: the small GPT DDP step
#      (onegpu_gpt.py), the sequence/tensor-parallel MLP (onegpu_tp_mlp.py: all-gather +
#      reduce-scatter), and ParallelKernelBench references in one process per N (onegpu_pkb.py)
#   4. predictions: whatif of every recording on h200x2 (N = 2) and hgx_h200x8 (N = 2 and 8), on
#      cores 8-15 while the GPU records the next workload on cores 0-7 (the predictions never touch
#      the GPU; the recordings' host threads keep their own cores)
# Writes to $OUT: summary.txt, predictions.json (frozen: commit + time; the lead commits it before
# anything runs on more GPUs), overhead.json, pkb.json, env.txt, logs.tar.gz, recordings.tar.gz.
# Usage (repo root, GPU machine): PARASCOPE_COMMIT=$(git rev-parse HEAD) OUT=/path \
#   scripts/gpu/onegpu_batch.sh /path/to/ParallelKernelBench
set -uo pipefail
PKB=${1:?usage: onegpu_batch.sh PKB_DIR}
PKB=$(cd "$PKB" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/out-onegpu}
mkdir -p "$OUT"
W=$(mktemp -d /tmp/parascope-onegpu.XXXXXX)
LOGS=$W/logs REC=$W/rec PRED=$W/pred
mkdir -p "$LOGS" "$REC" "$PRED"
COMMIT=${PARASCOPE_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 CUDA_VISIBLE_DEVICES=0
START=$(date +%s)
# the device call is killed at 600 s, and then nothing comes back: steps that would start past
# DEADLINE_S are skipped (rc 125, said in the log) and finish() still tars what was made
DEADLINE=$(( START + ${DEADLINE_S:-510} ))
say() { echo "[$(( $(date +%s) - START )) s] $*"; }
run() {  # run NAME TIMEOUT CMD...: output to logs/NAME.log, status to logs/NAME.rc
  local name=$1 limit=$2 left=$(( DEADLINE - $(date +%s) ))
  shift 2
  if [ "$left" -le 5 ]; then echo 125 > "$LOGS/$name.rc"; say "$name: skipped (batch deadline)"; return; fi
  [ "$limit" -gt "$left" ] && limit=$left
  timeout --kill-after=10 "$limit" "$@" > "$LOGS/$name.log" 2>&1
  local rc=$?
  echo "$rc" > "$LOGS/$name.rc"
  say "$name: exit $rc"
}
GPU_CORES=0-7 CPU_CORES=8-15
finish() {
  # predictions still running at the deadline are cut (their .rc says 124)
  local left=$(( DEADLINE + 40 - $(date +%s) )); [ "$left" -lt 5 ] && left=5
  ( sleep "$left"; pkill -f "parascope-cli whatif" ) & local guard=$!
  local pending; pending=$(jobs -p | grep -v "^$guard$")
  [ -n "$pending" ] && wait $pending 2>/dev/null
  kill $guard 2>/dev/null
  python3 scripts/gpu/onegpu_predictions.py --pred "$PRED" --rec "$REC" --logs "$LOGS" --commit "$COMMIT" --out "$OUT" \
    > "$LOGS/predictions.log" 2>&1 || cat "$LOGS/predictions.log"
  tar -C "$W" -czf "$OUT/logs.tar.gz" logs pred 2>/dev/null
  tar -C "$W" -czf "$OUT/recordings.tar.gz" rec 2>/dev/null
  if [ "$(stat -c %s "$OUT/recordings.tar.gz")" -gt 15000000 ]; then  # the 16 MiB limit on what comes back
    tar -C "$W" -czf "$OUT/recordings.tar.gz" --exclude='*pkb*' rec 2>/dev/null
  fi
  say "done; outputs in $OUT: $(ls "$OUT" | tr '\n' ' ')"
  cat "$OUT/summary.txt" 2>/dev/null || echo "no summary (see logs.tar.gz)"
}

{
  date -u; nvidia-smi; nproc; echo "commit $COMMIT"; echo "pkb $PKB"
  python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'nccl', torch.cuda.nccl.version())"
} > "$OUT/env.txt" 2>&1

# ---------------------------------------------------------------- 0. the CPU tests under this torch
for c in ddp tp a2a; do run "cpu_check_$c" 60 python3 tests/collector/standin/check_standin.py $c; done

# ---------------------------------------------------------------- 1. build
run configure 120 cmake --preset gpu
run build 300 cmake --build build/gpu -j 16 --target parascope-cli parascope_cupti
CLI=$ROOT/build/gpu/app/cli/parascope-cli
if [ ! -x "$CLI" ] || [ ! -f "$ROOT/build/gpu/trace/collector/libparascope_cupti.so" ]; then
  tail -40 "$LOGS/build.log"; say "build failed"; finish; exit 1
fi

# ---------------------------------------------------------------- 2. overhead at N = 1
PYDIR=$ROOT/trace/collector/python
GPT="scripts/gpu/onegpu_gpt.py --steps 12 --warmup 4"
real() { env RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=$1 taskset -c $GPU_CORES python3 $GPT --out "$2"; }
standin() { env RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 PYTHONPATH="$PYDIR" \
              PARASCOPE_WORLD_SIZE=1 PARASCOPE_WORLD_RANK=0 PARASCOPE_WORLD_LOG="$W/overhead-standin.jsonl" \
              taskset -c $GPU_CORES python3 $GPT --out "$1"; }
for i in 1 2 3; do
  if [ $((i % 2)) = 1 ]; then
    run "overhead_real_$i" 90 real $((29600 + i)) "$LOGS/overhead_real_$i.json"
    run "overhead_standin_$i" 90 standin "$LOGS/overhead_standin_$i.json"
  else
    run "overhead_standin_$i" 90 standin "$LOGS/overhead_standin_$i.json"
    run "overhead_real_$i" 90 real $((29600 + i)) "$LOGS/overhead_real_$i.json"
  fi
done

# ---------------------------------------------------------------- 3 + 4. record, predict
predict() {  # predict NAME N STEP_REGEX: whatif on the machines for N, on the CPU cores, in the background
  local name=$1 n=$2 step=$3 topos
  topos="hgx_h200x8"; [ "$n" = 2 ] && topos="h200x2 hgx_h200x8"
  for t in $topos; do
    ( timeout 300 taskset -c $CPU_CORES nice -n 19 "$CLI" whatif "$REC/$name" --topology "$t" --step "$step" --json -q \
        > "$PRED/$name@$t.json" 2> "$PRED/$name@$t.err"; echo $? > "$PRED/$name@$t.rc" ) &
  done
}
record() {  # record NAME N TIMEOUT CMD...
  local name=$1 n=$2 limit=$3
  shift 3
  run "record_$name" "$limit" taskset -c $GPU_CORES "$CLI" record --world "$n" --rank 0 -o "$REC/$name" -- "$@"
}
for n in 2 8; do
  record "gpt_n$n" $n 120 python3 scripts/gpu/onegpu_gpt.py --steps 6 --warmup 3 --out "$LOGS/gpt_n$n.json"
  predict "gpt_n$n" $n '^step '
  record "tpmlp_n$n" $n 90 python3 scripts/gpu/onegpu_tp_mlp.py --steps 6 --warmup 3 --out "$LOGS/tpmlp_n$n.json"
  predict "tpmlp_n$n" $n '^step '
done
for n in 2 8; do
  record "pkb_n$n" $n 150 python3 scripts/gpu/onegpu_pkb.py --pkb "$PKB" --budget-s 60 --iters 3 --out "$LOGS/pkb_n$n.json"
  predict "pkb_n$n" $n '^pkb '
done
say "recordings done; waiting for the predictions"
finish
