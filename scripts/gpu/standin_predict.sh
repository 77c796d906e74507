#!/usr/bin/env bash
# Issue 21 item 3, scored by the prediction: does whatif, from the stand-in's recording, give the step
# the real backend takes? One process (standin_overhead_inproc.py --nvtx) alternates a DDP step over
# the real NCCL group (world 1) with the same step over the compiled stand-in, under
# `parascope-cli record` (the collector). Then whatif on that trace, steps "real i" / "standin i":
#   replay     --set comm_call_us=-1: the stand-in's steps as recorded (sanity: replay = measured; before
#              the machine's host profile existed, a604de2, this was the replay without knobs)
#   predicted  --set comm_call_us=$CALL_US: each stand-in call gets the backend's host time
# and standin_predict_score.py pairs predicted "standin i" with measured "real i".
# CALL_US is frozen before this runs: 13.5 us = the backend's call from a new C++ thread (as autograd's
# backward thread calls DDP's hook), median of the 4 KiB and 25 MiB rows of backend_call_cost.py on the
# lent H200 (resources/captures/h200_backend_call_cost_2026-12-03: 13.61, 13.34 us).
# Usage (repo root, GPU machine): OUT=/path BIN=folder-with-parascope-cli-and-libparascope_cupti.so \
#        scripts/gpu/standin_predict.sh          (BATCHES="8 32", STEPS=40, CALL_US=13.5, KEEP_TRACES=1)
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/out-standin-predict}
BIN=${BIN:-$ROOT/build/gpu/app/cli}
CALL_US=${CALL_US:-13.5}
BATCHES=${BATCHES:-8 32}
STEPS=${STEPS:-40}
mkdir -p "$OUT"
W=$(mktemp -d /tmp/parascope-predict.XXXXXX)
export PARASCOPE_CACHE_DIR=${PARASCOPE_CACHE_DIR:-$W/cache} PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
export MASTER_ADDR=127.0.0.1 MASTER_PORT=29541 RANK=0 WORLD_SIZE=1 LOCAL_RANK=0
S=$W/standin_predict.txt
say() { echo "$*" | tee -a "$S"; }
KEEP_TRACES=${KEEP_TRACES:-1}
finish() { cp "$S" "$OUT/"; tar -C "$W" --exclude=cache $([ "$KEEP_TRACES" = 1 ] || echo "--exclude=rec_*") -czf "$OUT/standin_predict.tar.gz" .; }
trap finish EXIT
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "commit ${PARASCOPE_COMMIT:-unknown}"
  python3 -c "import torch; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version())"; echo "comm_call_us $CALL_US"; } >> "$S" 2>&1
for b in $BATCHES; do
  rec=$W/rec_b$b
  timeout 400 "$BIN/parascope-cli" record --lib "$BIN/libparascope_cupti.so" -o "$rec" -- \
    python3 scripts/gpu/standin_overhead_inproc.py --impl compiled --nvtx --batch "$b" --steps "$STEPS" --out "$W/inproc_b$b.json" \
    > "$W/record_b$b.log" 2>&1
  say "record batch $b: exit $? $(grep -h '^\[' "$W/record_b$b.log" | tail -n 1)"
  for mode in replay predicted; do
    set_args=(--set comm_call_us=-1)
    [ "$mode" = predicted ] && set_args=(--set "comm_call_us=$CALL_US")
    timeout 300 "$BIN/parascope-cli" whatif "$rec" --topology h200x2 --step '^(real|standin) [0-9]+$' "${set_args[@]}" -q --json \
      > "$W/whatif_${mode}_b$b.json" 2> "$W/whatif_${mode}_b$b.err"
    say "whatif $mode batch $b: exit $? $(tail -n 2 "$W/whatif_${mode}_b$b.err" | tr '\n' ' ')"
  done
  python3 scripts/gpu/standin_predict_score.py --replay "$W/whatif_replay_b$b.json" --predicted "$W/whatif_predicted_b$b.json" \
    --label "batch $b" 2>&1 | tee -a "$S"
done
