#!/usr/bin/env python3
"""A small GPT (default 6 layers, d 768, 12 heads, seq 512, batch 8, vocab 32768: 85 M parameters)
trained data-parallel with DDP, bf16 autocast, AdamW. Each step is an NVTX range "step <i>"
(`whatif --step '^step '`); the step time (host, device-synchronised) is printed as JSON. The same
file runs under torchrun / a real NCCL group and under `parascope-cli record --world N`.
usage: onegpu_gpt.py [--steps S] [--warmup W] [--layers L] [--d D] [--seq T] [--batch B] [--out JSON]
                     [--no-ddp] [--bucket-mb MB] [--phases] [--profile TRACE.json]
--no-ddp runs the bare model (no gradient all-reduce; the process group is still made), --phases
also times forward, backward and the optimizer apart (a device sync between them: use it to see
where time goes, not for the step time), --profile writes a torch.profiler trace (CPU + CUDA) of
the last 3 steps (Kineto JSON: `parascope-cli diff A B` compares two)."""
import argparse
import json
import os
import statistics
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F


class Block(torch.nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = torch.nn.LayerNorm(d)
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.proj = torch.nn.Linear(d, d)
        self.ln2 = torch.nn.LayerNorm(d)
        self.fc1 = torch.nn.Linear(d, 4 * d)
        self.fc2 = torch.nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(a)
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class GPT(torch.nn.Module):
    def __init__(self, vocab, d, heads, layers, seq):
        super().__init__()
        self.tok = torch.nn.Embedding(vocab, d)
        self.pos = torch.nn.Embedding(seq, d)
        self.blocks = torch.nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln = torch.nn.LayerNorm(d)
        self.head = torch.nn.Linear(d, vocab, bias=False)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--layers", type=int, default=6)
    ap.add_argument("--d", type=int, default=768)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--seq", type=int, default=512)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--vocab", type=int, default=32768)
    ap.add_argument("--out", default="")
    ap.add_argument("--no-ddp", action="store_true")
    ap.add_argument("--bucket-mb", type=float, default=25.0)
    ap.add_argument("--phases", action="store_true")
    ap.add_argument("--profile", default="")
    a = ap.parse_args()
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
    dist.init_process_group("nccl")
    torch.manual_seed(1234)
    model = GPT(a.vocab, a.d, a.heads, a.layers, a.seq).cuda()
    ddp = model if a.no_ddp else torch.nn.parallel.DistributedDataParallel(model, bucket_cap_mb=a.bucket_mb)
    opt = torch.optim.AdamW(ddp.parameters(), lr=1e-4, fused=True)
    idx = torch.randint(0, a.vocab, (a.batch, a.seq), device="cuda")
    times = []
    phases = {"forward": [], "backward": [], "optimizer": []}

    def mark(name, t0):  # the phase since t0, when --phases asks for it
        if not a.phases:
            return t0
        torch.cuda.synchronize()
        t1 = time.perf_counter()
        if i >= a.warmup:
            phases[name].append((t1 - t0) * 1e3)
        return t1

    prof = None
    for i in range(a.warmup + a.steps):
        if a.profile and i == a.warmup + a.steps - 3:
            prof = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                                      torch.profiler.ProfilerActivity.CUDA])
            prof.__enter__()
        torch.cuda.synchronize()
        t = time.perf_counter()
        tp = t
        if i >= a.warmup:
            torch.cuda.nvtx.range_push("step %d" % (i - a.warmup))
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = ddp(idx)
        loss = F.cross_entropy(logits.float().view(-1, a.vocab), idx.view(-1))
        tp = mark("forward", tp)
        loss.backward()
        tp = mark("backward", tp)
        opt.step()
        opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        mark("optimizer", tp)
        if i >= a.warmup:
            torch.cuda.nvtx.range_pop()
            times.append((time.perf_counter() - t) * 1e3)
    if prof is not None:
        prof.__exit__(None, None, None)
        prof.export_chrome_trace(a.profile)
    params = sum(p.numel() for p in model.parameters())
    res = {"world_size": dist.get_world_size(), "rank": dist.get_rank(), "backend": str(dist.get_backend()),
           "params": params, "ddp": not a.no_ddp, "bucket_mb": a.bucket_mb, "step_ms": times,
           "median_ms": statistics.median(times)}
    if a.phases:
        res["phase_median_ms"] = {k: statistics.median(v) for k, v in phases.items()}
    print(json.dumps(res))
    if a.out:
        with open(a.out, "w") as f:
            json.dump(res, f)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
