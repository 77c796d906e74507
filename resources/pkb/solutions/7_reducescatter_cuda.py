# PKB task 7_reducescatter with Parascope's pull reduce-scatter (kernels/bench/collectives.cu),
# written by `parascope-cli pkb solutions` (docs/pkb.md). The input is copied into a symmetric
# buffer; each rank reads its chunk of every rank's copy and sums it in one pass.
import os
import sys

import torch
import torch.distributed as dist

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import parascope_pkb_runtime as ps  # noqa: E402


@torch.no_grad()
def solution(tensor: torch.Tensor) -> torch.Tensor:
    x = tensor.contiguous()
    n = dist.get_world_size()
    sym = ps.buffer("rs_in", x.numel() * x.element_size(), x.device)
    sym.view(x.dtype, x.shape).copy_(x)
    out = x.new_empty((x.shape[0] // n,) + tuple(x.shape[1:]))
    ps.reduce_scatter_pull(sym, out)
    return out
