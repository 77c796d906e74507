#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <vector>

#include "host/reference_check.h"
#include "host/test_data.h"

using namespace parascope::bench;

TEST_CASE("bf16 rounding is round-to-nearest-even, bit for bit", "[bench][reference]") {
  REQUIRE(bf16_bits_from_float(1.0f) == 0x3F80);
  REQUIRE(bf16_bits_from_float(-2.5f) == 0xC020);
  // 1 + 2^-8 lies halfway between 0x3F80 and 0x3F81: ties go to the even mantissa 0x3F80
  REQUIRE(bf16_bits_from_float(1.00390625f) == 0x3F80);
  // 1 + 3·2^-8 lies halfway between 0x3F81 and 0x3F82: even is 0x3F82
  REQUIRE(bf16_bits_from_float(1.01171875f) == 0x3F82);
  // just above the tie rounds up
  REQUIRE(bf16_bits_from_float(bits_float(0x3F808001u)) == 0x3F81);
  REQUIRE(std::isnan(bf16_bits_to_float(bf16_bits_from_float(NAN))));
  REQUIRE(bf16_bits_to_float(0x3F82) == 1.015625f);
}

TEST_CASE("generated inputs are multiples of 2^-15 between -1 and 1 and differ between ranks", "[bench][reference]") {
  int same = 0, zeros = 0;
  for (uint64_t i = 0; i < 20000; ++i) {
    const float a = raw_value(7, 0, i), b = raw_value(7, 1, i);
    REQUIRE(a >= -1.0f);
    REQUIRE(a < 1.0f);
    REQUIRE(a * 32768.0f == std::floor(a * 32768.0f));
    same += a == b;
    zeros += a == 0.0f;
  }
  // 65536 possible values: ~0.3 equal pairs expected in 20000, and ~0.3 zeros
  REQUIRE(same < 20);
  REQUIRE(zeros < 20);
  REQUIRE(raw_value(7, 0, 5) != raw_value(8, 0, 5));  // a new seed is new data
}

TEST_CASE("sums of up to 8 inputs are exact in fp32, so fp32-accumulating kernels match bit for bit", "[bench][reference]") {
  for (DType t : {DType::kF32, DType::kBF16})
    for (uint64_t i = 0; i < 5000; ++i) {
      float f = 0;
      double d = 0;
      for (int p = 0; p < 8; ++p) {
        f += stored_value(t, 99, p, i);
        d += stored_value(t, 99, p, i);
      }
      REQUIRE(static_cast<double>(f) == d);
    }
}

TEST_CASE("expected values index the right rank and element for every collective", "[bench][reference]") {
  const DType t = DType::kBF16;
  const uint64_t seed = 42;
  // all-gather, 100 elements per rank: output 250 is rank 2's element 50
  REQUIRE(expected_exact(CheckKind::kAllGather, t, seed, 0, 4, 100, 0, 250) == stored_value(t, seed, 2, 50));
  // reduce-scatter on rank 1 with 100 outputs per rank: element 5 sums every rank's element 105
  double rs = 0;
  for (int p = 0; p < 4; ++p) rs += stored_value(t, seed, p, 105);
  REQUIRE(expected_exact(CheckKind::kReduceScatter, t, seed, 1, 4, 100, 0, 5) == rs);
  // all-to-all on rank 1, 100 per pair: output 250 is rank 2's element 1·100 + 50
  REQUIRE(expected_exact(CheckKind::kAllToAll, t, seed, 1, 4, 100, 0, 250) == stored_value(t, seed, 2, 150));
  REQUIRE(expected_exact(CheckKind::kSendRecv, t, seed, 0, 2, 0, 0, 9) == stored_value(t, seed, 1, 9));
  REQUIRE(expected_exact(CheckKind::kCopyFrom, t, seed, 1, 2, 0, 0, 9) == stored_value(t, seed, 0, 9));
  REQUIRE(expected_exact(CheckKind::kAllReduce, t, seed, 1, 2, 0, 0, 9) ==
          stored_value(t, seed, 0, 9) + stored_value(t, seed, 1, 9));
}

