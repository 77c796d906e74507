#!/usr/bin/env bash
# Checks that parascope-bench's probe traces, now written through the official PstraceWriter,
# open in parascope-cli on the GPU machine: builds parascope-bench and parascope-cli (gpu preset),
# runs one small probed fused row and one probed all-reduce, then `parascope-cli info` on both
# files. Leaves under "$OUT" (5 files): probe_files.txt (the step log, the bench's probe lines and
# both `info` outputs), fused_probe.pstrace, collectives_probe.pstrace, build.log, env.txt.
# Expected: both files open (exit 0); info shows "parascope-bench  pid N  host H", both GPUs named
# "NVIDIA H200 (132 SMs)" with a PCI bus id, and "SM lanes" lines whose span counts equal the
# bench's "probe: B buffers, R records" line (R split over the two GPUs). Under 8 minutes on 2 × H200.
# Usage: scripts/gpu/probe_files.sh            (OUT defaults to ./out)
set -u
START=$(date +%s)
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
LOG="$OUT/probe_files.txt"
: > "$LOG"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
note() { echo "[$(( $(date +%s) - START ))s] $*" | tee -a "$LOG"; }
{ date -u; hostname; nvidia-smi; nvidia-smi topo -m; } > "$OUT/env.txt" 2>&1

note "configure + build (gpu preset: parascope-bench, parascope-cli)"
{ cmake --preset gpu && cmake --build build/gpu --target parascope-bench parascope-cli -j "$(nproc)"; } > "$OUT/build.log" 2>&1
BENCH=build/gpu/kernels/parascope-bench
CLI=build/gpu/app/cli/parascope-cli
if [[ ! -x $BENCH || ! -x $CLI ]]; then note "BUILD FAILED"; tail -40 "$OUT/build.log" >> "$LOG"; exit 1; fi

note "fused: one shape, one SM count, probed (timeout 180 s)"
timeout --kill-after=10 180 "$BENCH" fused --kinds ag_gemm,gemm_rs --shapes 8192x8192x8192 --comm-sms 8 --chunks 4 \
  --variants fused_tma,fused_ldst --reps 3 --probe "$OUT/fused_probe.pstrace" >> "$LOG" 2>&1
note "fused rc=$?"
note "collectives: one all-reduce size, probed (timeout 120 s)"
timeout --kill-after=10 120 "$BENCH" collectives --ops all_reduce --sizes 64MiB --dtypes bf16 --variants twoshot_ldst \
  --probe "$OUT/collectives_probe.pstrace" --probe-ops all_reduce:twoshot_ldst:bf16:64MiB >> "$LOG" 2>&1
note "collectives rc=$?"
for f in fused_probe collectives_probe; do
  note "parascope-cli info $f.pstrace"
  "$CLI" info -q "$OUT/$f.pstrace" >> "$LOG" 2>&1
  note "info rc=$?"
done
note "done"
