"""A small bf16 PyTorch program for `parascope-cli record --op-shapes` (scripts/gpu/op_shapes_check.sh):
per iteration two matmuls, a linear layer forward + backward, a 3x3 convolution forward + backward
and scaled_dot_product_attention forward + backward, on one GPU. It knows nothing about Parascope.
It writes what the FLOP formulas should give (docs/analyses.md, "Roofline"; the PyTorch
flop_counter convention: 2 per multiply-add, backward of a product = 2 x forward) and, with
--tiny-ops N, the host time of N tiny elementwise ops: the per-op cost the NVTX op ranges add shows
as the difference between a run with and without --op-shapes.

  python3 op_shapes_workload.py --out expected.json [--iters 5] [--tiny-ops 20000]
"""
import argparse
import json
import time

import torch
import torch.nn.functional as F


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--iters", type=int, default=5)
    p.add_argument("--tiny-ops", type=int, default=20000)
    a = p.parse_args()
    dev, dt = torch.device("cuda", 0), torch.bfloat16
    torch.cuda.set_device(dev)
    torch.manual_seed(0)

    M = K = N = 2048
    x_mm = torch.randn(M, K, device=dev, dtype=dt)
    w_mm = torch.randn(K, N, device=dev, dtype=dt)
    B, L, IN, OUT = 8, 512, 4096, 4096
    lin = torch.nn.Linear(IN, OUT, device=dev, dtype=dt)
    x_lin = torch.randn(B, L, IN, device=dev, dtype=dt, requires_grad=True)
    NC, CIN, COUT, HW, KS = 8, 64, 128, 56, 3
    conv = torch.nn.Conv2d(CIN, COUT, KS, padding=1, device=dev, dtype=dt)
    x_conv = torch.randn(NC, CIN, HW, HW, device=dev, dtype=dt, requires_grad=True)  # both gradients computed
    SB, SH, SL, SD = 2, 16, 1024, 64
    q, k, v = (torch.randn(SB, SH, SL, SD, device=dev, dtype=dt, requires_grad=True) for _ in range(3))

    expected = {
        "mm": 2 * (2 * M * K * N),                       # c = x @ w; d = c @ w
        "linear": 3 * (2 * B * L * IN * OUT),            # forward, input gradient, weight gradient
        "conv": 3 * (2 * NC * HW * HW * COUT * CIN * KS * KS),  # padding 1: output 56 x 56; backward 2 x forward
        "sdpa": 3 * (4 * SB * SH * SL * SL * SD),        # not causal; backward 2 x forward
    }

    def step():
        c = x_mm @ w_mm
        d = c @ w_mm
        lin(x_lin).float().sum().backward()
        conv(x_conv).float().sum().backward()
        F.scaled_dot_product_attention(q, k, v).float().sum().backward()
        return d

    step()  # warm-up: cuBLAS / cuDNN handles, autotuning; counted below like any iteration
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(a.iters):
        step()
    torch.cuda.synchronize()
    step_ms = (time.perf_counter() - t0) * 1e3 / max(a.iters, 1)

    tiny_us = None
    if a.tiny_ops > 0:
        t = torch.zeros(16, device=dev)
        for _ in range(200):
            t.add_(1)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(a.tiny_ops):
            t.add_(1)
        torch.cuda.synchronize()
        tiny_us = (time.perf_counter() - t0) * 1e6 / a.tiny_ops

    runs = a.iters + 1
    out = {"torch": torch.__version__, "gpu": torch.cuda.get_device_name(dev), "iterations": runs,
           "expected_flops_per_iteration": expected, "expected_flops_total": runs * sum(expected.values()),
           "step_ms": step_ms, "tiny_op_host_us": tiny_us, "tiny_ops": a.tiny_ops}
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
