#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "host/bench_options.h"
#include "host/gemm_reference.h"
#include "host/partition.h"
#include "host/size_spec.h"

using namespace parascope::bench;

namespace {
// bf16 inputs exactly as the GPUs' fill kernel writes them, read back as floats.
std::vector<float> filled(uint64_t seed, uint32_t stream, uint64_t count) {
  std::vector<uint16_t> bits(count);
  fill_input_host(DType::kBF16, seed, static_cast<int>(stream), bits.data(), count);
  std::vector<float> out(count);
  for (uint64_t i = 0; i < count; ++i) out[i] = bf16_bits_to_float(bits[i]);
  return out;
}
}  // namespace

TEST_CASE("all-gather + GEMM reference equals a plain GEMM over the gathered shards", "[bench][gemm]") {
  // M = 256 on 2 ranks (128 rows each), N/n = 4 output columns, K = 16
  const int m = 256, nl = 4, k = 16, n = 2;
  const uint64_t seed = 77;
  std::vector<float> a;  // the gathered A, rank 0's rows then rank 1's
  for (int p = 0; p < n; ++p) {
    const auto shard = filled(seed, static_cast<uint32_t>(p), 128ull * k);
    a.insert(a.end(), shard.begin(), shard.end());
  }
  for (int r = 0; r < n; ++r) {
    const auto w = filled(seed, kWeightStream + r, static_cast<uint64_t>(nl) * k);
    for (int i = 0; i < m; i += 5)
      for (int j = 0; j < nl; ++j) {
        double s = 0;
        for (int kk = 0; kk < k; ++kk) s += static_cast<double>(a[i * k + kk]) * w[j * k + kk];
        REQUIRE(ag_gemm_reference(seed, r, n, m, nl, k, i, j) == s);
      }
  }
}

TEST_CASE("GEMM + reduce-scatter reference sums every rank's K-shard product", "[bench][gemm]") {
  const int m = 256, nn = 8, kl = 8, n = 2;
  const uint64_t seed = 3;
  for (int i = 0; i < m; i += 7)
    for (int j = 0; j < nn; ++j) {
      double total = 0;
      for (int p = 0; p < n; ++p) {
        const auto a = filled(seed, static_cast<uint32_t>(p), static_cast<uint64_t>(m) * kl);
        const auto w = filled(seed, kWeightStream + p, static_cast<uint64_t>(nn) * kl);
        double part = 0;
        for (int kk = 0; kk < kl; ++kk) part += static_cast<double>(a[i * kl + kk]) * w[j * kl + kk];
        REQUIRE(gemm_rs_reference(seed, n, nn, kl, i, j, p) == part);
        total += part;
      }
      REQUIRE(gemm_rs_reference(seed, n, nn, kl, i, j) == total);
    }
}

TEST_CASE("GEMM sample checks pass a rounded output and fail NaN or shifted rows", "[bench][gemm]") {
  // rank 1's output block of a GEMM + reduce-scatter: global rows 128..255
  const int rows = 128, cols = 16, kl = 32, row0 = 128;
  const uint64_t seed = 11;
  auto ref = [&](int i, int j) { return gemm_rs_reference(seed, 2, cols, kl, i, j); };
  std::vector<uint16_t> out(static_cast<size_t>(rows) * cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) out[r * cols + c] = bf16_bits_from_float(static_cast<float>(ref(row0 + r, c)));
  CheckVerdict v = check_gemm_samples(out.data(), rows, cols, cols, row0, 256, seed, ref);
  REQUIRE(v.ok);
  REQUIRE(v.rel_l2 < 3e-3);  // one bf16 rounding
  SECTION("a NaN anywhere fails, sampled or not") {
    out[1000] = 0xFFFF;
    REQUIRE_FALSE(check_gemm_samples(out.data(), rows, cols, cols, row0, 256, seed, ref).ok);
  }
  SECTION("rows written one row off fail on error") {
    std::vector<uint16_t> shifted(out.begin() + cols, out.end());
    shifted.insert(shifted.end(), out.begin(), out.begin() + cols);
    v = check_gemm_samples(shifted.data(), rows, cols, cols, row0, 256, seed, ref);
    REQUIRE_FALSE(v.ok);
    REQUIRE(v.rel_l2 > 0.5);
  }
}

TEST_CASE("list options split on their separator and dtypes parse strictly", "[bench][options]") {
  REQUIRE(split_list("a,b,,c") == std::vector<std::string>{"a", "b", "", "c"});
  REQUIRE(split_list("8192x8192x2048", 'x') == std::vector<std::string>{"8192", "8192", "2048"});
  REQUIRE(split_list("") == std::vector<std::string>{""});
  REQUIRE(parse_dtype("bf16") == DType::kBF16);
  REQUIRE(parse_dtype("fp32") == DType::kF32);
  REQUIRE_THROWS_AS(parse_dtype("float"), UsageError);
}
