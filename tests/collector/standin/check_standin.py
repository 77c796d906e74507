#!/usr/bin/env python3
"""What the stand-in process group records for small DDP, tensor-parallel and all-to-all programs
is exact: op, elements, dtype, group (ranks), per-group order and how each op was waited.
Runs each program on the CPU under torch (Debian's python3-torch 1.13 in CI; 2.x the same) with
the stand-in, as `parascope-cli record --world` would start it. Exits 77 (ctest: skipped) when
no Python here can import torch.distributed.
usage: check_standin.py CASE [--impl compiled|python]
  CASE: ddp | tp | a2a | leak | funcol | fsdp (the last two need torch 2.x and skip on 1.13)
  --impl: which stand-in records (parascope_world/compiled.py): the compiled backend (skipped where
  torch is older than 2.1) or the Python group; unset, as compiled.py chooses. The expected lists
  are the same for both."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
PYTHON_DIR = os.path.join(SOURCE, "trace", "collector", "python")


def torch_python():
    candidates = [os.environ.get("PARASCOPE_TORCH_PYTHON"), "python3", "/usr/bin/python3"]
    for c in candidates:
        if not c:
            continue
        try:
            r = subprocess.run([c, "-c", "import torch.distributed as d; assert d.is_available()"],
                               capture_output=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if r.returncode == 0:
            return c
    return None


IMPL = None  # --impl


def run(python, program, world, rank):
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "w.jsonl")
        env = dict(os.environ, PYTHONPATH=PYTHON_DIR, PARASCOPE_WORLD_SIZE=str(world), PARASCOPE_WORLD_RANK=str(rank),
                   PARASCOPE_WORLD_LOG=log, RANK=str(rank), WORLD_SIZE=str(world), LOCAL_RANK="0",
                   MASTER_ADDR="127.0.0.1", MASTER_PORT="29500", PARASCOPE_WORLD_STRICT="1")
        if IMPL:
            env["PARASCOPE_WORLD_BACKEND"] = IMPL
        r = subprocess.run([python, os.path.join(HERE, program)], env=env, capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            sys.exit("%s failed (%d):\n%s%s" % (program, r.returncode, r.stdout, r.stderr))
        with open(log) as f:
            recs = [json.loads(line) for line in f]
        world = [x for x in recs if x["k"] == "world"]
        if IMPL and world and world[0].get("standin") != IMPL:
            sys.exit("%s: the %s stand-in was asked for, the records say %r (%s)"
                     % (program, IMPL, world[0].get("standin"), world[0].get("standin_why")))
        return recs


def need_compiled(python):
    """Exit 77 (skipped) where this torch cannot have the compiled backend (older than 2.1)."""
    r = subprocess.run([python, "-c", "import torch, sys; sys.path.insert(0, %r); from parascope_world import compiled; "
                        "print(compiled._version(torch) >= (2, 1), torch.__version__)" % PYTHON_DIR],
                       capture_output=True, text=True, timeout=120)
    ok, _, version = r.stdout.strip().partition(" ")
    if r.returncode != 0 or ok != "True":
        print("SKIPPED: the compiled stand-in needs torch >= 2.1 (torch %s here)" % (version or "?"))
        sys.exit(77)


def summary(records):
    """(group ranks, op, dtype, in, out, seq, splits, waits) per op, in call order."""
    groups = {r["id"]: r for r in records if r["k"] == "group"}
    waits = {}
    for r in records:
        if r["k"] == "wait":
            for o in r["ops"]:
                waits.setdefault(o, []).append(r["how"])
    out = []
    for r in records:
        if r["k"] != "op":
            continue
        out.append((groups[r["group"]]["ranks"], r["op"], r["dtype"], r["in_elems"], r["out_elems"], r["seq"],
                    r.get("in_splits"), waits.get(r["id"], [])))
    return out


def need(python, statement, what):
    """Exit 77 (skipped) when this torch lacks what a case needs."""
    r = subprocess.run([python, "-c", statement], capture_output=True, timeout=120)
    if r.returncode != 0:
        v = subprocess.run([python, "-c", "import torch; print(torch.__version__)"], capture_output=True, text=True)
        print("SKIPPED: torch %s here lacks %s" % (v.stdout.strip() or "?", what))
        sys.exit(77)


def expect(name, got, want):
    if got != want:
        lines = ["%s: recorded list differs" % name, "  got:"] + ["    %r" % (g,) for g in got] + ["  want:"] + \
                ["    %r" % (w,) for w in want]
        sys.exit("\n".join(lines))


def main():
    global IMPL
    case = sys.argv[1]
    if len(sys.argv) == 4 and sys.argv[2] == "--impl" and sys.argv[3] in ("compiled", "python"):
        IMPL = sys.argv[3]
    elif len(sys.argv) != 2:
        sys.exit(__doc__)
    python = torch_python()
    if python is None:
        print("SKIPPED: no Python here imports torch.distributed (apt-get install python3-torch)")
        sys.exit(77)
    if IMPL == "compiled":
        need_compiled(python)
    W = ["wait"]
    if case == "ddp":
        recs = run(python, "ddp_step.py", 2, 0)
        world = [r for r in recs if r["k"] == "world"][0]
        assert (world["rank"], world["world_size"], world["asked_backend"]) == (0, 2, "gloo"), world
        expect("ddp", summary(recs), [
            # DDP's constructor: every rank's parameter count (one int64 each: 2 out of 2 ranks)
            ([0, 1], "all_gather", "int64", 1, 2, 0, None, W),
            # rank 0's parameter shapes and strides: (2 + 2) + (1 + 1) + (2 + 2) + (1 + 1) = 12
            ([0, 1], "broadcast", "int64", 12, 12, 1, None, W),
            # rank 0's module state: 16*32 + 32 + 32*8 + 8 = 808 floats in one bucket
            ([0, 1], "broadcast", "float32", 808, 808, 2, None, W),
            # the gradient bucket, all-reduced during backward; DDP's reducer waits on its future in
            # C++, so the wait is where backward() returned
            ([0, 1], "all_reduce", "float32", 808, 808, 3, None, ["backward_end"]),
        ])
    elif case == "tp":
        recs = run(python, "tp_mlp.py", 4, 2)
        groups = [(r["ranks"], r["rank"]) for r in recs if r["k"] == "group"]
        # every group is recorded, members or not, in creation order; rank 2 is TP rank 0 of
        # [2, 3] and DP rank 1 of [0, 2]
        expect("tp groups", groups, [([0, 1, 2, 3], 2), ([0, 1], -1), ([2, 3], 0), ([0, 2], 1), ([1, 3], -1)])
        expect("tp", summary(recs), [
            ([2, 3], "all_reduce", "float32", 8 * 16, 8 * 16, 0, None, W),   # fc2's partial output
            ([2, 3], "all_reduce", "float32", 8 * 16, 8 * 16, 1, None, W),   # the input gradient
            ([0, 2], "all_reduce", "float32", 32 * 16, 32 * 16, 0, None, W),  # fc1.weight gradient
            ([0, 2], "all_reduce", "float32", 32, 32, 1, None, W),           # fc1.bias
            ([0, 2], "all_reduce", "float32", 16 * 32, 16 * 32, 2, None, W),  # fc2.weight
        ])
    elif case == "a2a":
        recs = run(python, "all_to_all.py", 4, 0)
        rows = [1 * 8, 2 * 8, 3 * 8, 4 * 8]  # elements to ranks 0..3 (rows of 8)
        expect("a2a", summary(recs), [
            ([0, 1, 2, 3], "all_to_all_single", "int64", 4, 4, 0, None, W),
            ([0, 1, 2, 3], "all_to_all_single", "float32", 80, 80, 1, rows, W),
            ([0, 1, 2, 3], "all_to_all_single", "float32", 80, 80, 2, rows, W),  # async_op=True, then wait()
        ])
    elif case == "funcol":
        need(python, "import torch.distributed._functional_collectives", "the functional collectives (torch >= 2.1)")
        recs = run(python, "funcol.py", 4, 0)
        got = summary(recs)
        # wait_tensor waits in C++ (c10d's functional registry): the stand-in sees the wait only where
        # torch calls the Python work's wait(); the ops themselves are exact. torch 2.x's functional
        # all-gather and reduce-scatter enter the backend through the coalesced calls with one tensor
        # (torch 2.11: allgather_into_tensor_coalesced): recorded as called, the same op here
        one = {"all_gather_into_tensor_coalesced": "all_gather_into_tensor",
               "reduce_scatter_tensor_coalesced": "reduce_scatter_tensor"}
        expect("funcol", [(g[0], one.get(g[1], g[1])) + g[2:7] for g in got], [
            ([0, 1, 2, 3], "all_reduce", "float32", 32, 32, 0, None),
            ([0, 1, 2, 3], "all_gather_into_tensor", "float32", 32, 128, 1, None),
            ([0, 1, 2, 3], "reduce_scatter_tensor", "float32", 64, 16, 2, None),
            ([0, 1, 2, 3], "all_to_all_single", "float32", 80, 32, 3, [8, 16, 24, 32]),
        ])
    elif case == "fsdp":
        need(python, "from torch.distributed.fsdp import fully_shard", "FSDP2's fully_shard (torch >= 2.6)")
        recs = run(python, "fsdp_step.py", 4, 0)
        got = summary(recs)
        full = {544: "fc1", 1056: "fc2", 264: "fc3"}   # each unit's parameters
        shard = {n // 4: u for n, u in full.items()}   # this rank's quarter of each
        gathers = [g for g in got if g[1] == "all_gather_into_tensor"]
        reduces = [g for g in got if g[1] in ("reduce_scatter_tensor", "all_reduce")]
        other = [g for g in got if g not in gathers and g not in reduces]
        def fail(what):
            sys.exit("fsdp: %s\n  recorded:\n%s" % (what, "\n".join("    %r" % (g,) for g in got)))
        if other:
            fail("unexpected ops %r" % other)
        for g in gathers:
            if g[0] != [0, 1, 2, 3] or g[2] != "float32" or g[3] not in shard or g[4] != 4 * g[3]:
                fail("an all-gather that is no unit's shard gathered over the world: %r" % (g,))
        for r in reduces:
            if r[0] != [0, 1, 2, 3] or r[2] != "float32" or r[3] not in full:
                fail("a gradient reduction that is no unit's: %r" % (r,))
            if r[1] == "reduce_scatter_tensor" and r[4] != r[3] // 4:
                fail("a reduce-scatter whose output is not the rank's shard: %r" % (r,))
        # two steps: every unit's gradient reduced once per step; gathered before each forward and
        # at most once more before its backward
        per_unit = lambda rows, sizes: sorted(sizes[g[3]] for g in rows)
        if per_unit(reduces, full) != sorted(["fc1", "fc2", "fc3"] * 2):
            fail("gradient reductions per unit %r, want each unit twice" % per_unit(reduces, full))
        for u in ("fc1", "fc2", "fc3"):
            k = per_unit(gathers, shard).count(u)
            if not 2 <= k <= 4:
                fail("%s all-gathered %d times in two steps (want 2..4)" % (u, k))
        if [g[5] for g in got] != list(range(len(got))):
            fail("sequence numbers not 0..%d in call order" % (len(got) - 1))
    elif case == "leak":
        recs = run(python, "no_leak.py", 8, 0)  # the program itself checks what stays alive
        ops = [r for r in recs if r["k"] == "op"]
        if len(ops) != 3001:
            sys.exit("leak: %d ops recorded, want 3001" % len(ops))
    else:
        sys.exit("unknown case " + case)
    print("%s: %d records as expected%s" % (case, len(recs), " (%s stand-in)" % IMPL if IMPL else ""))


if __name__ == "__main__":
    main()