namespace {
// What a correct 2-rank bf16 all-reduce kernel writes: fp32 sum, one rounding.
std::vector<uint16_t> allreduce_bf16(uint64_t seed, uint64_t n) {
  std::vector<uint16_t> out(n);
  for (uint64_t i = 0; i < n; ++i) out[i] = bf16_bits_from_float(stored_value(DType::kBF16, seed, 0, i) + stored_value(DType::kBF16, seed, 1, i));
  return out;
}
}  // namespace

TEST_CASE("the host check passes a correct output and names what is wrong with a bad one", "[bench][reference]") {
  const uint64_t n = 4096, seed = 1234;
  auto out = allreduce_bf16(seed, n);
  ErrorStats s = check_output_host(CheckKind::kAllReduce, DType::kBF16, seed, 0, 2, 0, 0, out.data(), n);
  REQUIRE(s.elements == n);
  REQUIRE(s.mismatches == 0);
  REQUIRE(s.nonfinite == 0);
  CheckVerdict v = judge(s, DType::kBF16, CheckKind::kAllReduce, n);
  REQUIRE(v.ok);
  REQUIRE(v.rel_l2 < 3e-3);  // one bf16 rounding: ≤ 2^-9 per element

  SECTION("an unwritten (poisoned) element fails as NaN") {
    out[77] = 0xFFFF;  // the poison pattern: a NaN
    s = check_output_host(CheckKind::kAllReduce, DType::kBF16, seed, 0, 2, 0, 0, out.data(), n);
    v = judge(s, DType::kBF16, CheckKind::kAllReduce, n);
    REQUIRE_FALSE(v.ok);
    REQUIRE(s.nonfinite == 1);
    REQUIRE(v.problem.find("NaN") != std::string::npos);
  }
  SECTION("a shifted index fails on relative error") {
    std::vector<uint16_t> shifted(out.begin() + 1, out.end());
    shifted.push_back(out.front());
    s = check_output_host(CheckKind::kAllReduce, DType::kBF16, seed, 0, 2, 0, 0, shifted.data(), n);
    v = judge(s, DType::kBF16, CheckKind::kAllReduce, n);
    REQUIRE_FALSE(v.ok);
    REQUIRE(v.rel_l2 > 0.5);  // independent values: error ~ sqrt(2) × the reference
  }
  SECTION("a copy must be exact: one flipped low bit fails") {
    std::vector<uint16_t> in(n);
    fill_input_host(DType::kBF16, seed, 0, in.data(), n);
    s = check_output_host(CheckKind::kCopyFrom, DType::kBF16, seed, 1, 2, 0, 0, in.data(), n);
    REQUIRE(judge(s, DType::kBF16, CheckKind::kCopyFrom, n).ok);
    in[5] ^= 1;
    s = check_output_host(CheckKind::kCopyFrom, DType::kBF16, seed, 1, 2, 0, 0, in.data(), n);
    v = judge(s, DType::kBF16, CheckKind::kCopyFrom, n);
    REQUIRE_FALSE(v.ok);
    REQUIRE(s.mismatches == 1);
  }
  SECTION("fewer checked elements than expected is a failure") {
    REQUIRE_FALSE(judge(s, DType::kBF16, CheckKind::kAllReduce, n + 1).ok);
  }
}

TEST_CASE("fp32 reductions that round through bf16 fail the fp32 tolerance", "[bench][reference]") {
  const uint64_t n = 2048, seed = 5;
  std::vector<float> out(n);
  for (uint64_t i = 0; i < n; ++i)
    out[i] = bf16_bits_to_float(bf16_bits_from_float(stored_value(DType::kF32, seed, 0, i) + stored_value(DType::kF32, seed, 1, i)));
  const ErrorStats s = check_output_host(CheckKind::kAllReduce, DType::kF32, seed, 0, 2, 0, 0, out.data(), n);
  const CheckVerdict v = judge(s, DType::kF32, CheckKind::kAllReduce, n);
  REQUIRE_FALSE(v.ok);
  REQUIRE(v.rel_l2 > 1e-4);  // bf16 keeps 8 bits: ~1e-3 relative error
  REQUIRE(v.rel_l2 < 1e-2);
  ErrorStats a, b;
  a.elements = 3;
  a.max_abs_err = 1;
  b.elements = 4;
  b.nonfinite = 2;
  b.max_abs_err = 2;
  merge(a, b);
  REQUIRE(a.elements == 7);
  REQUIRE(a.nonfinite == 2);
  REQUIRE(a.max_abs_err == 2);
}
