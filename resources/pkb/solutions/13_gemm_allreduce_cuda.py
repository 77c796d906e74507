# PKB task 13_gemm_allreduce: the GEMM (torch.matmul) writes straight into a symmetric buffer, then
# Parascope's one-shot pull all-reduce sums it over the ranks. Written by `parascope-cli pkb
# solutions` (docs/pkb.md).
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import parascope_pkb_runtime as ps  # noqa: E402


@torch.no_grad()
def solution(A_local: torch.Tensor, B_local: torch.Tensor) -> torch.Tensor:
    a, b = A_local.contiguous(), B_local.contiguous()
    m, n_cols = a.shape[0], b.shape[1]
    sym = ps.buffer("ar_in", m * n_cols * a.element_size(), a.device)
    c_local = sym.view(a.dtype, (m, n_cols))
    torch.matmul(a, b, out=c_local)
    out = torch.empty_like(c_local)
    ps.all_reduce_pull(sym, out)
    return out
