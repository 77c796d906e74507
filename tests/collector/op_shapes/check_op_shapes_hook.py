#!/usr/bin/env python3
"""record --op-shapes's Python hook (trace/collector/python/parascope_op_shapes.py), started by
sitecustomize.py as `record` starts it (PYTHONPATH, PARASCOPE_OP_SHAPES=1), without a GPU.
  check_op_shapes_hook.py hook   against a torch package written here that records what the hook
                                 calls (emit_nvtx, torch.cuda.synchronize, torch.cuda.nvtx.mark):
                                 nothing before the program's `import torch`, then emit_nvtx with
                                 record_shapes in the importing thread and in later threads, no
                                 synchronize, the mark, off again in a forked child; a failing
                                 emit_nvtx leaves the program running and says why; without the
                                 variable nothing happens.
  check_op_shapes_hook.py note CLI   `CLI record --op-shapes` of a program using that torch package,
                                 with the collector library loaded by the program itself (on a GPU
                                 machine CUDA's or NVTX's injection loads it): the trace's notes say
                                 the ranges are on, and a failing emit_nvtx is a warning in the trace.
  check_op_shapes_hook.py real   against this machine's torch: the program runs to its end either
                                 way, and a torch built without CUDA is named as the reason there
                                 are no shapes. Exits 77 (ctest: skipped) when no python3 here has torch.
Real ranges and the roofline of them need a GPU: scripts/gpu/op_shapes_check.sh."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
PYTHON_DIR = os.path.join(SOURCE, "trace", "collector", "python")

FAKE_TORCH = {
    "torch/__init__.py": "__version__ = '0.0-test'\nfrom . import autograd, cuda\n",
    "torch/autograd/__init__.py": "from . import profiler\n",
    "torch/autograd/profiler.py": """import os, threading
import torch
entered, exited = [], []
class emit_nvtx:
    def __init__(self, enabled=True, record_shapes=False):
        self.record_shapes = record_shapes
    def __enter__(self):
        torch.cuda.synchronize()
        if os.environ.get("FAKE_TORCH_FAIL") == "1":
            raise RuntimeError("Can't use NVTX profiler - PyTorch was compiled without CUDA")
        entered.append([threading.current_thread().name, self.record_shapes])
        return self
    def __exit__(self, *exc):
        torch.cuda.synchronize()
        exited.append(threading.current_thread().name)
""",
    "torch/cuda/__init__.py": "from . import nvtx\nsyncs = []\ndef synchronize(device=None):\n    syncs.append(device)\n",
    "torch/cuda/nvtx.py": "marks = []\ndef mark(msg):\n    marks.append(msg)\n",
}

PROGRAM = """
import json, os, sys, threading
before = "torch" in sys.modules
import torch
from torch.autograd import profiler
t = threading.Thread(target=lambda: None, name="worker")
t.start(); t.join()
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    threading.Thread(target=lambda: None, name="child-worker").start()
    os.write(w, json.dumps([profiler.exited, profiler.entered]).encode())
    os._exit(0)
os.waitpid(pid, 0)
child = json.loads(os.read(r, 4096))
print(json.dumps({"before": before, "entered": profiler.entered, "syncs": len(torch.cuda.syncs),
                  "marks": torch.cuda.nvtx.marks, "child_exited": child[0], "child_entered": child[1]}))
