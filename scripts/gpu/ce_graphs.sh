#!/usr/bin/env bash
# Copy-engine variants timed inside CUDA graphs (cudaMemcpyAsync instead of cudaMemcpyPeerAsync,
# which stream capture refuses): selftest --quick, then every collective's copy-engine variants
# beside the LD/ST ones and NCCL's baselines at 64 MiB..1 GiB, and the fused all-gather + GEMM copy-
# engine variants beside GEMM alone. 2 x H200, ~2 minutes with the build. Results under $OUT.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
cmake --preset gpu > "$OUT/configure.log" 2>&1
cmake --build build/gpu --target parascope-bench -j "$(nproc)" > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
B=build/gpu/kernels/parascope-bench
timeout 120 $B selftest --quick > "$OUT/selftest.log" 2>&1
grep -E '^selftest:|^FAIL|us per op' "$OUT/selftest.log" | tail -12
timeout 200 $B collectives --ops all_reduce,all_gather,reduce_scatter \
  --variants ce,ce_push,ce_ldst,twoshot_ldst,pull,ldst,nccl,nccl_dev --sizes 64MiB,256MiB,1GiB \
  --p2p resources/calibration/h200x2_p2p.json --json "$OUT/ce_graphs.json" --table "$OUT/ce_graphs.txt" > "$OUT/ce.log" 2>&1
grep -E '^  (MET|MISS|n/a)' "$OUT/ce_graphs.txt" | cut -c1-200
timeout 150 $B fused --kinds ag_gemm --variants gemm_only,comm_ce,fused_ce --chunks 1,4 \
  --json "$OUT/fused_ce.json" --table "$OUT/fused_ce.txt" > "$OUT/fused.log" 2>&1
grep -E 'ce|gemm_only|MET|MISS' "$OUT/fused_ce.txt" | cut -c1-160
python3 - "$OUT" <<'PY'
import json, sys
for f in ("ce_graphs", "fused_ce"):
    try:
        d = json.load(open(f"{sys.argv[1]}/{f}.json"))
    except Exception as e:
        print(f, "missing:", e); continue
    for r in d["rows"]:
        if "ce" in r["variant"]:
            print(f, r["op"], r["variant"], r["dtype"], r["bytes"] >> 20, "MiB", r["timing"], r["ops_per_graph"],
                  round(r["busbw_GBps"]), "GB/s", round(r["median_ns"] / 1e3, 1), "us", "ok" if r["ok"] else r.get("problem"))
PY
