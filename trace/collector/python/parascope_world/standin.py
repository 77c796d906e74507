# The stand-in process group: a torch.distributed ProcessGroup written in Python (the pybind
# trampoline PyProcessGroup makes its methods visible to C++ callers: DDP's reducer, the functional
# collectives) that records every call and returns work that is already complete. No data moves;
# outputs keep what they held, except outputs of at most PARASCOPE_WORLD_FILL_BYTES (default 65536)
# that a peer would have written: they get this rank's own contribution (an all-gather of sizes
# or of pickled objects then holds N copies of ours), so object collectives and split-size
# exchanges stay usable. Works on torch 1.13 and 2.x (same Python method names; the 2.x
# coalesced variants are extra methods).
import collections
import os
import threading
import time
import weakref

import torch
import torch.distributed as dist

from .records import thread_id

_FILL_BYTES = int(os.environ.get("PARASCOPE_WORLD_FILL_BYTES", "65536"))
# C++ holds only the C++ half of a work object; while the Python half lives, C++'s wait() reaches
# StandInWork.wait (torch 1.13 keeps nothing else alive: a collected one makes C++ wait forever).
_KEEP_WORKS = 1 << 16
_call = threading.local()


def _now():
    return time.time_ns()


def _bytes_of(t):
    return t.numel() * t.element_size()


# the current stream's cudaStream_t as an int, without building a torch.cuda.Stream per call (the
# stand-in runs inside DDP's backward hooks: its per-call cost is on a host-bound step's path)
_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)


def _stream_handle(device):
    if _raw_stream is not None:
        return _raw_stream(device)
    return torch.cuda.current_stream(device).cuda_stream


def _where(t):
    """(device, stream handle) a call on tensor t is issued from; (-1, None) on the CPU."""
    if t is not None and t.is_cuda:
        dev = t.get_device()
        return dev, _stream_handle(dev)
    return -1, None


def _current_where(device):
    if device is not None and device >= 0:
        return device, _stream_handle(device)
    return -1, None


def _describe(inputs, outputs):
    """dtype, element bytes, elements in, elements out (bytes when the dtypes differ)."""
    if len(inputs) == 1 and len(outputs) == 1 and inputs[0].dtype == outputs[0].dtype:  # the common case
        t = inputs[0]
        return _dtype_name(t.dtype), t.element_size(), t.numel(), outputs[0].numel()
    tensors = [t for t in list(inputs) + list(outputs) if t is not None]
    dtypes = {t.dtype for t in tensors}
    if len(dtypes) <= 1:
        t0 = tensors[0] if tensors else None
        eb = t0.element_size() if t0 is not None else 1
        return (str(t0.dtype).replace("torch.", "") if t0 is not None else "none", eb,
                sum(t.numel() for t in inputs if t is not None), sum(t.numel() for t in outputs if t is not None))
    return ("mixed", 1, sum(_bytes_of(t) for t in inputs if t is not None),
            sum(_bytes_of(t) for t in outputs if t is not None))


_reduce_names = {}


_dtype_names = {}


def _dtype_name(dtype):
    name = _dtype_names.get(dtype)
    if name is None:
        name = _dtype_names[dtype] = str(dtype).replace("torch.", "")
    return name


def _reduce_name(opts):
    """"sum", "avg", ... from ReduceOp.op (a RedOpType on torch 1.13 and 2.x)."""
    op = getattr(opts, "reduceOp", None)
    if op is None:
        return None
    kind = getattr(op, "op", None)
    name = _reduce_names.get(kind)
    if name is None:
        name = str(kind).rsplit(".", 1)[-1].lower() if kind is not None else "other"
        _reduce_names[kind] = name
    return name


def _fill(dst, src):
    """dst gets src's values when a peer would have written dst and it is small."""
    if dst is src or _bytes_of(dst) > _FILL_BYTES or dst.numel() == 0:
        return
    with torch.no_grad():
        flat_dst = dst.view(-1) if dst.is_contiguous() else None
        if flat_dst is None:
            return
        s = src.reshape(-1).to(dst.dtype)
        n = min(flat_dst.numel(), s.numel())
        if n:
            for off in range(0, flat_dst.numel(), n):
                k = min(n, flat_dst.numel() - off)
                flat_dst[off:off + k].copy_(s[:k])


