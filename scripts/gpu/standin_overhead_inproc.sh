#!/usr/bin/env bash
# Issue 21 item 3 on the lent 1 x H200: standin_overhead_inproc.py (real NCCL and stand-in DDP in one
# process, alternating step by step) for the small GPT as onegpu_extras.sh runs it (batch 8: a
# host-bound step) and at batch 32 (device-bound), REPEATS processes each, pinned to CORES, for each
# stand-in implementation in IMPLS (default "compiled python": parascope_world/compiled.py; ~1 min each).
# Usage (repo root, GPU machine): OUT=/path scripts/gpu/standin_overhead_inproc.sh
# Back: $OUT/overhead_inproc.tar.gz (each process's JSON and log) and $OUT/overhead_inproc.txt.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/out-overhead}
mkdir -p "$OUT"
W=$(mktemp -d /tmp/parascope-inproc.XXXXXX)
CORES=${CORES:-0-7}
REPEATS=${REPEATS:-2}
IMPLS=${IMPLS:-compiled python}
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; echo "commit ${PARASCOPE_COMMIT:-unknown} cores $CORES"
  python3 -c "import torch; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version())"; } > "$W/env.txt" 2>&1
port=29800
for batch in 8 32; do
  steps=$([ "$batch" = 8 ] && echo 60 || echo 30)
  for r in $(seq 1 "$REPEATS"); do
    for impl in $IMPLS; do
      port=$((port + 1))
      name=b${batch}_${impl}_$r
      env RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port timeout 240 taskset -c "$CORES" \
        python3 scripts/gpu/standin_overhead_inproc.py --impl "$impl" --batch "$batch" --steps "$steps" --out "$W/$name.json" > "$W/$name.log" 2>&1
      echo "batch $batch, $impl, process $r: exit $? $(tail -n 1 "$W/$name.log")" | tee -a "$W/overhead_inproc.txt"
    done
  done
done
cp "$W/overhead_inproc.txt" "$OUT/"
tar -C "$W" -czf "$OUT/overhead_inproc.tar.gz" .