"""


def run(program, extra_env, python="python3"):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in [PYTHON_DIR, extra_env.pop("FAKE_DIR", "")] if p),
               PYTHONDONTWRITEBYTECODE="1")
    env.pop("PARASCOPE_COLLECTOR_LIB", None)
    env.update(extra_env)
    return subprocess.run([python, "-c", program], env=env, capture_output=True, text=True, timeout=300)


def check(cond, what, r=None):
    if not cond:
        sys.exit("FAIL: %s%s" % (what, "" if r is None else "\nstdout: %s\nstderr: %s" % (r.stdout, r.stderr)))
    print("ok:", what)


def write_fake_torch(fake):
    for path, text in FAKE_TORCH.items():
        os.makedirs(os.path.dirname(os.path.join(fake, path)), exist_ok=True)
        with open(os.path.join(fake, path), "w") as f:
            f.write(text)


def note(cli):
    program = "import ctypes, os; ctypes.CDLL(os.environ['PARASCOPE_COLLECTOR_LIB']); import torch; print('ran')"
    with tempfile.TemporaryDirectory() as tmp:
        fake = os.path.join(tmp, "fake")
        write_fake_torch(fake)
        for fail in ("0", "1"):
            out = os.path.join(tmp, "rec" + fail)
            env = dict(os.environ, PYTHONPATH=fake, PYTHONDONTWRITEBYTECODE="1", FAKE_TORCH_FAIL=fail)
            r = subprocess.run([cli, "record", "-q", "--op-shapes", "-o", out, "--", "python3", "-c", program],
                               env=env, capture_output=True, text=True, timeout=300)
            check(r.returncode == 0 and r.stdout.strip() == "ran", "record --op-shapes runs the program (emit_nvtx %s)"
                  % ("fails" if fail == "1" else "works"), r)
            i = subprocess.run([cli, "info", "--json", "-q", out], capture_output=True, text=True, timeout=300)
            check(i.returncode == 0, "info reads the record directory", i)
            doc = json.loads(i.stdout)
            notes, warnings = " | ".join(doc.get("notes", [])), " | ".join(doc.get("warnings", []))
            if fail == "0":
                check("op shapes: PyTorch's NVTX op ranges with input shapes on from `import torch` (torch 0.0-test" in notes,
                      "the trace's notes say the op ranges are on", i)
            else:
                check("no op shapes in process" in warnings and "compiled without CUDA" in warnings and "op shapes" not in notes,
                      "a refusal is a warning in the trace, with PyTorch's reason", i)


def hook():
    with tempfile.TemporaryDirectory() as fake:
        write_fake_torch(fake)
        r = run(PROGRAM, {"FAKE_DIR": fake, "PARASCOPE_OP_SHAPES": "1"})
        check(r.returncode == 0, "the program runs under the hook", r)
        out = json.loads(r.stdout.strip().splitlines()[-1])
        check(out["before"] is False, "torch is not imported by the hook before the program imports it", r)
        check(out["entered"] == [["MainThread", True], ["worker", True]],
              "emit_nvtx(record_shapes=True) in the importing thread and in a thread started later", r)
        check(out["syncs"] == 0, "no torch.cuda.synchronize (no CUDA context at import)", r)
        check(out["marks"] == ["parascope: op shapes on"], "the mark on the timeline", r)
        check(out["child_exited"] == ["MainThread"] and out["child_entered"] == out["entered"],
              "a forked child turns the ranges off and its new threads do not turn them on", r)
        check("op shapes: PyTorch's NVTX op ranges with input shapes on from `import torch` (torch 0.0-test" in r.stderr
              and "no collector in this process to keep it" in r.stderr, "without a collector the note goes to stderr", r)

        r = run(PROGRAM, {"FAKE_DIR": fake, "PARASCOPE_OP_SHAPES": "1", "FAKE_TORCH_FAIL": "1"})
        check(r.returncode == 0, "a torch that refuses NVTX ranges leaves the program running", r)
        out = json.loads(r.stdout.strip().splitlines()[-1])
        check(out["entered"] == [] and out["marks"] == [], "nothing is on when emit_nvtx fails", r)
        check("no op shapes in process" in r.stderr and "compiled without CUDA" in r.stderr, "and the reason is said", r)

        r = run(PROGRAM, {"FAKE_DIR": fake})
        check(r.returncode == 0 and json.loads(r.stdout.strip().splitlines()[-1])["entered"] == [] and r.stderr == "",
              "without PARASCOPE_OP_SHAPES the hook does nothing", r)

        r = run("import sys; print('torch' in sys.modules)", {"FAKE_DIR": fake, "PARASCOPE_OP_SHAPES": "1"})
        check(r.returncode == 0 and r.stdout.strip() == "False" and r.stderr == "",
              "a program that never imports torch is left alone", r)


def real():
    r = subprocess.run(["python3", "-c", "import torch"], capture_output=True)
    if r.returncode != 0:
        print("skipped: no python3 with torch here")
        sys.exit(77)
    r = run("import torch\nx = torch.ones(4, 4) @ torch.ones(4, 4)\nprint(float(x.sum()))",
            {"PARASCOPE_OP_SHAPES": "1"})
    check(r.returncode == 0 and r.stdout.strip().splitlines()[-1] == "64.0", "a torch program runs to its end", r)
    cuda = subprocess.run(["python3", "-c", "import torch, sys; sys.exit(0 if torch.version.cuda else 1)"]).returncode == 0
    if cuda:
        check("op shapes: PyTorch's NVTX op ranges with input shapes on" in r.stderr, "a CUDA torch turns them on", r)
    else:
        check("no op shapes in process" in r.stderr and "without CUDA" in r.stderr, "a CPU-only torch is named as the reason", r)


if __name__ == "__main__":
    if sys.argv[1] == "note":
        note(sys.argv[2])
    else:
        {"hook": hook, "real": real}[sys.argv[1]]()
