#!/usr/bin/env bash
# Issue 21 on the lent 1 x H200, what onegpu_batch.sh leaves out (~3 min, no build):
#   1. the stand-in's CPU checks that need torch 2.x (functional collectives, FSDP2) under this
#      machine's torch (CI's Debian torch 1.13 skips them);
#   2. record --world N (rank 0, collector on) of onegpu_fsdp.py (an FSDP2 step of 8 MLP blocks and a
#      functional-collectives exchange) at N = 2 and 8, then whatif of each on h200x2 / hgx_h200x8;
#   3. the overhead at N = 1: the small-GPT DDP step, real NCCL process group vs the stand-in, no
#      collector, PAIRS pairs (default 6) in alternating order, each process pinned to the same cores;
#      the program's own median step times.
# Usage (repo root, GPU machine): PARASCOPE_COMMIT=$(git rev-parse HEAD) OUT=/path \
#   scripts/gpu/onegpu_extras.sh BIN_DIR   (BIN_DIR: a prebuilt parascope-cli beside libparascope_cupti.so)
# Back (in $OUT/extras.tar.gz): logs/*.log and .rc, the programs' JSON, the whatif JSON and text,
# onegpu_predictions.py's overhead.json (the pairs and their ratios), predictions.json and
# summary.txt, rec/ (the recordings).
set -uo pipefail
BIN=$(cd "${1:?usage: onegpu_extras.sh BIN_DIR}" && pwd)
CLI=$BIN/parascope-cli
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/out-extras}
mkdir -p "$OUT"
W=$(mktemp -d /tmp/parascope-extras.XXXXXX)
LOGS=$W/logs REC=$W/rec
mkdir -p "$LOGS" "$REC"
PAIRS=${PAIRS:-6}
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 CUDA_VISIBLE_DEVICES=0
export PARASCOPE_PYTHON_DIR=$ROOT/trace/collector/python PARASCOPE_RESOURCES=$ROOT/resources
START=$(date +%s)
DEADLINE=$(( START + ${DEADLINE_S:-260} ))
BATCH_LOG=$LOGS/extras.log
# shellcheck source=batch_steps.sh
. "$ROOT/scripts/gpu/batch_steps.sh"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nproc
  echo "commit ${PARASCOPE_COMMIT:-unknown}"
  python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'nccl', torch.cuda.nccl.version())"
} > "$LOGS/env.txt" 2>&1

# 1. CPU checks under torch 2.x
for c in funcol fsdp ddp tp a2a; do run "cpu_check_$c" 90 python3 tests/collector/standin/check_standin.py $c; done

# 2. FSDP2 + functional collectives, recorded as rank 0 of N, predicted
CORES=0-7
for n in 2 8; do
  run "record_fsdp_n$n" 120 taskset -c $CORES "$CLI" record --world "$n" --rank 0 -q -o "$REC/fsdp_n$n" -- \
    python3 scripts/gpu/onegpu_fsdp.py --out "$LOGS/fsdp_n$n.json"
  topo=$([ "$n" -gt 2 ] && echo hgx_h200x8 || echo h200x2)
  run "whatif_fsdp_n$n" 120 "$CLI" whatif "$REC/fsdp_n$n" --topology "$topo" --step '^step ' -q
  run "whatif_fsdp_n${n}_json" 120 "$CLI" whatif "$REC/fsdp_n$n" --topology "$topo" --step '^step ' --json -q
  run "stats_fsdp_n$n" 60 "$CLI" stats "$REC/fsdp_n$n" --json -q
done

# 3. overhead pairs at N = 1 (no collector): real NCCL vs stand-in, alternating order
GPT=(scripts/gpu/onegpu_gpt.py --steps 20 --warmup 4)
real() { run "overhead_real_$1" 90 env RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 LOCAL_WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 \
  MASTER_PORT=$((29700 + $1)) taskset -c $CORES python3 "${GPT[@]}" --out "$LOGS/overhead_real_$1.json"; }
standin() { run "overhead_standin_$1" 90 env RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 LOCAL_WORLD_SIZE=1 GROUP_RANK=0 \
  MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 PYTHONPATH="$PARASCOPE_PYTHON_DIR" PARASCOPE_WORLD_SIZE=1 PARASCOPE_WORLD_RANK=0 \
  PARASCOPE_WORLD_LOG="$W/standin-$1.jsonl" taskset -c $CORES python3 "${GPT[@]}" --out "$LOGS/overhead_standin_$1.json"; }
for i in $(seq 1 "$PAIRS"); do
  if [ $((i % 2)) = 1 ]; then real "$i"; standin "$i"; else standin "$i"; real "$i"; fi
done
# the pairs' ratios (overhead.json), the FSDP2 predictions (predictions.json) and summary.txt, as
# onegpu_batch.sh makes them (after the deadline too: a few seconds on the CPU)
timeout 120 python3 scripts/gpu/onegpu_predictions.py --cli "$CLI" --rec "$REC" --logs "$LOGS" \
  --commit "${PARASCOPE_COMMIT:-unknown}" --out "$LOGS" --jobs 8 > "$LOGS/predictions.log" 2>&1
say "predictions: exit $?"
cat "$LOGS/summary.txt" 2> /dev/null
tar -C "$W" -czf "$OUT/extras.tar.gz" logs rec
say "done: $(ls -la "$OUT/extras.tar.gz")"
