"""Parascope's kernels for ParallelKernelBench "cuda" solutions (written by `parascope-cli pkb solutions`).

The collectives of libparascope_pkb_kernels.so (kernels/pkb/pkb_kernels.h) through ctypes: every
rank is its own process, and torch symmetric memory gives each rank the device address of its
peers' buffers (symm_mem.empty + symm_mem.rendezvous, as PKB's cuda backend expects). Buffers are
allocated on first use and kept, so every rank must make the same calls in the same order, which
PKB's worker does. Set PARASCOPE_PKB_KERNELS to use another build of the library.
"""
import ctypes
import os

import torch
import torch.distributed as dist
import torch.distributed._symmetric_memory as symm_mem

LIB_PATH = os.environ.get("PARASCOPE_PKB_KERNELS", "@PARASCOPE_PKB_KERNELS@")
ABI_VERSION = 1

_lib = None
_buffers = {}


def lib():
    global _lib
    if _lib is None:
        c_int, c_u64 = ctypes.c_int, ctypes.c_uint64
        u64p = ctypes.POINTER(c_u64)
        lb = ctypes.CDLL(LIB_PATH)
        lb.parascope_pkb_abi_version.restype = c_int
        lb.parascope_pkb_sync_bytes.restype = c_u64
        lb.parascope_pkb_last_error.restype = ctypes.c_char_p
        lb.parascope_pkb_preload.restype = c_int
        lb.parascope_pkb_all_reduce.argtypes = [c_int, c_int, c_int, u64p, u64p, u64p, u64p, c_int, c_u64, c_int, c_u64]
        lb.parascope_pkb_all_gather.argtypes = [c_int, c_int, u64p, u64p, u64p, c_u64, c_int, c_u64]
        lb.parascope_pkb_reduce_scatter.argtypes = [c_int, c_int, u64p, u64p, u64p, c_int, c_u64, c_int, c_u64]
        lb.parascope_pkb_all_to_all.argtypes = [c_int, c_int, u64p, u64p, u64p, c_u64, c_int, c_u64]
        for f in ("all_reduce", "all_gather", "reduce_scatter", "all_to_all"):
            getattr(lb, "parascope_pkb_" + f).restype = c_int
        if lb.parascope_pkb_abi_version() != ABI_VERSION:
            raise RuntimeError(f"{LIB_PATH}: ABI {lb.parascope_pkb_abi_version()}, expected {ABI_VERSION}")
        _check(lb, lb.parascope_pkb_preload())
        _lib = lb
    return _lib


def _check(lb, rc):
    if rc != 0:
        raise RuntimeError("parascope kernel: " + lb.parascope_pkb_last_error().decode())


class Symmetric:
    """One symmetric allocation of `nbytes` on every rank, with every rank's address of it."""

    def __init__(self, nbytes, device):
        self.tensor = symm_mem.empty(nbytes, dtype=torch.uint8, device=device)
        self.handle = symm_mem.rendezvous(self.tensor, dist.group.WORLD)
        self.ptrs = (ctypes.c_uint64 * dist.get_world_size())(*[int(p) for p in self.handle.buffer_ptrs])

    def view(self, dtype, shape):
        numel = 1
        for s in shape:
            numel *= s
        return self.tensor.view(dtype)[:numel].view(shape)


def buffer(name, nbytes, device):
    b = _buffers.get(name)
    if b is None or b.tensor.numel() < nbytes:
        b = Symmetric(nbytes, device)
        _buffers[name] = b
    return b


def sync_area(device):
    b = _buffers.get("sync")
    if b is None:
        b = Symmetric(int(lib().parascope_pkb_sync_bytes()), device)
        b.tensor.zero_()
        torch.cuda.synchronize()
        dist.barrier()
        _buffers["sync"] = b
    return b


def local(t):
    """A rank-local tensor as a pointer array: only this rank's entry is read."""
    a = (ctypes.c_uint64 * dist.get_world_size())()
    a[dist.get_rank()] = t.data_ptr()
    return a


def _dtype(t):
    if t.dtype == torch.bfloat16:
        return 1
    if t.dtype == torch.float32:
        return 0
    raise TypeError(f"Parascope's kernels reduce float32 and bfloat16, not {t.dtype}")


def _stream():
    return torch.cuda.current_stream().cuda_stream


def all_reduce_pull(sym_in, out):
    """out = sum over ranks of sym_in (a Symmetric view of `out`'s size): one-shot pull."""
    lb, n, r = lib(), dist.get_world_size(), dist.get_rank()
    sync = sync_area(out.device)
    _check(lb, lb.parascope_pkb_all_reduce(0, r, n, sym_in.ptrs, local(out), None, sync.ptrs, _dtype(out),
                                           out.numel() * out.element_size(), 0, _stream()))


def all_gather_push(x, sym_out):
    """sym_out (n blocks of x's size) = every rank's x: LD/ST push."""
    lb, n, r = lib(), dist.get_world_size(), dist.get_rank()
    sync = sync_area(x.device)
    _check(lb, lb.parascope_pkb_all_gather(r, n, local(x), sym_out.ptrs, sync.ptrs, x.numel() * x.element_size() * n, 0,
                                           _stream()))


def reduce_scatter_pull(sym_in, out):
    """out (1/n of sym_in) = this rank's block of the sum over ranks: one pass of pulls."""
    lb, n, r = lib(), dist.get_world_size(), dist.get_rank()
    sync = sync_area(out.device)
    _check(lb, lb.parascope_pkb_reduce_scatter(r, n, sym_in.ptrs, local(out), sync.ptrs, _dtype(out),
                                               out.numel() * out.element_size() * n, 0, _stream()))


def all_to_all_push(x, sym_out):
    """sym_out block p of rank r = block r of rank p's x: LD/ST push."""
    lb, n, r = lib(), dist.get_world_size(), dist.get_rank()
    sync = sync_area(x.device)
    _check(lb, lb.parascope_pkb_all_to_all(r, n, local(x), sym_out.ptrs, sync.ptrs, x.numel() * x.element_size(), 0,
                                           _stream()))
