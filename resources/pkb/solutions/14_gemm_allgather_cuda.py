# PKB task 14_gemm_allgather: the GEMM (torch.matmul) writes into this rank's block of a symmetric
# buffer, Parascope's LD/ST push all-gather fills the others, and the blocks are laid side by side
# (torch.cat(..., dim=1) in the reference). Written by `parascope-cli pkb solutions` (docs/pkb.md).
import os
import sys

import torch
import torch.distributed as dist

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import parascope_pkb_runtime as ps  # noqa: E402


@torch.no_grad()
def solution(A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
    a, b = A.contiguous(), B.contiguous()
    n, r = dist.get_world_size(), dist.get_rank()
    m, n_local = a.shape[0], b.shape[1]
    sym = ps.buffer("ag_out", n * m * n_local * a.element_size(), a.device)
    blocks = sym.view(a.dtype, (n, m, n_local))
    torch.matmul(a, b, out=blocks[r])
    ps.all_gather_push(blocks[r], sym)
    return blocks.permute(1, 0, 2).reshape(m, n * n_local)
