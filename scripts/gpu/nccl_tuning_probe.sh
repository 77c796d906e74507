#!/usr/bin/env bash
# NCCL's own protocol / channel choice per call around the LL -> Simple switch (docs/accuracy.md,
# "NCCL's protocol split": the preset's ll_max_bytes 1.715 MB is derived from NCCL's printed tuning
# table). Runs parascope-bench nccl at the switch sizes with NCCL_DEBUG_SUBSYS=TUNING and keeps the
# per-call choices. Leaves "$OUT"/summary.txt and nccl_tuning_probe.tar.gz (results/). ~1 minute.
set -u
START=$(date +%s)
DEADLINE=${PROBE_DEADLINE_S:-300}
source "$(dirname "$0")/steps.sh"
{ date -u; nvidia-smi; nvcc --version; } > "$RES/env.txt" 2>&1
build_bench "$OUT/nccl_tuning_probe.tar.gz"
SIZES=1MiB,1280KiB,1536KiB,1664KiB,1792KiB,2MiB,3MiB,4MiB,6MiB
NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING run_step nccl_switch 120 20 "$BIN" nccl --sizes "$SIZES" \
  --json "$RES/nccl_switch.json" --table "$RES/nccl_switch.txt"
grep -hE "Bytes -> Algo" "$LOGS/nccl_switch.log" | sed -E 's/.*(AllReduce|AllGather|ReduceScatter|Broadcast|Reduce|SendRecv)/\1/' | sort -u > "$RES/nccl_switch_choices.txt"
{ echo "==== per-call choices ===="; cat "$RES/nccl_switch_choices.txt"
  echo "==== tuning lines ===="; grep -hiE "algo|proto" "$LOGS/nccl_switch.log" | head -60
  echo; cat "$RES/nccl_switch.txt" 2>/dev/null; } >> "$SUMMARY"
tar -czf "$OUT/nccl_tuning_probe.tar.gz" -C "$OUT" results
