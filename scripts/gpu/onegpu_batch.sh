#!/usr/bin/env bash
# Issue 21 on the lent 1 x H200 (kind nvidia-h200). Two modes:
#   (default) the whole batch, ~2 min: the stand-in's CPU tests under this machine's torch; build the
#       CLI and the collector (cmake --preset gpu); the overhead pairs; record --world N (rank 0,
#       collector on) at N = 2 and 8 of the small GPT DDP step (onegpu_gpt.py), the sequence/tensor-
#       parallel MLP (onegpu_tp_mlp.py) and ParallelKernelBench references in one process per N
#       (onegpu_pkb.py); the untraced stand-in runs; the predictions (onegpu_predictions.py --cli).
#   --second: the short second run, ~100 s, no build: the overhead pairs and the untraced stand-in
#       runs only (the recordings of the first batch stay valid; their predictions are made on the
#       CPU by onegpu_predictions.py). RERECORD="gpt tpmlp pkb" (any of them) re-records those too,
#       which builds first (~30 s) and predicts them here.
# The overhead pairs: the small-GPT DDP step at N = 1, the real NCCL process group vs the stand-in,
#   no collector in either, 3 pairs, order alternating; the program's own median step times.
# The untraced stand-in runs: each recorded program at N = 2 and 8 under the stand-in WITHOUT the
#   collector, the program's own step times: what the collector's per-call host cost adds to the
#   recorded host time (the host correction of the predictions, docs/accuracy.md).
# Results in $OUT/onegpu/ (3 files at most): summary.txt, results.tar.gz (logs/, the programs' JSON,
# predictions.json and overhead.json when made), recordings.tar.gz (when anything was recorded).
# Usage (repo root, GPU machine): PARASCOPE_COMMIT=$(git rev-parse HEAD) OUT=/path \
#   scripts/gpu/onegpu_batch.sh [--second] /path/to/ParallelKernelBench
# Dry run of the shell logic without a GPU: ONEGPU_PYTHON=/path/to/fake-python ONEGPU_SKIP_ENV=1
# (ONEGPU_CLI=/path/to/cli: that CLI instead of building one).
set -uo pipefail
MODE=full
[ "${1:-}" = "--second" ] && { MODE=second; shift; }
PKB=${1:?usage: onegpu_batch.sh [--second] PKB_DIR}
PKB=$(cd "$PKB" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/out-onegpu}
RES=$OUT/onegpu
mkdir -p "$RES"
W=$(mktemp -d /tmp/parascope-onegpu.XXXXXX)
LOGS=$W/logs REC=$W/rec
mkdir -p "$LOGS" "$REC"
COMMIT=${PARASCOPE_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
PY=${ONEGPU_PYTHON:-python3}
RERECORD=${RERECORD:-}
[ "$MODE" = full ] && RERECORD="gpt tpmlp pkb"
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 CUDA_VISIBLE_DEVICES=0
START=$(date +%s)
# the device call is killed at 600 s, and then nothing comes back: steps that would start past
# DEADLINE_S are skipped (rc 125, said in the log) and finish() still tars what was made
DEADLINE=$(( START + ${DEADLINE_S:-510} ))
BATCH_LOG=$LOGS/batch.log
# shellcheck source=batch_steps.sh
. "$ROOT/scripts/gpu/batch_steps.sh"
GPU_CORES=0-7
has() { case " $RERECORD " in *" $1 "*) return 0 ;; esac; return 1; }
finish() {
  if [ -n "${CLI:-}" ] && [ -x "$CLI" ] && [ -n "$(ls "$REC" 2>/dev/null)" ]; then
    # predictions of what was recorded here (both variants, as recorded and host-corrected)
    run predictions 120 "$PY" scripts/gpu/onegpu_predictions.py --cli "$CLI" --rec "$REC" --logs "$LOGS" \
      --commit "$COMMIT" --out "$LOGS" --jobs 8
  else
    run predictions 60 "$PY" scripts/gpu/onegpu_predictions.py --rec "$REC" --logs "$LOGS" --commit "$COMMIT" --out "$LOGS"
  fi
  cp "$LOGS/summary.txt" "$RES/summary.txt" 2>/dev/null || echo "no summary (see results.tar.gz)" > "$RES/summary.txt"
  tar -C "$W" -czf "$RES/results.tar.gz" logs 2>/dev/null
  if [ -n "$(ls "$REC" 2>/dev/null)" ]; then
    tar -C "$W" -czf "$RES/recordings.tar.gz" rec 2>/dev/null
    if [ "$(stat -c %s "$RES/recordings.tar.gz")" -gt 15000000 ]; then  # the 16 MiB limit on what comes back
      tar -C "$W" -czf "$RES/recordings.tar.gz" --exclude='*pkb*' rec 2>/dev/null
    fi
  fi
  say "done ($MODE); outputs in $RES: $(ls "$RES" | tr '\n' ' ')"
  cat "$RES/summary.txt"
}

