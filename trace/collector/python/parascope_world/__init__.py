# parascope_world: runs an unmodified torch.distributed program as rank R of a world of N on one
# GPU (`parascope-cli record --world N --rank R -- python train.py`). Every process group is a
# stand-in (compiled.py: standin_backend.cpp where it builds, else standin.py) that records each
# collective, point-to-point call and wait
# (records.py) and moves no data; compute runs for real and the collector times it. What it
# changes in torch.distributed is listed in patches.py. Started by sitecustomize.py from the
# environment `record` sets; activate() is the same for a program that imports it itself.
import os

from . import patches
from .records import Recorder

__all__ = ["activate", "activate_from_env", "recorder"]


class _State:
    def __init__(self, recorder, rank, world_size):
        self.recorder = recorder
        self.rank = rank
        self.world_size = world_size
        self.world_backend = "default"
        self.pending_asked = "default"
        self.pending_ranks = None
        self.pending_name = ""
        self.pending_desc = ""
        self.compiled = None  # compiled.py's module once the first group is made with it


_state = None


def activate(world_size, rank, log_path=None):
    """Makes every process group of this process a stand-in for rank `rank` of `world_size`."""
    global _state
    if _state is not None:
        return _state.recorder
    if not 0 <= rank < world_size:
        raise ValueError("rank %d is outside a world of %d" % (rank, world_size))
    _state = _State(Recorder(rank, world_size, log_path), rank, world_size)
    patches.install(_state)
    return _state.recorder


def activate_from_env():
    n = int(os.environ["PARASCOPE_WORLD_SIZE"])
    r = int(os.environ.get("PARASCOPE_WORLD_RANK", "0"))
    return activate(n, r, os.environ.get("PARASCOPE_WORLD_LOG") or None)


def recorder():
    return _state.recorder if _state else None
