#!/usr/bin/env bash
# The newcomer's first screen, captured on 2 GPUs (2 x H200, NVSwitch) in one call of < 6 min: one
# `parascope-cli record` session (one process, both GPUs, one CUPTI clock) around parascope-bench's
# fused all-gather + GEMM, with
#   - per-SM lanes of the fused kernel: the bench's probe buffers, handed to the collector
#     (kernels/device/probe_session.cu), moved onto the CUPTI clock by its measured offsets;
#   - measured NVLink counters: CUPTI PM sampling (nvlrx/nvltx bytes) every 1 ms;
#   - NCCL kernels with their collective annotations and sizes: the bench's NCCL all-gather rows
#     (nccl_comm, seq_nccl), through the collector's NCCL profiler plugin.
# The record directory is the sample: it must stay <= 2 MB (checked; the step log says its size).
# Then `parascope-cli info` and `stats` (kernels by name), so scripts/run's first view (--find the
# fused kernel, --expand-sm, --show overlap) can be chosen from them.
# Usage (repo root, on the GPU machine): OUT=/path scripts/gpu/first_view_capture.sh
# Writes $OUT (4 files): first_view_2xh200.tar.gz (the record directory: manifest.json + one
# .pstrace), summary.txt (printed last: sizes, info, stats), build.log, env.txt.
# Expected: info shows both GPUs with "SM lanes N, M spans" beside kernels, "NVLink rx/tx ...
# measured" counter lines and collectives > 0; the directory 0.3-2 MB.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/out-first-view}
mkdir -p "$OUT"
W=$(mktemp -d /tmp/parascope-first-view.XXXXXX)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
START=$(date +%s)
SUM=$OUT/summary.txt
: > "$SUM"
say() { echo "[$(( $(date +%s) - START )) s] $*" | tee -a "$SUM"; }
trap 'say "done; $OUT: $(ls "$OUT" | tr "\n" " ")"; cat "$SUM"' EXIT
{ date -u; hostname; nvidia-smi; nvidia-smi topo -m; nvcc --version | tail -2; git log -1 --oneline
  grep -i RmProfilingAdminOnly /proc/driver/nvidia/params 2>/dev/null; } > "$OUT/env.txt" 2>&1
[ "$(nvidia-smi -L 2>/dev/null | wc -l)" -ge 2 ] || { say "needs 2 GPUs: nvidia-smi -L lists $(nvidia-smi -L 2>/dev/null | wc -l)"; exit 1; }

say "configure + build (gpu preset: parascope-bench, parascope-cli, the collector)"
{ cmake --preset gpu && cmake --build build/gpu -j "$(nproc)" --target parascope-bench parascope-cli parascope_cupti; } \
  > "$OUT/build.log" 2>&1
BENCH=$ROOT/build/gpu/kernels/parascope-bench
CLI=$ROOT/build/gpu/app/cli/parascope-cli
[ -x "$BENCH" ] && [ -x "$CLI" ] || { say "BUILD FAILED"; tail -30 "$OUT/build.log" >> "$SUM"; exit 1; }

REC=$W/first_view_2xh200
say "record: fused all-gather + GEMM (fused_tma, 8 communication SMs), NCCL all-gather alone and beside cuBLAS"
timeout --kill-after=10 240 "$CLI" record --nvlink-sample-us 1000 -o "$REC" -- \
  "$BENCH" fused --kinds ag_gemm --shapes 8192x8192x2048 --comm-sms 8 --chunks 4 --variants fused_tma,nccl_comm,seq_nccl \
  --reps 3 --probe "$W/bench_probe.pstrace" --probe-variants ag_gemm:fused_tma:8 > "$W/record.log" 2>&1
say "record: exit $?"
grep -E 'probe|pstrace: rank|device [0-9]|nccl:|counter|warning' "$W/record.log" | head -30 | tee -a "$SUM"
bytes=$(du -sb "$REC" | cut -f1)
say "record directory: $bytes bytes ($( [ "$bytes" -le 2097152 ] && echo "within" || echo "OVER") the 2 MB budget)"

say "parascope-cli info"
"$CLI" info "$REC" 2>&1 | head -60 | tee -a "$SUM"
say "parascope-cli stats (kernels by name: scripts/run's --find; collectives, links)"
"$CLI" stats "$REC" 2>&1 | head -80 | tee -a "$SUM"
tar -C "$W" -czf "$OUT/first_view_2xh200.tar.gz" first_view_2xh200
