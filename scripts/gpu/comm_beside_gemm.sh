#!/usr/bin/env bash
# NCCL all-reduce slow-down beside GEMMs, 4 channels and NCCL's default (2 x H200, ~30 s of device
# time). Prints one JSON row per (channels, GEMM); docs/accuracy.md (What-if, Interference) has them.
set -u
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
for ch in 4 default; do
  if [ "$ch" = default ]; then unset NCCL_MAX_NCHANNELS; else export NCCL_MAX_NCHANNELS=$ch; fi
  torchrun --nproc_per_node=2 scripts/gpu/comm_beside_gemm.py 2>&1 | grep '^{'
done
