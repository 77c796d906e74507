# `parascope-cli record --op-shapes`: PyTorch's NVTX op ranges with input shapes
# (torch.autograd.profiler.emit_nvtx(record_shapes=True)) on for the whole program, so the roofline
# can count each kernel's FLOPs from its op's sizes (trace/core/analysis/nvtx_op_work.h).
# sitecustomize.py calls install() in every Python process of the run (PARASCOPE_OP_SHAPES=1); it
# does not import torch itself: it waits for the program's own `import torch` and turns the ranges on
# right after it, before any op runs. They are on in the importing thread, in autograd's threads
# (PyTorch carries the setting into backward) and in every thread started through `threading`
# afterwards; a forked child turns them off (the collector keeps no forked child's records). The
# collector's trace gets a note saying they are on, or a warning saying why not; the program runs
# on either way. PyTorch allows one profiler per thread: the program's own torch.profiler or
# emit_nvtx on such a thread fails with "Profiler is already enabled on this thread".
import ctypes
import importlib.util
import os
import sys
import threading

MARK = "parascope: op shapes on"
_local = threading.local()
_state = {"torch": None, "off": False, "thread_failures": 0}


def _say(text, warning=False):
    """A note (or warning) in this process's trace through the collector; stderr without one."""
    lib = None
    for name in (os.environ.get("PARASCOPE_COLLECTOR_LIB"), "libparascope_cupti.so"):
        if not name:
            continue
        try:
            lib = ctypes.CDLL(name, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
            break
        except OSError:
            continue
    fn = getattr(lib, "parascope_collector_impl_warn" if warning else "parascope_collector_impl_note", None) if lib else None
    if fn is not None:
        fn.argtypes = [ctypes.c_char_p]
        fn.restype = ctypes.c_int
        if fn(text.encode("utf-8")) == 1 and not warning:
            return
    sys.stderr.write("parascope record --op-shapes: %s%s\n" % (text, "" if fn else " (no collector in this process to keep it)"))


def _no_sync(device=None):
    return None


def _enable_here(torch):
    """emit_nvtx(record_shapes=True) entered on this thread, without its torch.cuda.synchronize():
    nothing ran yet, and a synchronise would make a CUDA context (on GPU 0, before the program picks
    its device) in every process that imports torch."""
    if getattr(_local, "ctx", None) is not None:
        return
    ctx = torch.autograd.profiler.emit_nvtx(enabled=True, record_shapes=True)
    sync = torch.cuda.synchronize
    torch.cuda.synchronize = _no_sync
    try:
        ctx.__enter__()
    finally:
        torch.cuda.synchronize = sync
    _local.ctx = ctx


def _disable_here():
    ctx = getattr(_local, "ctx", None)
    torch = _state["torch"]
    if ctx is None or torch is None:
        return
    _local.ctx = None
    sync = torch.cuda.synchronize
    torch.cuda.synchronize = _no_sync  # a forked child must not touch CUDA
    try:
        ctx.__exit__(None, None, None)
    except Exception:
        pass  # the child's ranges cost a little time; its records are dropped either way
    finally:
        torch.cuda.synchronize = sync


def _after_fork_in_child():
    _state["off"] = True
    _disable_here()


def _patch_threads():
    """Every thread started through threading turns the ranges on before its run() (once the
    thread is registered: current_thread() is itself there)."""
    original = threading.Thread._bootstrap_inner

    def _bootstrap_inner(self):
        run = self.run

        def run_with_op_ranges(*args, **kwargs):
            if not _state["off"]:
                try:
                    _enable_here(_state["torch"])
                except Exception as e:
                    _state["thread_failures"] += 1
                    if _state["thread_failures"] == 1:
                        _say("PyTorch's NVTX op ranges could not be turned on in thread %r (%s: %s); its ops have no "
                             "shapes" % (self.name, type(e).__name__, e), warning=True)
            return run(*args, **kwargs)

        self.run = run_with_op_ranges
        original(self)

    threading.Thread._bootstrap_inner = _bootstrap_inner


def _turn_on(torch):
    _state["torch"] = torch
    try:
        _enable_here(torch)
    except Exception as e:
        _say("no op shapes in process %d: PyTorch's NVTX op ranges could not be turned on (%s: %s)"
             % (os.getpid(), type(e).__name__, e), warning=True)
        return
    if hasattr(threading.Thread, "_bootstrap_inner"):
        _patch_threads()
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_after_fork_in_child)
    try:
        torch.cuda.nvtx.mark(MARK)  # on the timeline; the first NVTX call also loads the collector's NVTX hook
    except Exception:
        pass
    _say("op shapes: PyTorch's NVTX op ranges with input shapes on from `import torch` (torch %s, "
         "emit_nvtx(record_shapes=True)) in thread %r, autograd's threads and threads started through threading "
         "(record --op-shapes)" % (getattr(torch, "__version__", "?"), threading.current_thread().name))


class _TorchImport:
    """A meta path finder that lets the real one find torch and turns the ranges on after it loads."""

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        exec_module = spec.loader.exec_module

        def exec_then_turn_on(module):
            exec_module(module)
            _turn_on(module)

        spec.loader.exec_module = exec_then_turn_on
        return spec


def install():
    torch = sys.modules.get("torch")
    if torch is not None:  # imported already (by a sitecustomize that ran first)
        _turn_on(torch)
    elif not any(isinstance(f, _TorchImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _TorchImport())
