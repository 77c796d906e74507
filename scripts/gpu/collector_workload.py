"""An ordinary 2-process PyTorch NCCL program for the collector's measurements (issue #6): a matmul +
all-reduce loop with NVTX ranges and a few peer copies. It knows nothing about Parascope.

  torchrun --standalone --nproc-per-node 2 collector_workload.py --out DIR [--iters N] [--profile]

Warm-up iterations, then a barrier, then the measured loop bracketed by torch.cuda.synchronize(),
an NVTX range "measure" and CLOCK_REALTIME timestamps (the CUPTI clock) written to
DIR/window_rank<r>.json, so a trace and the PyTorch profiler can be compared over exactly the same
GPU work. --profile wraps only the measured loop in torch.profiler and writes
DIR/kineto_rank<r>.json.
"""
import argparse
import json
import os
import time

import torch
import torch.distributed as dist


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--iters", type=int, default=50)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--profile", action="store_true")
    args = p.parse_args()
    rank, local, world = int(os.environ["RANK"]), int(os.environ["LOCAL_RANK"]), int(os.environ["WORLD_SIZE"])
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    other = (local + 1) % torch.cuda.device_count()

    a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    grad = torch.randn(16 * 1024 * 1024, device="cuda", dtype=torch.bfloat16)  # 32 MiB all-reduce
    shard = torch.randn(8 * 1024 * 1024, device="cuda", dtype=torch.bfloat16)  # 16 MiB peer copy

    def step(i):
        torch.cuda.nvtx.range_push(f"iter {i}")
        torch.cuda.nvtx.range_push("matmul")
        c = a @ b
        d = c @ b
        torch.cuda.nvtx.range_pop()
        torch.cuda.nvtx.range_push("all_reduce")
        dist.all_reduce(grad)
        torch.cuda.nvtx.range_pop()
        if i % 10 == 0 and other != local:
            torch.cuda.nvtx.range_push("peer copy")
            shard.to(f"cuda:{other}")  # device-to-device copy across GPUs: a peer (PtoP) memcpy
            torch.cuda.nvtx.range_pop()
        torch.cuda.nvtx.range_pop()
        return d

    for i in range(args.warmup):
        step(i)
    torch.cuda.synchronize()
    dist.barrier()
    torch.cuda.synchronize()
    time.sleep(0.2)

    prof = None
    if args.profile:
        prof = torch.profiler.profile(
            activities=[torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA])
        prof.__enter__()
    t0 = time.time_ns()
    torch.cuda.nvtx.range_push("measure")
    for i in range(args.iters):
        step(i)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
    t1 = time.time_ns()
    if prof is not None:
        prof.__exit__(None, None, None)
        prof.export_chrome_trace(os.path.join(args.out, f"kineto_rank{rank}.json"))
    with open(os.path.join(args.out, f"window_rank{rank}.json"), "w") as f:
        json.dump({"rank": rank, "local_rank": local, "pid": os.getpid(), "t0_ns": t0, "t1_ns": t1,
                   "iters": args.iters, "loop_s": (t1 - t0) / 1e9}, f)
    print(f"rank {rank}: {args.iters} iterations in {(t1 - t0) / 1e6:.1f} ms", flush=True)
    time.sleep(0.2)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
