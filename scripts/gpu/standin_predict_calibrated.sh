#!/usr/bin/env bash
# Issue 21 item 3, second model: the backend's host cost per call *inside a training step*, calibrated
# on another program, then the GPT scored with it — in one machine start, the procedure fixed before
# it runs (committed), so the scored runs are held out from the calibration:
#   1. backend_step_cost.py: DDP over Linear + GELU layers (not the GPT), real NCCL vs the compiled
#      stand-in paired in one process, untraced and under record, 2 processes each;
#   2. CALL_US = its traced per-call median (the scored steps are measured in a trace, so the cost a
#      traced run pays), and standin_predict.sh with it on the GPT at BATCHES (new processes).
# The untraced median is what an untraced N-GPU run pays (the topology's host.collective_call_ns).
# Usage (repo root, GPU machine): OUT=/path BIN=folder-with-parascope-cli-and-libparascope_cupti.so \
#        scripts/gpu/standin_predict_calibrated.sh     (BATCHES="8 4 16", STEPS=40)
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/out-standin-calibrated}
BIN=${BIN:-$ROOT/build/gpu/app/cli}
mkdir -p "$OUT/cal"
export PARASCOPE_CACHE_DIR=${PARASCOPE_CACHE_DIR:-$(mktemp -d /tmp/parascope-cal.XXXXXX)} PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
export MASTER_ADDR=127.0.0.1 MASTER_PORT=29547 RANK=0 WORLD_SIZE=1 LOCAL_RANK=0
timeout 300 python3 scripts/gpu/backend_step_cost.py --cli "$BIN/parascope-cli" --lib "$BIN/libparascope_cupti.so" --repeats 2 \
  --work "$OUT/cal" --out "$OUT/cal/backend_step_cost.json" 2>&1 | tee "$OUT/cal/backend_step_cost.txt"
rm -rf "$OUT"/cal/rec_*
CALL_US=$(python3 -c "import json; print('%.1f' % json.load(open('$OUT/cal/backend_step_cost.json'))['traced_us_per_call_median'])") || exit 1
echo "frozen rule -> comm_call_us $CALL_US (traced median)"
tar -C "$OUT" -czf "$OUT/calibration.tar.gz" cal && rm -rf "$OUT/cal"
CALL_US=$CALL_US KEEP_TRACES=0 BATCHES=${BATCHES:-8 4 16} STEPS=${STEPS:-40} OUT=$OUT BIN=$BIN scripts/gpu/standin_predict.sh
