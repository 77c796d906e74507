#!/usr/bin/env python3
"""Captures Parascope's real traces and measurements on a 2-GPU machine, in one launch.

Run under torchrun with one process per GPU:

    torchrun --nproc_per_node=2 scripts/capture/h200x2_capture.py OUTDIR [PART ...]

PARTs (all by default): sample, tp, dp, nccl, p2p, interference.
Every part writes under OUTDIR; measurements are JSON with the command that made them.
Timings follow METHOD.md: CUDA events, warm-up first, medians of many, fresh random data.
NVLink multicast stays off (the machine's environment sets NCCL_NVLS_ENABLE=0).
"""
import json
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist
from torch.profiler import ProfilerActivity, profile, record_function, schedule

MiB = 1024 * 1024


def log(msg):
    if dist.get_rank() == 0:
        print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def time_op(fn, iters, reps, stream=None):
    """Median, p10, p90 of per-call ns over `reps` repetitions of `iters` calls, timed with events."""
    stream = stream or torch.cuda.current_stream()
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record(stream)
        for _ in range(iters):
            fn()
        end.record(stream)
        end.synchronize()
        samples.append(start.elapsed_time(end) * 1e6 / iters)
    samples.sort()
    q = statistics.quantiles(samples, n=10) if len(samples) >= 2 else [samples[0]] * 9
    return {"n": reps * iters, "median_ns": statistics.median(samples), "p10_ns": q[0], "p90_ns": q[-1]}


def profiler(out_dir, rank, gzip_it, active=4):
    os.makedirs(out_dir, exist_ok=True)
    handler = torch.profiler.tensorboard_trace_handler(out_dir, worker_name=f"rank{rank}", use_gzip=gzip_it)
    return profile(
        activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
        schedule=schedule(wait=1, warmup=2, active=active, repeat=1),
        on_trace_ready=handler,
        record_shapes=True,
        with_flops=True,
        profile_memory=True,
    )


# ---- sample: the bundled trace (all-reduce + matmul loop, P2P exchange, copies) ----
def part_sample(out, rank, world, dev):
    g = torch.Generator(device=dev)
    g.manual_seed(1000 + rank)
    a = torch.randn(2048, 2048, device=dev, dtype=torch.bfloat16, generator=g)
    b = torch.randn(2048, 2048, device=dev, dtype=torch.bfloat16, generator=g)
    grad = torch.randn(4 * MiB, device=dev, dtype=torch.float32, generator=g)  # 16 MiB
    send = torch.randn(MiB, device=dev, dtype=torch.float32, generator=g)
    recv = torch.empty_like(send)
    host = torch.empty(MiB, dtype=torch.float32, pin_memory=True)
    peer = (rank + 1) % world
    path = os.path.join(out, "sample")
    os.makedirs(path, exist_ok=True)
    trace = os.path.join(path, f"rank{rank}.json")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 schedule=schedule(wait=1, warmup=1, active=3, repeat=1),
                 on_trace_ready=lambda p: p.export_chrome_trace(trace),
                 record_shapes=True, with_flops=True) as prof:
        for _ in range(5):
            with record_function("forward"):
                c = a @ b
                c = torch.relu(c) @ b
            with record_function("allreduce_grad"):
                dist.all_reduce(grad)
                grad.mul_(1.0 / world)
            with record_function("exchange"):
                ops = [dist.P2POp(dist.isend, send, peer), dist.P2POp(dist.irecv, recv, peer)]
                for w in dist.batch_isend_irecv(ops):
                    w.wait()
            with record_function("copy_out"):
                host.copy_(recv, non_blocking=True)
                recv.zero_()
            torch.cuda.synchronize()
            prof.step()
    log("sample written")