if [ -z "${ONEGPU_SKIP_ENV:-}" ]; then
  {
    date -u; nvidia-smi; nproc; echo "commit $COMMIT mode $MODE rerecord '$RERECORD'"; echo "pkb $PKB"
    "$PY" -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'nccl', torch.cuda.nccl.version())"
  } > "$LOGS/env.txt" 2>&1
fi

# ---------------------------------------------------------------- 0. the CPU tests under this torch
if [ "$MODE" = full ]; then
  for c in ddp tp a2a; do run "cpu_check_$c" 60 "$PY" tests/collector/standin/check_standin.py $c; done
fi

# ---------------------------------------------------------------- 1. build (only to record)
CLI=${ONEGPU_CLI:-}
if [ -n "$RERECORD" ] && [ -z "$CLI" ]; then
  run configure 120 cmake --preset gpu
  run build 300 cmake --build build/gpu -j 16 --target parascope-cli parascope_cupti
  CLI=$ROOT/build/gpu/app/cli/parascope-cli
  if [ ! -x "$CLI" ] || [ ! -f "$ROOT/build/gpu/trace/collector/libparascope_cupti.so" ]; then
    tail -40 "$LOGS/build.log"; say "build failed: nothing is recorded"; RERECORD=""; CLI=""
  fi
fi

# ---------------------------------------------------------------- 2. overhead at N = 1
PYDIR=$ROOT/trace/collector/python
GPT=(scripts/gpu/onegpu_gpt.py --steps 12 --warmup 4)
# what torchrun sets for rank 0 (real) / what record --world sets (world_env in verb_record.cpp);
# each fills the array E, the command's prefix
real_env() { E=(env RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 LOCAL_WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 "MASTER_PORT=$1"); }
standin_env() {  # standin_env N LOG
  E=(env RANK=0 "WORLD_SIZE=$1" LOCAL_RANK=0 LOCAL_WORLD_SIZE=1 GROUP_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=29500
     "PYTHONPATH=$PYDIR" "PARASCOPE_WORLD_SIZE=$1" PARASCOPE_WORLD_RANK=0 "PARASCOPE_WORLD_LOG=$2")
}
overhead_real() {
  real_env $((29600 + $1))
  run "overhead_real_$1" 90 "${E[@]}" taskset -c $GPU_CORES "$PY" "${GPT[@]}" --out "$LOGS/overhead_real_$1.json"
}
overhead_standin() {
  standin_env 1 "$W/overhead-standin-$1.jsonl"
  run "overhead_standin_$1" 90 "${E[@]}" taskset -c $GPU_CORES "$PY" "${GPT[@]}" --out "$LOGS/overhead_standin_$1.json"
}
for i in 1 2 3; do
  if [ $((i % 2)) = 1 ]; then overhead_real $i; overhead_standin $i; else overhead_standin $i; overhead_real $i; fi
done

# ---------------------------------------------------------------- 3. the programs: record, untraced
# (the same arguments for the recording and the untraced run, so their step times pair)
args() {  # args WORKLOAD OUT_JSON: fills the array A
  case $1 in
    gpt) A=(scripts/gpu/onegpu_gpt.py --steps 6 --warmup 3 --out "$2") ;;
    tpmlp) A=(scripts/gpu/onegpu_tp_mlp.py --steps 6 --warmup 3 --out "$2") ;;
    pkb) A=(scripts/gpu/onegpu_pkb.py --pkb "$PKB" --budget-s 60 --iters 3 --out "$2") ;;
  esac
}
for w in gpt tpmlp pkb; do
  for n in 2 8; do
    if has $w; then
      args $w "$LOGS/${w}_n$n.json"
      run "record_${w}_n$n" 150 taskset -c $GPU_CORES "$CLI" record --world "$n" --rank 0 -o "$REC/${w}_n$n" -- "$PY" "${A[@]}"
    fi
    args $w "$LOGS/untraced_${w}_n$n.json"
    standin_env $n "$W/untraced-$w-$n.jsonl"
    run "untraced_${w}_n$n" 120 "${E[@]}" taskset -c $GPU_CORES "$PY" "${A[@]}"
  done
done
say "runs done"
finish