def _weak(result):
    """result (tensors, or lists of them) as weak references: a work object outlives the call (the
    group keeps the last _KEEP_WORKS alive for C++'s sake) but must not keep the program's output
    tensors alive: PKB's references allocate fresh outputs per call, and holding 600 iterations'
    worth ran a 139 GiB H200 out of memory at N = 8."""
    if isinstance(result, torch.Tensor):
        return weakref.ref(result)
    if isinstance(result, (list, tuple)):
        return [_weak(r) for r in result]
    return result


def _strong(refs):
    """The tensors of _weak(...) still alive (a dropped one is gone from the list)."""
    if isinstance(refs, weakref.ref):
        return refs()
    if not isinstance(refs, list):
        return refs
    out = []
    for r in refs:
        t = _strong(r)
        if t is not None:
            out.append(t)
    return out


class StandInWork(dist._Work):
    """Complete work. wait() and the future's wait() are recorded (where the program waited)."""

    def __init__(self, group, op_ids, result, device):
        super().__init__()
        self._group = group
        self._ops = op_ids
        self._result = _weak(result)
        self._device = device

    def wait(self, timeout=None):
        t0 = _now()
        self._group._recorder.wait(self._ops, "wait", _current_where(self._device), t0, _now(),
                                   self._device is None or self._device < 0 or self._group._barrier_ops(self._ops))
        return True

    def get_future(self):
        fut = _RecordedFuture(self._group, self._ops, self._device)
        self._group._recorder.future_taken(self._ops, self._device)
        fut.set_result(_strong(self._result))
        return fut

    def is_completed(self):
        return True

    def is_success(self):
        return True

    def exception(self):
        return None

    def source_rank(self):
        return self._group._last_source

    def _source_rank(self):
        return self._group._last_source

    def result(self):
        return _strong(self._result)

    def synchronize(self):
        self.wait()


class _RecordedFuture(torch.futures.Future):
    """A future whose wait() from Python is recorded; C++ waits on it (DDP's reducer) are not
    visible: those ops are waited at the end of the backward pass (patches.py)."""

    def __init__(self, group, ops, device):
        super().__init__()
        self._pg = group
        self._ops = ops
        self._dev = device

    def wait(self):
        t0 = _now()
        self._pg._recorder.wait(self._ops, "future", _current_where(self._dev), t0, _now(), self._dev is None or self._dev < 0)
        return super().wait()


