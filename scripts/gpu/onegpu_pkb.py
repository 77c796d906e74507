#!/usr/bin/env python3
"""ParallelKernelBench references as rank RANK of a world of WORLD_SIZE in ONE process (no
per-reference Python start-up): for each reference, PKB's own inputs (utils.input_output_tensors.
create_input_tensor) and its solution(), one warm-up call and --iters timed calls, each call in an
NVTX range "pkb <name> #<k>" (the steps `whatif --step '^pkb '` predicts) with a device sync after
it. A reference that fails (e.g. control flow on values peers would have sent) is skipped and its
error kept. Run under `parascope-cli record --world N` (scripts/gpu/onegpu_batch.sh).
usage: onegpu_pkb.py --pkb DIR --out JSON [--budget-s S] [--iters K] [--device cuda|cpu] [NAMES...]"""
import argparse
import importlib.util
import json
import os
import sys
import time
import traceback

import torch
import torch.distributed as dist

# simple collectives first, then the composed ones: as many as the time budget allows
DEFAULT = [
    "1_allreduce", "2_allgather", "3_broadcast", "4_reduce", "5_scatter", "6_gather", "7_reducescatter", "8_alltoall",
    "9_layernorm_backward", "10_embedding_lookup", "11_allgather_gemm_AT", "12_allgather_gemm", "13_gemm_allreduce",
    "14_gemm_allgather", "15_combined_sharded_gemms", "16_gemm_reducescatter", "17_rope_allgather", "18_tp_rms_norm",
    "21_clip_grad_norm_no_ep", "23_grad_acc_loss", "24_load_balancing_loss_fn", "27_moe_all2all_primitive",
    "33_ulysses_all_to_all_tensor_primitive", "34_ulysses_all_gather_into_tensor_primitive", "40_ddp",
    "41_zero1_optimizer_shard", "42_zero2_optimizer_shard_grad", "43_fused_adam_grad_unshard_allgather",
    "44_quantized_grad_allreduce", "45_reducescatter_fused_rmsnorm", "46_gemv_decode", "47_fsdp_step_e2e",
    "48_fsdp_and_tp", "52_fp8_reduce_scatter_grads", "53_fp8_allgather_params", "73_vocab_parallel_cross_entropy_loss",
    "76_opensora_conv3d_allreduce", "82_vocab_parallel_log_prob_topk", "86_tp_muon_orthogonalization",
]


def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pkb", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--budget-s", type=float, default=75)
    ap.add_argument("--iters", type=int, default=3)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--rows", type=int, default=1024)
    ap.add_argument("--cols", type=int, default=1024)
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    sys.path.insert(0, a.pkb)
    from utils.input_output_tensors import create_input_tensor

    start = time.time()
    if a.device == "cuda":
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
        device = torch.device("cuda", torch.cuda.current_device())
        dist.init_process_group("nccl")
    else:
        device = torch.device("cpu")
        dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    results = []
    for name in a.names or DEFAULT:
        if time.time() - start > a.budget_s:
            results.append({"name": name, "status": "not run (time budget)"})
            continue
        path = os.path.join(a.pkb, "reference", name + ".py")
        r = {"name": name, "problem_id": int(name.split("_")[0])}
        t0 = time.time()
        try:
            spec = importlib.util.spec_from_file_location("pkb_" + name, path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            x = create_input_tensor(rank, world, r["problem_id"], (a.rows, a.cols), torch.bfloat16, trial=0, device=device)
            mod.solution(*x)  # warm-up (cuBLAS handles, allocator)
            sync(device)
            times = []
            for k in range(a.iters):
                if device.type == "cuda":
                    torch.cuda.nvtx.range_push("pkb %s #%d" % (name, k))
                t = time.perf_counter()
                mod.solution(*x)
                sync(device)
                times.append((time.perf_counter() - t) * 1e3)
                if device.type == "cuda":
                    torch.cuda.nvtx.range_pop()
            r.update(status="ok", host_ms=times)
        except Exception as e:  # noqa: BLE001  (one reference's failure must not stop the others)
            r.update(status="failed", error="%s: %s" % (type(e).__name__, str(e)[:300]),
                     where=traceback.format_exc().strip().splitlines()[-3:])
            if device.type == "cuda":
                torch.cuda.synchronize()
        r["wall_s"] = round(time.time() - t0, 3)
        results.append(r)
        print("[rank %d/%d] %-45s %s %.1f s" % (rank, world, name, r["status"], r["wall_s"]), flush=True)
    dist.destroy_process_group()
    with open(a.out, "w") as f:
        json.dump({"rank": rank, "world_size": world, "torch": torch.__version__, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
