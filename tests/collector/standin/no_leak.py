# The stand-in keeps its last work objects alive (C++ may still wait on them) but not the program's
# output tensors: 3000 all_gather_into_tensor calls into fresh outputs (as ParallelKernelBench's
# references do in their timed loop), the outputs dropped, leave none of them alive, and a future
# taken while its output lives still hands it over. Exits 1 when outputs stay alive.
import gc
import sys
import weakref

import torch
import torch.distributed as dist

dist.init_process_group("gloo")
x = torch.ones(256)
refs = []
for _ in range(3000):
    out = torch.empty(256 * dist.get_world_size())
    work = dist.all_gather_into_tensor(out, x, async_op=True) if hasattr(dist, "all_gather_into_tensor") \
        else dist._all_gather_base(out, x, async_op=True)
    work.wait()
    refs.append(weakref.ref(out))
    del out, work
gc.collect()
alive = sum(r() is not None for r in refs)
if alive:
    sys.exit("%d of 3000 dropped collective outputs are still alive" % alive)
keep = torch.zeros(4)
fut = dist.all_reduce(keep, async_op=True).get_future()
got = fut.wait()
if not (isinstance(got, list) and len(got) == 1 and got[0] is keep):
    sys.exit("the future of a live output does not return it: %r" % (got,))
dist.destroy_process_group()
print("no leak: 0 of 3000 dropped outputs alive; a live output comes back through its future")
