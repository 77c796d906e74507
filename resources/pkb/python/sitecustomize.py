# Parascope's shape hook for `parascope-cli pkb run` (docs/pkb.md). `pkb run` puts this folder on
# PYTHONPATH with PARASCOPE_PKB_SHAPES=1; Python imports it at start-up in every process of the run.
# In PKB's worker (scripts/worker.py under torchrun) it turns on PyTorch's NVTX op ranges with input
# shapes (torch.autograd.profiler.emit_nvtx(record_shapes=True)), which the collector records, and
# turns them off again at the worker's first torch.cuda.synchronize(): the one after the task's
# first call. So the op shapes of one call are in the trace and the timed loop runs untouched.
# Nothing of PKB is changed; any failure here only means no shapes (one line on stderr).
import os
import sys


def _install():
    if os.environ.get("PARASCOPE_PKB_SHAPES") != "1" or "RANK" not in os.environ:
        return
    if not sys.argv or not sys.argv[0].endswith("worker.py"):
        return
    import torch

    # the worker's own device (it calls torch.cuda.set_device(rank) later); emit_nvtx synchronises
    # on entry, which would otherwise make a context on GPU 0 in every rank
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
    ctx = torch.autograd.profiler.emit_nvtx(enabled=True, record_shapes=True)
    ctx.__enter__()
    original = torch.cuda.synchronize

    def synchronize(device=None):
        torch.cuda.synchronize = original
        original(device)
        try:
            torch.cuda.nvtx.mark("parascope.pkb.shapes_off")
            ctx.__exit__(None, None, None)
        except Exception as e:  # the shapes so far are recorded either way
            print(f"parascope pkb shape hook: could not stop NVTX op ranges: {e}", file=sys.stderr)

    torch.cuda.synchronize = synchronize


try:
    _install()
except Exception as e:
    print(f"parascope pkb shape hook: no op shapes ({type(e).__name__}: {e})", file=sys.stderr)
