#!/usr/bin/env python3
"""A sequence- and tensor-parallel MLP block (Megatron style) over the whole world: each rank holds
tokens/N of the sequence; forward all-gathers the sequence (all_gather_into_tensor), runs the
column-parallel fc1 (d -> 4d/N) and row-parallel fc2 (4d/N -> d) in bf16 and reduce-scatters the
output (reduce_scatter_tensor); backward does the mirror (all-gather of the output gradient,
reduce-scatter of the input gradient). Each step is an NVTX range "step <i>".
usage: onegpu_tp_mlp.py [--tokens T] [--d D] [--steps S] [--warmup W] [--out JSON]"""
import argparse
import json
import os
import statistics
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F


def gather(x):
    out = torch.empty((x.shape[0] * dist.get_world_size(),) + tuple(x.shape[1:]), dtype=x.dtype, device=x.device)
    dist.all_gather_into_tensor(out, x.contiguous())
    return out


def scatter(x):
    out = torch.empty((x.shape[0] // dist.get_world_size(),) + tuple(x.shape[1:]), dtype=x.dtype, device=x.device)
    dist.reduce_scatter_tensor(out, x.contiguous())
    return out


class Gather(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return gather(x)

    @staticmethod
    def backward(ctx, g):
        return scatter(g)


class Scatter(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return scatter(x)

    @staticmethod
    def backward(ctx, g):
        return gather(g)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokens", type=int, default=16384)
    ap.add_argument("--d", type=int, default=4096)
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--out", default="")
    a = ap.parse_args()
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
    dist.init_process_group("nccl")
    n = dist.get_world_size()
    torch.manual_seed(7)
    w1 = torch.nn.Parameter(torch.randn(4 * a.d // n, a.d, device="cuda", dtype=torch.bfloat16) * 0.02)
    w2 = torch.nn.Parameter(torch.randn(a.d, 4 * a.d // n, device="cuda", dtype=torch.bfloat16) * 0.02)
    x = torch.randn(a.tokens // n, a.d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    times = []
    for i in range(a.warmup + a.steps):
        torch.cuda.synchronize()
        t = time.perf_counter()
        if i >= a.warmup:
            torch.cuda.nvtx.range_push("step %d" % (i - a.warmup))
        y = Scatter.apply(F.linear(F.gelu(F.linear(Gather.apply(x), w1)), w2))
        y.float().square().mean().backward()
        torch.cuda.synchronize()
        if i >= a.warmup:
            torch.cuda.nvtx.range_pop()
            times.append((time.perf_counter() - t) * 1e3)
    res = {"world_size": n, "rank": dist.get_rank(), "step_ms": times, "median_ms": statistics.median(times)}
    print(json.dumps(res))
    if a.out:
        with open(a.out, "w") as f:
            json.dump(res, f)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
