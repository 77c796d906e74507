#!/usr/bin/env python3
"""Writes a 2-rank Kineto trace of the interference experiment run *serially*, for a what-if.

resources/captures/h200x2_2026-11-30/interference.json measured, per all-reduce size, an 8192^3
bf16 GEMM alone, the all-reduce alone, and 4 GEMMs on one stream with the all-reduce on another at
the same time. This script lays the measured pieces out one after the other on one stream (the
all-reduce first, then the 4 GEMMs, then a device synchronize), each rank a Kineto JSON file with
launch calls, NCCL's launch shape (24 blocks) and a one-wave GEMM launch (132 blocks of 384
threads, 188 KiB shared memory, like the captured nvjet GEMMs). `parascope-cli whatif OUTDIR
--set comm_select=allreduce --set comm_stream=side` then predicts the concurrent run, to compare
with the measured `gemm_x4_plus_allreduce_concurrent_ns`.

    scripts/whatif/interference_trace.py resources/captures/h200x2_2026-11-30/interference.json 16777216 OUTDIR
"""
import json
import os
import sys


def rank_trace(rank, gemm_us, ar_us, ar_bytes):
    ev = []
    corr = [100]
    cpu = [10.0]
    gpu = [30.0]

    def launch(name, dur_us, args, kernel_name):
        c = corr[0]
        corr[0] += 1
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": name, "pid": 1000 + rank, "tid": 1000 + rank,
                   "ts": cpu[0], "dur": 4.0, "args": {"correlation": c, "cbid": 211}})
        a = {"device": rank, "stream": 7, "correlation": c}
        a.update(args)
        ev.append({"ph": "X", "cat": "kernel", "name": kernel_name, "pid": rank, "tid": 7, "ts": gpu[0], "dur": dur_us,
                   "args": a})
        cpu[0] += 6.0
        gpu[0] += dur_us + 2.0

    nccl = {"grid": [24, 1, 1], "block": [544, 1, 1], "registers per thread": 96, "shared memory": 103808,
            "Collective name": "allreduce", "In msg nelems": ar_bytes // 2, "Out msg nelems": ar_bytes // 2,
            "Group size": 2, "dtype": "BFloat16", "Process Group Name": "0", "Process Group Ranks": "[0, 1]"}
    gemm = {"grid": [2, 66, 1], "block": [384, 1, 1], "registers per thread": 168, "shared memory": 188636}
    start = cpu[0] - 5
    launch("cuLaunchKernelEx", ar_us, nccl, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)")
    for _ in range(4):
        launch("cuLaunchKernelEx", gemm_us, gemm, "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT")
    end = gpu[0] + 5
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 1000 + rank, "tid": 1000 + rank,
               "ts": cpu[0], "dur": end - cpu[0], "args": {"correlation": corr[0], "cbid": 165}})
    ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1000 + rank, "tid": 1000 + rank,
               "ts": start, "dur": end + 5 - start, "args": {}})
    return {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 2},
            "deviceProperties": [{"id": rank, "name": "NVIDIA H200", "numSms": 132, "totalGlobalMem": 150754820096,
                                  "computeMajor": 9, "computeMinor": 0}],
            "baseTimeNanoseconds": 1800000000000000000, "traceEvents": ev}


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    rows = json.load(open(sys.argv[1]))["rows"]
    size = int(sys.argv[2])
    row = next(r for r in rows if r["allreduce_bytes"] == size)
    os.makedirs(sys.argv[3], exist_ok=True)
    for rank in (0, 1):
        with open(os.path.join(sys.argv[3], f"rank{rank}.json"), "w") as f:
            json.dump(rank_trace(rank, row["gemm_alone_ns"] / 1e3, row["allreduce_alone_ns"] / 1e3, size), f)
    print(json.dumps({"serial_ns": row["serial_sum_ns"], "concurrent_ns": row["gemm_x4_plus_allreduce_concurrent_ns"]}))


if __name__ == "__main__":
    main()
