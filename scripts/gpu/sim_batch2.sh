#!/usr/bin/env bash
# Batch 2 of the simulator's accuracy table (issue #4, docs/accuracy.md): the 2026-11-30 harness
# files measured every collective at 4 KiB x 4^k only, and the calibration fits NCCL's profile on
# half of those sizes. This measures the sizes in between (x2 steps: 32 KiB ... 512 MiB), in the same
# harness. Not a blind protocol: it writes no model commit into its files, and its rows were scored
# while the model changed (its NCCL bf16 rows are fit rows since; its kernel rows are a validation
# set, docs/accuracy.md). It also logs NCCL's own channel / protocol choice per size (NCCL_DEBUG_SUBSYS=TUNING) to explain the profile's bumps.
# Builds parascope-bench (cmake --preset gpu) and leaves under "$OUT" (defaults to ./out):
#   summary.txt           steps, exit codes, the tables
#   sim_batch2.tar.gz    results/: nccl_mid.json, collectives_mid.json (rows as kernels/*.json),
#                         *.txt tables, logs/ (build, every step, NCCL's tuning log), env.txt
# Expected: ~2 minutes on 2 x H200 (build ~15 s, NCCL ~10 s, direct kernels ~30 s); hard deadline 7 min.
# NVLink multicast stays off; nothing here creates multicast objects.
set -u
START=$(date +%s)
DEADLINE=${BATCH2_DEADLINE_S:-420}
source "$(dirname "$0")/steps.sh"

{ date -u; nvidia-smi; nvidia-smi topo -m; nvcc --version; } > "$RES/env.txt" 2>&1
build_bench "$OUT/sim_batch2.tar.gz"
MID=32KiB,128KiB,512KiB,2MiB,8MiB,32MiB,128MiB,512MiB
CAL=resources/calibration/h200x2_p2p.json
# NCCL at the in-between sizes, all four ops, with its tuning decisions in the log.
NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING run_step nccl_mid 90 20 "$BIN" nccl --sizes "$MID" \
  --json "$RES/nccl_mid.json" --table "$RES/nccl_mid.txt"
# The project's direct kernels (every default variant) at the same sizes.
run_step collectives_mid 200 30 "$BIN" collectives --ops all_reduce,all_gather,reduce_scatter,all_to_all \
  --p2p "$CAL" --sizes "$MID" --json "$RES/collectives_mid.json" --table "$RES/collectives_mid.txt"
{
  echo; echo "==== step exit codes ===="
  for k in "${!RC[@]}"; do echo "$k=${RC[$k]}"; done | sort
  for t in nccl_mid collectives_mid; do [[ -s $RES/$t.txt ]] && { echo; cat "$RES/$t.txt"; }; done
  echo; echo "==== NCCL tuning lines ===="; grep -hiE "algo|proto|channel" "$LOGS/nccl_mid.log" | head -80
} >> "$SUMMARY"
tar -czf "$OUT/sim_batch2.tar.gz" -C "$OUT" results
rm -rf "$RES"
note "total $(( $(date +%s) - START ))s; files in $OUT: $(ls "$OUT" | tr '\n' ' ')"
tail -60 "$SUMMARY"
