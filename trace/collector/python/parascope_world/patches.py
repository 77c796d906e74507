# What changes in torch.distributed while the stand-in is active, all in one place:
#   - every process group the program creates (init_process_group, new_group, device meshes: all
#     go through _new_process_group_helper) is a stand-in, whatever backend was asked for: torch's
#     own ProcessGroup over the compiled backend (compiled.py decides), else a StandInGroup; the
#     asked backend is recorded and is what get_backend() answers;
#   - no rendezvous: the default store is an in-process HashStore, the store-based barriers that
#     wait for peers return at once, and options meant for the real backend (pg_options, device_id)
#     are not passed on (device_id would make torch split NCCL communicators);
#   - backward(): ops whose future was taken (DDP's reducer waits on it in C++, unseen) count as
#     waited where the backward pass returns.
# Installed when torch.distributed.distributed_c10d is imported (an import hook), so the program's
# own start-up, environment handling and imports run first and unchanged.
import functools
import importlib.abc
import importlib.machinery
import inspect
import sys
import time

_TARGET = "torch.distributed.distributed_c10d"
_STANDIN = "parascope"


class _PostImport(importlib.abc.MetaPathFinder):
    def __init__(self, on_loaded):
        self._on_loaded = on_loaded
        self._busy = False

    def find_spec(self, name, path, target=None):
        if name != _TARGET or self._busy:
            return None
        self._busy = True
        try:
            spec = importlib.machinery.PathFinder.find_spec(name, path)
        finally:
            self._busy = False
        if spec is None or spec.loader is None:
            return None
        real_exec = spec.loader.exec_module
        hook = self._on_loaded

        def exec_module(module):
            real_exec(module)
            hook(module)

        spec.loader.exec_module = exec_module
        return spec


def install(state):
    """state: the package's _State (recorder, world size, rank). Patches now if torch.distributed
    is already imported, else when it is."""
    mod = sys.modules.get(_TARGET)
    if mod is not None:
        _patch(mod, state)
    else:
        sys.meta_path.insert(0, _PostImport(lambda m: _patch(m, state)))


def _asked_name(backend):
    if backend is None:
        return "default"
    return str(backend).lower()


def _patch(c10d, state):
    if getattr(c10d, "_parascope_patched", False):
        return
    c10d._parascope_patched = True
    # torch itself may still be importing (torch/__init__ reaches distributed_c10d): only wrap
    # functions here; what needs the whole of torch happens at the first init_process_group.
    recorder = state.recorder
    asked = {}  # group (StandInGroup) -> the backend name the program asked for

    def create(store, rank, size, timeout):
        from . import standin

        ranks = state.pending_ranks if state.pending_ranks is not None else list(range(size))
        gid = recorder.group(ranks, rank, state.pending_name, state.pending_desc, state.pending_asked)
        if state.compiled is not None:  # torch makes the ProcessGroup, names it and registers this for cpu and cuda
            return state.compiled.make_backend(rank, size, [int(r) for r in ranks], gid)
        pg = standin.StandInGroup(recorder, rank, size, ranks, gid, state.pending_asked)
        # torch 2.x names groups after this returns only for its own backends; the functional
        # collectives find a group by its name
        pg._set_group_name(state.pending_name or str(gid))
        pg._set_group_desc(state.pending_desc)
        asked[pg] = state.pending_asked
        return pg

    def late_setup():
        if _STANDIN.upper() in c10d.Backend._plugins:
            return
        from . import compiled

        module, why = compiled.load()
        state.compiled = module
        if module is not None:
            recorder.attach_compiled(module, why)
        else:
            recorder.impl_why = why
        try:
            c10d.Backend.register_backend(_STANDIN, create, devices=["cpu", "cuda"])
        except TypeError:  # torch 1.13: no devices argument
            c10d.Backend.register_backend(_STANDIN, create)
        _patch_backward(recorder)

    helper = c10d._new_process_group_helper
    helper_sig = inspect.signature(helper)

    @functools.wraps(helper)
    def new_process_group_helper(*args, **kwargs):
        bound = helper_sig.bind(*args, **kwargs)
        a = bound.arguments
        asked_here = _asked_name(a.get("backend"))
        # the default group (its backend is already ours) and new_group(backend=None) inherit the
        # world's asked backend
        state.pending_asked = state.world_backend if asked_here in (_STANDIN, "default", "undefined") else asked_here
        state.pending_ranks = list(a.get("global_ranks_in_group") or []) or None
        state.pending_name = str(a.get("group_name") or "")
        state.pending_desc = str(a.get("group_desc") or "")
        if state.pending_ranks is None:
            state.pending_ranks = list(range(a.get("group_size")))
        a["backend"] = _STANDIN
        for k in ("pg_options", "backend_options"):
            if k in a:
                a[k] = None
        if "device_id" in a:
            a["device_id"] = None
        if a.get("group_rank") is None or a.get("group_rank") < 0:  # not a member: torch makes no group, say what was created
            recorder.group(state.pending_ranks, -1, state.pending_name, state.pending_desc, state.pending_asked)
        made = helper(*bound.args, **bound.kwargs)
        pg = made[0] if isinstance(made, tuple) else made  # torch 2.x: (group, store)
        if pg is not None and pg not in asked:
            asked[pg] = state.pending_asked
        return made

    c10d._new_process_group_helper = new_process_group_helper

    init = c10d.init_process_group
    init_sig = inspect.signature(init)

    @functools.wraps(init)
    def init_process_group(*args, **kwargs):
        bound = init_sig.bind(*args, **kwargs)
        a = bound.arguments
        import torch

        late_setup()
        state.world_backend = _asked_name(a.get("backend"))
        recorder.world(state.world_backend, torch.__version__)
        a["backend"] = _STANDIN
        a["init_method"] = None
        a["world_size"] = state.world_size
        a["rank"] = state.rank
        if a.get("store") is None:
            from torch._C._distributed_c10d import HashStore

            a["store"] = HashStore()
        for k in ("pg_options", "device_id"):
            if k in a:
                a[k] = None
        return init(*bound.args, **bound.kwargs)

    c10d.init_process_group = init_process_group

    if hasattr(c10d, "_store_based_barrier"):
        c10d._store_based_barrier = lambda *a, **k: None

    get_backend = c10d.get_backend

    @functools.wraps(get_backend)
    def patched_get_backend(group=None):
        name = get_backend(group)
        if str(name).lower() != _STANDIN:
            return name
        pg = group if group is not None else c10d._get_default_group()
        want = asked.get(pg, state.world_backend)
        return c10d.Backend(want) if want not in ("default", "undefined") and hasattr(c10d.Backend, want.upper()) else name

    c10d.get_backend = patched_get_backend

    destroy = c10d.destroy_process_group

    @functools.wraps(destroy)
    def destroy_process_group(group=None):
        recorder.flush()
        return destroy(group)

    c10d.destroy_process_group = destroy_process_group


def _patch_backward(recorder):
    """backward(): the end of a backward pass waits for ops whose future DDP took."""
    import torch

    from . import standin

    backward = torch.autograd.backward

    @functools.wraps(backward)
    def patched_backward(*args, **kwargs):
        out = backward(*args, **kwargs)
        pending = recorder.unwaited_futures()
        if pending:
            t = time.time_ns()
            by_device = {}
            for op, dev in pending.items():
                by_device.setdefault(dev, []).append(op)
            for dev, ops in by_device.items():
                recorder.wait(sorted(ops), "backward_end", standin._current_where(dev), t, t, dev is None or dev < 0)
        return out

    torch.autograd.backward = patched_backward
