# PKB task 12_allgather_gemm: Parascope's LD/ST push all-gather of A's column blocks, then one
# cuBLAS GEMM (torch.matmul) on the gathered A, as the reference computes it. Written by
# `parascope-cli pkb solutions` (docs/pkb.md).
import os
import sys

import torch
import torch.distributed as dist

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import parascope_pkb_runtime as ps  # noqa: E402


@torch.no_grad()
def solution(A_local: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
    a = A_local.contiguous()
    n = dist.get_world_size()
    m, k_local = a.shape
    sym = ps.buffer("ag_out", n * a.numel() * a.element_size(), a.device)
    ps.all_gather_push(a, sym)
    gathered = sym.view(a.dtype, (n, m, k_local))
    a_global = gathered.permute(1, 0, 2).reshape(m, n * k_local)  # torch.cat(blocks, dim=1)
    return torch.matmul(a_global, B)
