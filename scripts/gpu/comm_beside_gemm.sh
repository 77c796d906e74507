#!/usr/bin/env bash
# NCCL all-reduce slow-down beside a GEMM, per channel count (2 x H200, ~2 min). Writes
# "$OUT"/comm_beside_gemm.jsonl (one row per channel count and size) and the log.
set -u
OUT=${OUT:?OUT}
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
for ch in 2 4 8 16 default; do
  if [ "$ch" = default ]; then unset NCCL_MAX_NCHANNELS; else export NCCL_MAX_NCHANNELS=$ch; fi
  torchrun --nproc_per_node=2 scripts/gpu/comm_beside_gemm.py "$OUT" 2>&1 | grep -v "^W\|OMP_NUM" | tee -a "$OUT/comm_beside_gemm.log"
done
