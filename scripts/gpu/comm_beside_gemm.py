"""NCCL all-reduce alone and beside bf16 GEMMs on another stream, per NCCL channel count.

Run under torchrun --nproc_per_node=2 with NCCL_MAX_NCHANNELS set (or unset: NCCL's default).
The all-reduce is launched first (it gets its SMs), then 3 GEMMs 8192^3 on a second stream, so the
all-reduce runs entirely beside a GEMM. CUDA events on each stream, medians of REPS repetitions.
Prints one JSON line per size (rank 0) and appends it to OUT/comm_beside_gemm.jsonl.
"""
import json
import os
import statistics
import sys

import torch
import torch.distributed as dist

MiB = 1 << 20
REPS = 15


def med(x):
    return statistics.median(x)


def main():
    out = sys.argv[1]
    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    dev = torch.device("cuda", local)
    dist.init_process_group("nccl", device_id=dev)
    rank = dist.get_rank()
    g = torch.Generator(device=dev)
    g.manual_seed(7000 + rank)
    a = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16, generator=g)
    b = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16, generator=g)
    side, comp = torch.cuda.Stream(), torch.cuda.Stream()
    ev = lambda: torch.cuda.Event(enable_timing=True)
    for nbytes in (16 * MiB, 64 * MiB):
        buf = torch.randn(nbytes // 2, device=dev, dtype=torch.bfloat16, generator=g)
        for _ in range(3):
            dist.all_reduce(buf)
            torch.matmul(a, b)
        torch.cuda.synchronize()
        ar_alone, gemm_alone, ar_beside, gemm3_beside, gemm3_alone = [], [], [], [], []
        for _ in range(REPS):
            dist.barrier()
            torch.cuda.synchronize()
            e0, e1 = ev(), ev()
            with torch.cuda.stream(side):
                e0.record(side)
                dist.all_reduce(buf)
                e1.record(side)
            torch.cuda.synchronize()
            ar_alone.append(e0.elapsed_time(e1) * 1e3)
            g0, g1 = ev(), ev()
            with torch.cuda.stream(comp):
                g0.record(comp)
                for _ in range(3):
                    torch.matmul(a, b)
                g1.record(comp)
            torch.cuda.synchronize()
            gemm3_alone.append(g0.elapsed_time(g1) * 1e3)
            dist.barrier()
            torch.cuda.synchronize()
            e0, e1, g0, g1 = ev(), ev(), ev(), ev()
            with torch.cuda.stream(side):
                e0.record(side)
                dist.all_reduce(buf)
                e1.record(side)
            with torch.cuda.stream(comp):
                g0.record(comp)
                for _ in range(3):
                    torch.matmul(a, b)
                g1.record(comp)
            torch.cuda.synchronize()
            ar_beside.append(e0.elapsed_time(e1) * 1e3)
            gemm3_beside.append(g0.elapsed_time(g1) * 1e3)
        row = {"nccl_max_nchannels": os.environ.get("NCCL_MAX_NCHANNELS", "default"), "allreduce_bytes": nbytes,
               "allreduce_alone_us": med(ar_alone), "allreduce_beside_gemm_us": med(ar_beside),
               "gemm_x3_alone_us": med(gemm3_alone), "gemm_x3_beside_allreduce_us": med(gemm3_beside),
               "allreduce_beside_all_us": sorted(ar_beside)}
        row["allreduce_slowdown"] = row["allreduce_beside_gemm_us"] / row["allreduce_alone_us"]
        if rank == 0:
            print(json.dumps(row), flush=True)
            with open(os.path.join(out, "comm_beside_gemm.jsonl"), "a") as f:
                f.write(json.dumps(row) + "\n")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