# ---- tp: tensor-parallel MLP step with a data-parallel all-reduce; variants for what-if pairs ----
def tp_step(x_shard, w1, w2, grads, mode, buckets, side):
    # all-gather activations (sequence-parallel in), column-parallel GEMM, row-parallel GEMM, reduce-scatter out
    with record_function("tp_mlp"):
        x = torch.empty((x_shard.shape[0] * dist.get_world_size(), x_shard.shape[1]),
                        device=x_shard.device, dtype=x_shard.dtype)
        dist.all_gather_into_tensor(x, x_shard)
        h = torch.nn.functional.gelu(x @ w1)
        y = h @ w2
        out = torch.empty_like(x_shard)
        dist.reduce_scatter_tensor(out, y)
    with record_function("dp_allreduce"):
        parts = grads.chunk(buckets)
        if mode == "overlap":
            works = [dist.all_reduce(p, async_op=True) for p in parts]
        else:
            for p in parts:
                dist.all_reduce(p)
            works = []
    with record_function("next_compute"):
        z = h @ w1.t()
        z = z @ w1
    for w in works:
        w.wait()
    return out, z


def part_tp(out, rank, world, dev, label=None):
    g = torch.Generator(device=dev)
    g.manual_seed(2000 + rank)
    tokens, hidden, ffn = 8192, 4096, 16384
    x_shard = torch.randn(tokens // world, hidden, device=dev, dtype=torch.bfloat16, generator=g)
    w1 = torch.randn(hidden, ffn // world, device=dev, dtype=torch.bfloat16, generator=g) * 0.02
    w2 = torch.randn(ffn // world, hidden, device=dev, dtype=torch.bfloat16, generator=g) * 0.02
    grads = torch.randn(64 * MiB // 2, device=dev, dtype=torch.bfloat16, generator=g)  # 64 MiB
    results = []
    variants = [("serial", 1), ("overlap", 1), ("overlap", 4), ("serial", 4)]
    nch = os.environ.get("NCCL_MAX_NCHANNELS", "default")
    for mode, buckets in variants:
        name = f"tp_{mode}_b{buckets}" + (f"_{label}" if label else "")
        fn = lambda: tp_step(x_shard, w1, w2, grads, mode, buckets, None)
        torch.cuda.synchronize()
        dist.barrier()
        t = time_op(fn, iters=5, reps=12)
        results.append({"variant": name, "mode": mode, "buckets": buckets, "nccl_max_nchannels": nch,
                        "tokens": tokens, "hidden": hidden, "ffn": ffn, "grad_bytes": grads.numel() * 2, **t})
        with profiler(os.path.join(out, name), rank, gzip_it=(rank == 1)) as prof:
            for _ in range(7):
                fn()
                torch.cuda.synchronize()
                prof.step()
        log(f"{name}: step median {t['median_ns'] / 1e3:.1f} us")
    with open(os.path.join(out, f"tp_steps{'_' + label if label else ''}_rank{rank}.json"), "w") as f:
        json.dump({"schema_version": 1, "command": " ".join(sys.argv), "rows": results}, f, indent=1)


# ---- dp: a data-parallel training step (DDP, 4 buckets) ----
def part_dp(out, rank, world, dev):
    torch.manual_seed(3000)
    layers = []
    for _ in range(6):
        layers += [torch.nn.Linear(4096, 4096), torch.nn.GELU()]
    model = torch.nn.Sequential(*layers).to(dev, dtype=torch.bfloat16)
    ddp = torch.nn.parallel.DistributedDataParallel(model, device_ids=[dev.index], bucket_cap_mb=50)
    opt = torch.optim.SGD(ddp.parameters(), lr=1e-3)
    g = torch.Generator(device=dev)
    g.manual_seed(3100 + rank)
    x = torch.randn(8192, 4096, device=dev, dtype=torch.bfloat16, generator=g)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = ddp(x).float().pow(2).mean()
        loss.backward()
        opt.step()

    t = time_op(step, iters=3, reps=10)
    with profiler(os.path.join(out, "dp_step"), rank, gzip_it=(rank == 1)) as prof:
        for _ in range(7):
            step()
            torch.cuda.synchronize()
            prof.step()
    with open(os.path.join(out, f"dp_steps_rank{rank}.json"), "w") as f:
        json.dump({"schema_version": 1, "command": " ".join(sys.argv), "rows": [{"variant": "dp_ddp", **t}]}, f)
    log(f"dp step median {t['median_ns'] / 1e3:.1f} us")


# ---- nccl: collective timings (bus bandwidth by NCCL's formulas) ----
def part_nccl(out, rank, world, dev):
    rows = []
    sizes = [4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20, 256 << 20, 1 << 30]
    peer = (rank + 1) % world
    for dtype in (torch.bfloat16, torch.float32):
        es = torch.tensor([], dtype=dtype).element_size()
        for nbytes in sizes:
            n = nbytes // es
            g = torch.Generator(device=dev)
            g.manual_seed(4000 + rank + nbytes)
            buf = torch.randn(n, device=dev, dtype=dtype, generator=g)
            big = torch.empty(n * world, device=dev, dtype=dtype)
            small = torch.empty(n // world, device=dev, dtype=dtype)
            rbuf = torch.empty_like(buf)
            ops = {
                "all_reduce": (lambda: dist.all_reduce(buf), 2 * (world - 1) / world),
                "all_gather": (lambda: dist.all_gather_into_tensor(big, buf), (world - 1) / world),
                "reduce_scatter": (lambda: dist.reduce_scatter_tensor(small, buf), (world - 1) / world),
                "sendrecv": (lambda: [w.wait() for w in dist.batch_isend_irecv(
                    [dist.P2POp(dist.isend, buf, peer), dist.P2POp(dist.irecv, rbuf, peer)])], 1.0),
            }
            iters = 100 if nbytes <= (1 << 20) else (20 if nbytes <= (64 << 20) else 5)
            for op, (fn, factor) in ops.items():
                dist.barrier()
                t = time_op(fn, iters=iters, reps=9)
                # all_gather's message is the gathered output; bytes below are the per-rank buffer
                size = nbytes * world if op == "all_gather" else nbytes
                algbw = size / (t["median_ns"] * 1e-9) / 1e9
                rows.append({"op": op, "dtype": str(dtype).replace("torch.", ""), "bytes": size,
                             "algbw_GBps": algbw, "busbw_GBps": algbw * factor, "world": world, **t})
            del buf, big, small, rbuf
            log(f"nccl {dtype} {nbytes >> 10} KiB done")
    if rank == 0:
        with open(os.path.join(out, "nccl_collectives.json"), "w") as f:
            json.dump({"schema_version": 1, "command": " ".join(sys.argv),
                       "nccl_version": ".".join(map(str, torch.cuda.nccl.version())),
                       "torch": torch.__version__, "rows": rows}, f, indent=1)


# ---- p2p: copy-engine peer copies, one process drives both GPUs (rank 0 only) ----
def part_p2p(out, rank, world, dev):
    if rank != 0 or torch.cuda.device_count() < 2:
        dist.barrier()
        return
    d0, d1 = torch.device("cuda", 0), torch.device("cuda", 1)
    rows = []
    sizes = [1 << k for k in range(10, 31, 2)]  # 1 KiB .. 1 GiB
    s0 = torch.cuda.Stream(device=d0)
    s1 = torch.cuda.Stream(device=d1)
    for nbytes in sizes:
        a0 = torch.randint(0, 255, (nbytes,), dtype=torch.uint8, device=d0)
        b1 = torch.empty(nbytes, dtype=torch.uint8, device=d1)
        a1 = torch.randint(0, 255, (nbytes,), dtype=torch.uint8, device=d1)
        b0 = torch.empty(nbytes, dtype=torch.uint8, device=d0)
        iters = 200 if nbytes <= (1 << 20) else (20 if nbytes <= (64 << 20) else 5)
        with torch.cuda.stream(s0):
            t = time_op(lambda: b1.copy_(a0, non_blocking=True), iters=iters, reps=9, stream=s0)
        rows.append({"mechanism": "ce", "direction": "uni", "bytes": nbytes, "sms": 0, "threads": 0, **t})

        def bi():
            with torch.cuda.stream(s0):
                b1.copy_(a0, non_blocking=True)
            with torch.cuda.stream(s1):
                b0.copy_(a1, non_blocking=True)
        # both directions at once: time on s0 after joining s1
        torch.cuda.synchronize()
        for _ in range(3):
            bi()
        torch.cuda.synchronize()
        samples = []
        for _ in range(9):
            t0 = time.perf_counter_ns()
            for _ in range(iters):
                bi()
            torch.cuda.synchronize(d0)
            torch.cuda.synchronize(d1)
            samples.append((time.perf_counter_ns() - t0) / iters)
        samples.sort()
        rows.append({"mechanism": "ce", "direction": "bi", "bytes": nbytes, "sms": 0, "threads": 0,
                     "n": 9 * iters, "median_ns": statistics.median(samples), "p10_ns": samples[1],
                     "p90_ns": samples[-2], "timing": "host clock around synchronize (both devices)"})
        # verify the copy once, on fresh data
        a0.random_(0, 255)
        b1.fill_(7)
        b1.copy_(a0)
        torch.cuda.synchronize()
        ok = bool(torch.equal(b1.to(d0), a0))
        rows[-2]["check"] = "ok" if ok else "MISMATCH"
        del a0, b1, a1, b0
    with open(os.path.join(out, "p2p_ce.json"), "w") as f:
        json.dump({"schema_version": 1, "command": " ".join(sys.argv), "rows": rows}, f, indent=1)
    print(f"p2p: {len(rows)} rows", flush=True)
    dist.barrier()


# ---- interference: GEMM alone, all-reduce alone, both at once on two streams ----
def part_interference(out, rank, world, dev):
    g = torch.Generator(device=dev)
    g.manual_seed(5000 + rank)
    a = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16, generator=g)
    b = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16, generator=g)
    rows = []
    for nbytes in (16 << 20, 64 << 20, 256 << 20):
        buf = torch.randn(nbytes // 2, device=dev, dtype=torch.bfloat16, generator=g)
        comp = torch.cuda.Stream()
        gemm = lambda: torch.matmul(a, b)
        ar = lambda: dist.all_reduce(buf)
        dist.barrier()
        tg = time_op(gemm, iters=10, reps=9)
        dist.barrier()
        ta = time_op(ar, iters=10, reps=9)

        def both():
            cur = torch.cuda.current_stream()
            comp.wait_stream(cur)
            with torch.cuda.stream(comp):
                for _ in range(4):
                    torch.matmul(a, b)
            dist.all_reduce(buf)
            cur.wait_stream(comp)
        dist.barrier()
        tb = time_op(both, iters=3, reps=9)
        rows.append({"gemm": "8192^3 bf16", "allreduce_bytes": nbytes, "gemm_alone_ns": tg["median_ns"],
                     "allreduce_alone_ns": ta["median_ns"], "gemm_x4_plus_allreduce_concurrent_ns": tb["median_ns"],
                     "serial_sum_ns": 4 * tg["median_ns"] + ta["median_ns"]})
        log(f"interference {nbytes >> 20} MiB: gemm {tg['median_ns'] / 1e3:.0f} us, ar {ta['median_ns'] / 1e3:.0f} us,"
            f" both(4 gemm) {tb['median_ns'] / 1e3:.0f} us")
    if rank == 0:
        with open(os.path.join(out, "interference.json"), "w") as f:
            json.dump({"schema_version": 1, "command": " ".join(sys.argv), "rows": rows}, f, indent=1)


PARTS = {"sample": part_sample, "tp": part_tp, "dp": part_dp, "nccl": part_nccl, "p2p": part_p2p,
         "interference": part_interference}


def main():
    out = sys.argv[1]
    parts = sys.argv[2:] or list(PARTS)
    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    dev = torch.device("cuda", local)
    dist.init_process_group("nccl", device_id=dev)
    rank, world = dist.get_rank(), dist.get_world_size()
    os.makedirs(out, exist_ok=True)
    label = os.environ.get("CAPTURE_LABEL")
    for p in parts:
        t0 = time.time()
        try:
            if p == "tp":
                part_tp(out, rank, world, dev, label)
            else:
                PARTS[p](out, rank, world, dev)
        except Exception as e:  # keep going: one failed part must not lose the others
            print(f"rank {rank}: part {p} FAILED: {type(e).__name__}: {e}", flush=True)
        torch.cuda.synchronize()
        dist.barrier()
        log(f"part {p}: {time.time() - t0:.1f} s")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
