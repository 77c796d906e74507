# The stand-in's compiled path: standin_backend.cpp built against the torch in use (once per torch
# version and source, cached), so that collectives called from C++ (DDP's reducer, FSDP, the
# functional collectives) are recorded without entering Python. load() says which path this
# process takes and why; the choice is made here alone:
#   PARASCOPE_WORLD_BACKEND=python    the Python StandInGroup (standin.py), always;
#   PARASCOPE_WORLD_BACKEND=compiled  the compiled backend, or a RuntimeError saying why not;
#   unset or auto                     the compiled backend where it builds, else the Python one.
# It needs torch >= 2.1 (c10d::Backend), a C++ compiler and ninja (torch.utils.cpp_extension);
# the cache is $PARASCOPE_CACHE_DIR, else $XDG_CACHE_HOME/parascope, else ~/.cache/parascope.
import hashlib
import os
import sys
import time

_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "standin_backend.cpp")
_loaded = None  # (module or None, why)


def _cache_root():
    root = os.environ.get("PARASCOPE_CACHE_DIR")
    if not root:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(base, "parascope")
    return os.path.join(root, "standin")


def _version(torch):
    parts = []
    for p in torch.__version__.split("+")[0].split(".")[:2]:
        digits = "".join(ch for ch in p if ch.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


def _build(torch):
    from torch.utils import cpp_extension

    with open(_SOURCE, "rb") as f:
        src = f.read()
    cuda = bool(getattr(torch.version, "cuda", None)) and cpp_extension.CUDA_HOME is not None
    key = hashlib.sha256(src + torch.__version__.encode() + sys.version.encode() + (b"cuda" if cuda else b"cpu")).hexdigest()[:16]
    name = "parascope_standin_" + key
    build_dir = os.path.join(_cache_root(), name)
    os.makedirs(build_dir, exist_ok=True)
    if not os.path.exists(os.path.join(build_dir, name + ".so")):
        sys.stderr.write("parascope: building the compiled stand-in for torch %s (once; cached in %s)\n"
                         % (torch.__version__, build_dir))
    t = time.monotonic()
    mod = cpp_extension.load(name=name, sources=[_SOURCE], build_directory=build_dir, with_cuda=cuda,
                             extra_cflags=["-O2"] + (["-DPARASCOPE_STANDIN_CUDA"] if cuda else []),
                             verbose=bool(os.environ.get("PARASCOPE_WORLD_BUILD_VERBOSE")))
    mod.build_seconds = time.monotonic() - t
    return mod


def load():
    """(module, why): the compiled backend, or None and why this process uses the Python one."""
    global _loaded
    if _loaded is not None:
        return _loaded
    want = (os.environ.get("PARASCOPE_WORLD_BACKEND") or "auto").lower()
    if want not in ("auto", "compiled", "python"):
        raise ValueError("PARASCOPE_WORLD_BACKEND=%s: want auto, compiled or python" % want)
    if want == "python":
        _loaded = (None, "PARASCOPE_WORLD_BACKEND=python")
        return _loaded
    import torch
    import torch.distributed  # noqa: F401  (registers c10d's Python types the module's functions return)

    why = None
    if _version(torch) < (2, 1):
        why = "torch %s has no c10d Backend class (the compiled path needs torch >= 2.1)" % torch.__version__
    else:
        try:
            mod = _build(torch)
        except Exception as e:  # a missing compiler, ninja or headers: the Python path still works
            why = "building standin_backend.cpp failed: %s" % (str(e).strip().splitlines() or ["?"])[-1]
        else:
            _loaded = (mod, "compiled for torch %s" % torch.__version__)
            return _loaded
    if want == "compiled":
        raise RuntimeError("PARASCOPE_WORLD_BACKEND=compiled: " + why)
    sys.stderr.write("parascope: the stand-in runs in Python (%s)\n" % why)
    _loaded = (None, why)
    return _loaded
