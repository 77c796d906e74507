# PKB task 16_gemm_reducescatter: the partial GEMM (torch.matmul) writes straight into a symmetric
# buffer, then Parascope's pull reduce-scatter leaves each rank its rows of the sum. Written by
# `parascope-cli pkb solutions` (docs/pkb.md).
import os
import sys

import torch
import torch.distributed as dist

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import parascope_pkb_runtime as ps  # noqa: E402


@torch.no_grad()
def solution(A_local: torch.Tensor, B_local: torch.Tensor) -> torch.Tensor:
    a, b = A_local.contiguous(), B_local.contiguous()
    n = dist.get_world_size()
    m, n_cols = a.shape[0], b.shape[1]
    sym = ps.buffer("rs_in", m * n_cols * a.element_size(), a.device)
    partial = sym.view(a.dtype, (m, n_cols))
    torch.matmul(a, b, out=partial)
    out = partial.new_empty((m // n, n_cols))
    ps.reduce_scatter_pull(sym, out)
    return out
