# The stand-in's record stream (schema 1): what every collective, point-to-point call and wait of
# the program was, as JSON lines; the C++ side reads them (trace/io/standin_records.h) and that
# header is the schema's reference. Pure Python, no torch: the stream is built and flushed here,
# the torch-facing side (standin.py) only describes calls. Sinks, in order of preference: the
# collector injected by `parascope-cli record` (the lines become a chunk of its .pstrace, on the
# collector's clock, CLOCK_REALTIME ns), else the file named by PARASCOPE_WORLD_LOG, else memory
# (records()). Records are buffered and handed to the collector every 256 records, at
# destroy_process_group and at exit; without a collector they go to the file (or memory) at exit
# only, so one run's records never end up split between two sinks. A SIGKILL loses what was not
# handed over. With the compiled stand-in (compiled.py) its records come as JSON lines from C++
# (attach_compiled): they join the same pending list in the order they were made.
import atexit
import ctypes
import json
import os
import socket
import threading
import time

SCHEMA = 1


def thread_id():
    """The calling thread as CUPTI names it in API records: pthread_self() cut to 32 bits."""
    return threading.get_ident() & 0xFFFFFFFF
_FLUSH_EVERY = 256
_NO_STREAM = 0xFFFFFFFF


class _CollectorSink:
    """The collector library already loaded in this process (CUDA injection), or None."""

    def __init__(self, lib):
        self._lib = lib
        self._lib.parascope_collector_impl_submit_standin.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
        self._lib.parascope_collector_impl_submit_standin.restype = ctypes.c_int
        self._lib.parascope_collector_impl_stream_id.argtypes = [ctypes.c_uint64]
        self._lib.parascope_collector_impl_stream_id.restype = ctypes.c_uint32
        self._ids = {}

    @staticmethod
    def find():
        try:
            lib = ctypes.CDLL("libparascope_cupti.so", mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
        except OSError:
            return None
        if not hasattr(lib, "parascope_collector_impl_submit_standin"):
            return None
        return _CollectorSink(lib)

    def stream_id(self, handle):
        sid = self._ids.get(handle)
        if sid is None:
            sid = int(self._lib.parascope_collector_impl_stream_id(ctypes.c_uint64(handle)))
            if sid != _NO_STREAM:  # not known yet (no context): ask again next time
                self._ids[handle] = sid
        return None if sid == _NO_STREAM else sid

    def write(self, text):
        data = text.encode("utf-8")
        return self._lib.parascope_collector_impl_submit_standin(data, len(data)) == 1


class _FileSink:
    def __init__(self, path):
        self._path = path

    def stream_id(self, handle):
        return None

    def write(self, text):
        with open(self._path, "a", encoding="utf-8") as f:
            f.write(text)
        return True


class Recorder:
    """One per process. Thread-safe; ids and sequence numbers are per process."""

    def __init__(self, rank, world_size, log_path=None):
        self.rank = rank
        self.world_size = world_size
        self._lock = threading.Lock()
        self._pending = []
        self._kept = []  # everything, when no sink takes it (tests read records())
        self._next_op = 1
        self._next_group = 0
        self._seq = {}
        self._collector = None
        self._collector_looked = 0.0
        self._look_every = 0.5
        self._looked_with_cuda = False
        self._file = _FileSink(log_path) if log_path else None
        self._head_written = False
        self._futures = {}  # op id -> (device) of works whose future was taken and not yet waited
        self._compiled = None  # the compiled stand-in's module, when its backends record
        self.impl = "python"
        self.impl_why = ""
        atexit.register(self.close)

    def attach_compiled(self, module, why):
        """The compiled backends' records (C++) join this recorder's stream."""
        self._compiled = module
        self.impl = "compiled"
        self.impl_why = why
        module.set_sink(self._take_lines)

    def _take_lines(self, data):
        """JSON lines from the compiled backends (bytes), appended in the order they come."""
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        if not text:
            return
        with self._lock:
            self._pending.append(text)
        self._write_pending(False)

    # --- what the program did -------------------------------------------------------------

    def world(self, asked_backend, torch_version):
        self._add({"k": "world", "v": SCHEMA, "rank": self.rank, "world_size": self.world_size,
                   "pid": os.getpid(), "host": socket.gethostname(), "asked_backend": asked_backend,
                   "torch": torch_version, "standin": self.impl, "standin_why": self.impl_why, "t0": time.time_ns()})

    def group(self, ranks, group_rank, name, desc, asked_backend):
        self._drain_compiled()  # the ops made before this group stay before it
        with self._lock:
            gid = self._next_group
            self._next_group += 1
        self._add({"k": "group", "id": gid, "ranks": list(ranks), "rank": group_rank, "name": name,
                   "desc": desc, "asked_backend": asked_backend, "t0": time.time_ns()})
        return gid

    def op(self, fields, collective):
        """fields: op, group, ... (see standin_records.h); returns the op id."""
        with self._lock:
            oid = self._next_op
            self._next_op += 1
            if collective:
                g = fields["group"]
                seq = self._seq.get(g, 0)
                self._seq[g] = seq + 1
            else:
                seq = -1
        fields["k"] = "op"
        fields["id"] = oid
        fields["seq"] = seq
        self._add(fields)
        return oid

    def sequence(self, gid):
        with self._lock:
            return self._seq.get(gid, 0)

    def wait(self, op_ids, how, where, t0, t1, blocking):
        """where: (device, stream handle) of the waiting side; device -1 for CPU."""
        device, stream = where
        if self._compiled is not None:  # in the compiled stream, with the ops it names
            self._compiled.record_wait(list(op_ids), how, device, t0, t1, bool(blocking))
            return
        rec = {"k": "wait", "ops": list(op_ids), "how": how, "device": device, "tid": thread_id(),
               "t0": t0, "t1": t1, "blocking": bool(blocking)}
        self._stream_fields(rec, stream)
        with self._lock:
            for o in op_ids:
                self._futures.pop(o, None)
        self._add(rec)

    def future_taken(self, op_ids, device):
        with self._lock:
            for o in op_ids:
                self._futures[o] = device

    def unwaited_futures(self):
        """Ops whose future was handed out (DDP's comm hooks) and never waited where we could see it."""
        with self._lock:
            got = dict(self._futures)
        if self._compiled is not None:
            got.update(self._compiled.unwaited_futures())
        return got

    def stream_fields(self, rec, stream):
        self._stream_fields(rec, stream)

    # --- plumbing -----------------------------------------------------------------------------

    def _stream_fields(self, rec, stream):
        if stream is None:
            return
        rec["stream"] = stream
        # a stream means CUDA is up, and an injected collector loads with CUDA: look once now
        sink = self._sink(force=not self._looked_with_cuda)
        self._looked_with_cuda = True
        sid = sink.stream_id(stream) if sink else None
        if sid is not None:
            rec["stream_id"] = sid

    def _sink(self, force=False):
        """The collector once it is in the process (it loads with CUDA); None before. A look is a
        failing dlopen (tens of us, on a host-bound step's path when it comes from a DDP hook), so
        while none is found the looks thin out: 0.5 s apart, doubling to 30 s; force looks now."""
        if self._collector is None:
            now = time.monotonic()
            if force or now - self._collector_looked > self._look_every:
                self._collector_looked = now
                self._collector = _CollectorSink.find()
                if self._collector is None and not force:
                    self._look_every = min(self._look_every * 2, 30.0)
        return self._collector

    def _add(self, rec):
        with self._lock:
            self._pending.append(rec)
            full = len(self._pending) >= _FLUSH_EVERY
        if full:
            self.flush()

    def _drain_compiled(self):
        if self._compiled is not None:
            self._compiled.flush()  # -> _take_lines
            self._take_lines(self._compiled.take_orphans())  # lines it could not hand over (none, normally)

    def flush(self, final=False):
        self._drain_compiled()
        self._write_pending(final)

    def _write_pending(self, final):
        sink = self._sink(force=final)
        if sink is None and not final:
            return  # kept until the collector appears or the program ends
        with self._lock:
            batch, self._pending = self._pending, []
        if not batch:
            return
        text = "".join(r if isinstance(r, str) else json.dumps(r, separators=(",", ":")) + "\n" for r in batch)
        for s in (sink, self._file):
            if s is not None and s.write(text):
                return
        for r in batch:
            if isinstance(r, str):
                self._kept.extend(json.loads(line) for line in r.splitlines() if line)
            else:
                self._kept.append(r)

    def close(self):
        self.flush(final=True)

    def records(self):
        """What no sink took (tests without a collector or log file)."""
        self.flush(final=True)
        return list(self._kept)
