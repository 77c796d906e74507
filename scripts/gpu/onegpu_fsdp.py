#!/usr/bin/env python3
"""An FSDP2 training step (torch.distributed.fsdp.fully_shard, bf16 compute, fp32 reduce) of a stack
of MLP blocks, followed by a tensor-parallel exchange written with the functional collectives
(torch.distributed._functional_collectives: all_gather_tensor, reduce_scatter_tensor, all_reduce,
all_to_all_single with split sizes, each waited through wait_tensor). The program kinds of issue 21
item 1 that the GPT (DDP) and TP-MLP programs do not cover. Each step is an NVTX range "step <i>".
usage: onegpu_fsdp.py [--layers L] [--d D] [--tokens T] [--steps S] [--warmup W] [--out JSON]"""
import argparse
import json
import os
import statistics
import time

import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as funcol
import torch.nn.functional as F
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard


class Block(torch.nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc1 = torch.nn.Linear(d, 4 * d)
        self.fc2 = torch.nn.Linear(4 * d, d)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(x)))


def funcol_exchange(x, group):
    """Sequence-parallel gather, reduce-scatter back, an all-reduce of a norm and an uneven all-to-all."""
    n = dist.get_world_size(group)
    full = funcol.wait_tensor(funcol.all_gather_tensor(x, 0, group))
    part = funcol.wait_tensor(funcol.reduce_scatter_tensor(full, "sum", 0, group))
    norm = funcol.wait_tensor(funcol.all_reduce(part.float().square().sum().reshape(1), "sum", group))
    rows = x.shape[0]
    split_in = [rows // n] * n
    split_in[0] += rows - sum(split_in)
    moved = funcol.wait_tensor(funcol.all_to_all_single(part, split_in, split_in, group))
    return moved, norm


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--d", type=int, default=2048)
    ap.add_argument("--tokens", type=int, default=8192)
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--out", default="")
    a = ap.parse_args()
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
    dist.init_process_group("nccl")
    n = dist.get_world_size()
    group = dist.group.WORLD
    torch.manual_seed(11)
    model = torch.nn.Sequential(*[Block(a.d) for _ in range(a.layers)]).cuda()
    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    for blk in model:
        fully_shard(blk, mp_policy=mp)
    fully_shard(model, mp_policy=mp)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = torch.randn(a.tokens // n, a.d, device="cuda")
    times = []
    for i in range(a.warmup + a.steps):
        torch.cuda.synchronize()
        t = time.perf_counter()
        if i >= a.warmup:
            torch.cuda.nvtx.range_push("step %d" % (i - a.warmup))
        y = model(x)
        y.float().square().mean().backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        moved, norm = funcol_exchange(y.detach().to(torch.bfloat16), group)
        torch.cuda.synchronize()
        if i >= a.warmup:
            torch.cuda.nvtx.range_pop()
            times.append((time.perf_counter() - t) * 1e3)
    params = sum((p.to_local() if hasattr(p, "to_local") else p).numel() for p in model.parameters())  # this rank's shard
    res = {"world_size": n, "rank": dist.get_rank(), "layers": a.layers, "d": a.d, "tokens": a.tokens,
           "sharded_params": params, "step_ms": times, "median_ms": statistics.median(times)}
    print(json.dumps(res))
    if a.out:
        with open(a.out, "w") as f:
            json.dump(res, f)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
