#!/usr/bin/env bash
# NCCL with its protocol forced (NCCL_PROTO through `parascope-bench nccl --proto`), for the
# simulator's per-operation NCCL curves (docs/accuracy.md, "NCCL's protocol split"): NCCL's own choice
# runs all-gather and reduce-scatter on Simple only from 8 MiB of the fit grid, so Simple's curve
# below that had no rows; forced Simple at the fit grid's small sizes and forced LL at 2 and 8 MiB
# give each protocol's curve on both sides of NCCL's switch. Only fit-grid sizes (16^k, 2 x 4^k):
# no validation size is measured here. The per-call tuning log confirms the protocol NCCL ran.
# Leaves "$OUT"/summary.txt and nccl_proto_batch.tar.gz (results/). ~1-2 minutes.
set -u
START=$(date +%s)
DEADLINE=${PROTO_DEADLINE_S:-360}
source "$(dirname "$0")/steps.sh"
{ date -u; nvidia-smi; nvcc --version; } > "$RES/env.txt" 2>&1
build_bench "$OUT/nccl_proto_batch.tar.gz"
OPS=all_reduce,all_gather,reduce_scatter
NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING run_step nccl_simple 150 20 "$BIN" nccl --proto Simple --ops "$OPS" \
  --sizes 4KiB,32KiB,64KiB,128KiB,512KiB,1MiB,2MiB --json "$RES/nccl_simple.json" --table "$RES/nccl_simple.txt"
NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING run_step nccl_ll 120 20 "$BIN" nccl --proto LL --ops "$OPS" \
  --sizes 2MiB,8MiB --json "$RES/nccl_ll.json" --table "$RES/nccl_ll.txt"
for t in nccl_simple nccl_ll; do
  grep -hE "Bytes -> Algo" "$LOGS/$t.log" | sed -E 's/.*(AllReduce|AllGather|ReduceScatter)/\1/' | sort -u > "$RES/${t}_choices.txt"
done
{
  echo; echo "==== step exit codes ===="
  for k in "${!RC[@]}"; do echo "$k=${RC[$k]}"; done | sort
  for t in nccl_simple nccl_ll; do
    echo "==== $t: per-call choices ===="; cat "$RES/${t}_choices.txt"
    [[ -s $RES/$t.txt ]] && cat "$RES/$t.txt"
  done
} >> "$SUMMARY"
tar -czf "$OUT/nccl_proto_batch.tar.gz" -C "$OUT" results
