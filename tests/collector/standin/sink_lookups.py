#!/usr/bin/env python3
"""The stand-in's recorder looks for the collector (a failing dlopen, tens of us each) less and
less often while none is loaded: calls 0.5 s apart, doubling to 30 s; the first call that sees a
CUDA stream, and the final flush, look at once. Pure Python (records.py needs no torch): the clock
and the look are replaced here."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "trace", "collector",
                                "python"))
from parascope_world import records  # noqa: E402

clock = [1000.0]
looks = []
records.time.monotonic = lambda: clock[0]
records._CollectorSink.find = staticmethod(lambda: looks.append(clock[0]) or None)

r = records.Recorder(0, 8, None)
op = {"op": "all_reduce", "group": 0, "dtype": "float32", "elem_bytes": 4, "in_elems": 1, "out_elems": 1,
      "tensors": 1, "device": 0, "tid": 1, "t0": 0, "t1": 0}
# one call every 10 ms for 120 s, each from a CUDA stream, as DDP's hooks in a training loop
for i in range(12000):
    clock[0] = 1000.0 + i * 0.01
    rec = dict(op)
    r.stream_fields(rec, 0x1234)
    r.op(rec, True)
n_calls = len(looks)
gaps = [round(b - a, 2) for a, b in zip(looks, looks[1:])]
print("looks in 120 s of 12000 calls: %d, gaps %s" % (n_calls, gaps))
ok = True
if looks[0] != 1000.0:
    print("FAIL: the first call with a CUDA stream did not look at once")
    ok = False
if n_calls > 12:
    print("FAIL: %d looks (want at most 12: 0.5 s doubling to 30 s over 120 s)" % n_calls)
    ok = False
if any(g > 30.02 for g in gaps) or gaps[:3] != sorted(gaps[:3]):
    print("FAIL: looks not thinning out to at most 30 s apart")
    ok = False
before = len(looks)
r.close()  # the final flush looks now, whatever the interval
if len(looks) != before + 1:
    print("FAIL: the final flush did not look for the collector")
    ok = False
sys.exit(0 if ok else 1)
