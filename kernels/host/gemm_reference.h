// Reference values of the fused kernels' GEMMs, in fp64 on the host, from the same generated bf16
// inputs the GPUs hold (test_data.h), so any output element can be checked without copying the
// inputs back. Tensor streams: A of rank p is stream p, W of rank p is stream kWeightStream + p.
//   all-gather + GEMM: A [M, K] sharded on M (rank p holds rows rank_chunk(M, n, p, 128)),
//                      W_r [N/n, K] (Linear layout); C_r [M, N/n] = A · W_rᵀ
//   GEMM + reduce-scatter: A_p [M, K/n] (K sharded), W_p [N, K/n]; out_r = rows
//                      rank_chunk(M, n, r, 128) of Σ_p A_p · W_pᵀ
// check_gemm_samples compares a bf16 output with these references at pseudo-random samples and
// scans the whole output for NaN (the poison left by a tile nobody wrote).
#pragma once

#include <cstdint>
#include <functional>

#include "host/reference_check.h"

namespace parascope::bench {

inline constexpr uint32_t kWeightStream = 100;
inline constexpr uint64_t kGemmRowAlign = 128;

double ag_gemm_reference(uint64_t seed, int rank, int nranks, int m, int n_local, int k, int i, int j);
// only_rank ≥ 0: that rank's partial product alone (what its local GEMM computes before the reduction).
double gemm_rs_reference(uint64_t seed, int nranks, int n, int k_local, int i, int j, int only_rank = -1);

// out: rows × cols bf16 (leading dimension ld), row r of the buffer is global row row0 + r.
CheckVerdict check_gemm_samples(const uint16_t* out, int rows, int cols, int ld, int row0, int samples, uint64_t seed,
                                const std::function<double(int i, int j)>& reference);

}  // namespace parascope::bench
