#include "host/gemm_reference.h"

#include "host/partition.h"

namespace parascope::bench {

double ag_gemm_reference(uint64_t seed, int rank, int nranks, int m, int n_local, int k, int i, int j) {
  (void)n_local;
  int owner = 0;
  Range rows;
  for (int p = 0; p < nranks; ++p) {
    rows = rank_chunk(static_cast<uint64_t>(m), nranks, p, kGemmRowAlign);
    if (static_cast<uint64_t>(i) >= rows.begin && static_cast<uint64_t>(i) < rows.end) {
      owner = p;
      break;
    }
  }
  const uint64_t a_row = (static_cast<uint64_t>(i) - rows.begin) * static_cast<uint64_t>(k);
  const uint64_t w_row = static_cast<uint64_t>(j) * static_cast<uint64_t>(k);
  double s = 0;
  for (int kk = 0; kk < k; ++kk)
    s += static_cast<double>(stored_value(DType::kBF16, seed, static_cast<uint32_t>(owner), a_row + kk)) *
         stored_value(DType::kBF16, seed, kWeightStream + static_cast<uint32_t>(rank), w_row + kk);
  return s;
}

double gemm_rs_reference(uint64_t seed, int nranks, int n, int k_local, int i, int j, int only_rank) {
  (void)n;
  double s = 0;
  for (int p = 0; p < nranks; ++p) {
    if (only_rank >= 0 && p != only_rank) continue;
    const uint64_t a_row = static_cast<uint64_t>(i) * static_cast<uint64_t>(k_local);
    const uint64_t w_row = static_cast<uint64_t>(j) * static_cast<uint64_t>(k_local);
    for (int kk = 0; kk < k_local; ++kk)
      s += static_cast<double>(stored_value(DType::kBF16, seed, static_cast<uint32_t>(p), a_row + kk)) *
           stored_value(DType::kBF16, seed, kWeightStream + static_cast<uint32_t>(p), w_row + kk);
  }
  return s;
}

CheckVerdict check_gemm_samples(const uint16_t* out, int rows, int cols, int ld, int row0, int samples, uint64_t seed,
                                const std::function<double(int i, int j)>& reference) {
  uint64_t nonfinite = 0;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const float v = bf16_bits_to_float(out[static_cast<uint64_t>(r) * static_cast<uint64_t>(ld) + static_cast<uint64_t>(c)]);
      if (!is_finite_double(v)) ++nonfinite;
    }
  ErrorStats s;
  for (int t = 0; t < samples; ++t) {
    const uint64_t h = splitmix64(seed ^ (0xC0FFEEull + static_cast<uint64_t>(t)));
    const int r = static_cast<int>(h % static_cast<uint64_t>(rows));
    const int c = static_cast<int>((h >> 32) % static_cast<uint64_t>(cols));
    const double o = bf16_bits_to_float(out[static_cast<uint64_t>(r) * static_cast<uint64_t>(ld) + static_cast<uint64_t>(c)]);
    accumulate(s, DType::kBF16, o, reference(row0 + r, c));
  }
  CheckVerdict v = judge(s, DType::kBF16, CheckKind::kAllReduce, static_cast<uint64_t>(samples));
  if (v.ok && nonfinite) {
    v.ok = false;
    v.problem = std::to_string(nonfinite) + " NaN/Inf outputs outside the samples (unwritten tiles?)";
  }
  return v;
}

}  // namespace parascope::bench