class StandInGroup(dist.ProcessGroup):
    """Rank `rank` of a group of `size`; `ranks` are the global ranks, in group-rank order."""

    def __init__(self, recorder, rank, size, ranks, gid, asked_backend):
        super().__init__(rank, size)
        self._recorder = recorder
        self._rank = rank
        self._size = size
        self._ranks = list(ranks)
        self._gid = gid
        self._asked = asked_backend
        self._coalescing = None  # op ids issued between _start_coalescing and _end_coalescing
        self._barriers = set()
        self._last_source = -1
        self._alive = collections.deque(maxlen=_KEEP_WORKS)
        self._group_name = ""
        self._group_desc = ""

    # --- identity -------------------------------------------------------------------------

    def size(self):
        return self._size

    def rank(self):
        return self._rank

    def getBackendName(self):
        return "parascope"

    def name(self):
        return "parascope"

    # torch 2.x: a group's name is its backend's unless the Python class answers (the functional
    # collectives resolve groups by name)
    def getGroupName(self):
        return self._group_name

    def getGroupDesc(self):
        return self._group_desc

    def _set_group_name(self, name):
        self._group_name = name

    def _set_group_desc(self, desc):
        self._group_desc = desc

    def __repr__(self):
        return "StandInGroup(rank %d of %d, ranks %s)" % (self._rank, self._size, self._ranks)

    # get_backend() answers the backend the program asked for, so torch's own code may treat the
    # group as that backend's: what it then asks of it
    def _set_sequence_number_for_group(self):
        pass

    def _get_sequence_number_for_group(self):
        return self._recorder.sequence(self._gid)

    def _get_backend(self, device=None):
        return self

    def _barrier_ops(self, ops):
        return any(o in self._barriers for o in ops)

    # --- recording ------------------------------------------------------------------------

    def _record(self, op, inputs, outputs, collective=True, **extra):
        first = next((t for t in list(inputs) + list(outputs) if t is not None), None)
        device, stream = _where(first)
        dtype, eb, n_in, n_out = _describe(inputs, outputs)
        rec = {"op": op, "group": self._gid, "dtype": dtype, "elem_bytes": eb, "in_elems": n_in, "out_elems": n_out,
               "tensors": max(len(inputs), len(outputs)), "device": device, "tid": thread_id(),
               "t0": _call.t0}
        rec.update({k: v for k, v in extra.items() if v is not None})
        if self._coalescing is not None:
            rec["coalesced"] = self._coalescing[0]
        self._recorder.stream_fields(rec, stream)
        rec["t1"] = _now()
        oid = self._recorder.op(rec, collective)
        if self._coalescing is not None:
            self._coalescing[1].append(oid)
        return oid, device

    def _work(self, oid, device, result):
        return self._keep(StandInWork(self, [oid], result, device))

    def _keep(self, work):
        self._alive.append(work)
        return work

    def _begin(self):
        _call.t0 = _now()  # per thread: the call being recorded started here

    # --- collectives ----------------------------------------------------------------------

    def allreduce(self, tensors, opts=None):
        self._begin()
        oid, dev = self._record("all_reduce", tensors, tensors, reduce=_reduce_name(opts))
        return self._work(oid, dev, tensors)

    def allreduce_coalesced(self, tensors, opts=None):
        self._begin()
        oid, dev = self._record("all_reduce_coalesced", tensors, tensors, reduce=_reduce_name(opts))
        return self._work(oid, dev, tensors)

    def broadcast(self, tensors, opts=None):
        self._begin()
        root = getattr(opts, "rootRank", 0) if opts is not None else 0
        oid, dev = self._record("broadcast", tensors, tensors, root=root)
        return self._work(oid, dev, tensors)

    def reduce(self, tensors, opts=None):
        self._begin()
        root = getattr(opts, "rootRank", 0) if opts is not None else 0
        oid, dev = self._record("reduce", tensors, tensors, root=root, reduce=_reduce_name(opts))
        return self._work(oid, dev, tensors)

    def allgather(self, output_lists, inputs, opts=None):
        self._begin()
        outs = [t for lst in output_lists for t in lst]
        oid, dev = self._record("all_gather", inputs, outs)
        for lst, src in zip(output_lists, inputs):
            for o in lst:
                _fill(o, src)
        return self._work(oid, dev, output_lists)

    def allgather_coalesced(self, output_lists, inputs, opts=None):
        self._begin()
        outs = [t for lst in output_lists for t in lst]
        oid, dev = self._record("all_gather_coalesced", inputs, outs)
        return self._work(oid, dev, output_lists)

    def _allgather_base(self, output, input, opts=None):
        self._begin()
        oid, dev = self._record("all_gather_into_tensor", [input], [output])
        _fill(output, input)
        return self._work(oid, dev, [output])

    def allgather_into_tensor_coalesced(self, outputs, inputs, opts=None):
        self._begin()
        oid, dev = self._record("all_gather_into_tensor_coalesced", inputs, outputs)
        for o, i in zip(outputs, inputs):
            _fill(o, i)
        return self._work(oid, dev, outputs)

    def reduce_scatter(self, outputs, input_lists, opts=None):
        self._begin()
        ins = [t for lst in input_lists for t in lst]
        oid, dev = self._record("reduce_scatter", ins, outputs, reduce=_reduce_name(opts))
        for o, lst in zip(outputs, input_lists):
            if lst:
                _fill(o, lst[min(self._rank, len(lst) - 1)])
        return self._work(oid, dev, outputs)

    def _reduce_scatter_base(self, output, input, opts=None):
        self._begin()
        oid, dev = self._record("reduce_scatter_tensor", [input], [output], reduce=_reduce_name(opts))
        n = output.numel()
        if n and input.numel() >= (self._rank + 1) * n and input.is_contiguous():
            _fill(output, input.reshape(-1)[self._rank * n:(self._rank + 1) * n])
        return self._work(oid, dev, [output])

    def reduce_scatter_tensor_coalesced(self, outputs, inputs, opts=None):
        self._begin()
        oid, dev = self._record("reduce_scatter_tensor_coalesced", inputs, outputs, reduce=_reduce_name(opts))
        return self._work(oid, dev, outputs)

    def alltoall_base(self, output, input, output_split_sizes, input_split_sizes, opts=None):
        self._begin()
        rows_in = input.shape[0] if input.dim() else 1
        row = input.numel() // rows_in if rows_in else 0
        splits_in = [int(s) * row for s in input_split_sizes] if input_split_sizes else None
        rows_out = output.shape[0] if output.dim() else 1
        row_out = output.numel() // rows_out if rows_out else 0
        splits_out = [int(s) * row_out for s in output_split_sizes] if output_split_sizes else None
        oid, dev = self._record("all_to_all_single", [input], [output], in_splits=splits_in, out_splits=splits_out)
        if output.numel() == input.numel():
            _fill(output, input)
        return self._work(oid, dev, [output])

    def alltoall(self, outputs, inputs, opts=None):
        self._begin()
        oid, dev = self._record("all_to_all", inputs, outputs, in_splits=[t.numel() for t in inputs],
                                out_splits=[t.numel() for t in outputs])
        for o, i in zip(outputs, inputs):
            if o.numel() == i.numel():
                _fill(o, i)
        return self._work(oid, dev, outputs)

    def gather(self, output_lists, inputs, opts=None):
        self._begin()
        root = getattr(opts, "rootRank", 0) if opts is not None else 0
        outs = [t for lst in output_lists for t in lst]
        oid, dev = self._record("gather", inputs, outs, root=root)
        return self._work(oid, dev, output_lists)

    def scatter(self, outputs, input_lists, opts=None):
        self._begin()
        root = getattr(opts, "rootRank", 0) if opts is not None else 0
        ins = [t for lst in input_lists for t in lst]
        oid, dev = self._record("scatter", ins, outputs, root=root)
        return self._work(oid, dev, outputs)

    def barrier(self, opts=None):
        self._begin()
        dev = None
        ids = getattr(opts, "device_ids", None) if opts is not None else None
        if ids:
            dev = ids[0]
        elif torch.cuda.is_available() and torch.cuda.is_initialized():
            dev = torch.cuda.current_device()
        where = _current_where(dev)
        rec = {"op": "barrier", "group": self._gid, "dtype": "none", "elem_bytes": 0, "in_elems": 0, "out_elems": 0,
               "tensors": 0, "device": where[0], "tid": thread_id(), "t0": _call.t0}
        self._recorder.stream_fields(rec, where[1])
        rec["t1"] = _now()
        oid = self._recorder.op(rec, True)
        self._barriers.add(oid)
        return self._keep(StandInWork(self, [oid], [], where[0]))

    def monitored_barrier(self, timeout=None, wait_all_ranks=False):
        self.barrier().wait()

    # --- point to point (peers are group ranks) -------------------------------------------

    def send(self, tensors, dst, tag=0):
        self._begin()
        oid, dev = self._record("send", tensors, [], collective=False, peer=int(dst), peer_global=self._global(dst), tag=int(tag))
        return self._work(oid, dev, tensors)

    def recv(self, tensors, src, tag=0):
        self._begin()
        oid, dev = self._record("recv", [], tensors, collective=False, peer=int(src), peer_global=self._global(src), tag=int(tag))
        self._last_source = int(src)
        return self._work(oid, dev, tensors)

    def recv_anysource(self, tensors, tag=0):
        self._begin()
        # no peer can be known: the previous group rank (a ring) is the guess, and it is marked as one
        src = (self._rank - 1) % self._size
        oid, dev = self._record("recv", [], tensors, collective=False, peer=src, peer_global=self._global(src), tag=int(tag),
                                peer_guessed=True)
        self._last_source = src
        return self._work(oid, dev, tensors)

    def _global(self, group_rank):
        return self._ranks[group_rank] if 0 <= group_rank < len(self._ranks) else -1

    # --- coalescing (batch_isend_irecv, coalescing managers on torch 2.x) -------------------

    def _start_coalescing(self, device=None):
        self._coalescing_next = getattr(self, "_coalescing_next", 0) + 1
        self._coalescing = (self._coalescing_next, [])

    def _end_coalescing(self, device=None):
        block = self._coalescing
        self._coalescing = None
        ops = block[1] if block else []
        dev = device.index if device is not None and getattr(device, "type", "") == "cuda" else -1
        if dev is None:
            dev = torch.cuda.current_device()
        return self._keep(StandInWork(self, ops, [], dev))
