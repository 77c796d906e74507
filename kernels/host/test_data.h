// Test data shared by host and device: a counter-based generator (fresh data for any seed, no
// state), bf16 rounding done bit-exactly the same on both sides, the value every collective must
// produce at every output index, and the error accumulator both checkers use.
// Values are multiples of 2^-15 in [-1, 1): a sum of up to 8 of them (bf16-rounded or not) is
// exact in fp32, so a kernel that accumulates in fp32 and rounds once must match the reference
// bit for bit; reductions are still judged by relative L2 error so libraries that round per step
// (NCCL rings on more ranks) are judged fairly. Plain C++ for host compilers, __host__ __device__
// under nvcc.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define PS_HD __host__ __device__ __forceinline__
#else
#define PS_HD inline
#endif

namespace parascope::bench {

enum class DType : uint8_t { kF32 = 0, kBF16 = 1 };
PS_HD int dtype_size(DType t) { return t == DType::kF32 ? 4 : 2; }
inline const char* dtype_name(DType t) { return t == DType::kF32 ? "fp32" : "bf16"; }

// What an output element must hold, given the inputs rank p holds: in_p[i] = value(seed, p, i).
enum class CheckKind : uint8_t {
  kAllReduce = 0,      // out[i] = Σ_p in_p[i]
  kAllGather = 1,      // out[j·c + i] = in_j[i]                (c = per-rank count)
  kReduceScatter = 2,  // out[i] = Σ_p in_p[r·c + i]            (c = per-rank output count)
  kAllToAll = 3,       // out[j·c + i] = in_j[r·c + i]          (c = count per (src, dst) pair)
  kCopyFrom = 4,       // out[i] = in_src[i]                    (src given as `aux`)
  kSendRecv = 5,       // out[i] = in_{(r-1+n) mod n}[i]
};

PS_HD uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

PS_HD uint32_t float_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
PS_HD float bits_float(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

// Round-to-nearest-even fp32 → bf16 (what __float2bfloat16_rn does); NaN stays a quiet NaN.
PS_HD uint16_t bf16_bits_from_float(float f) {
  const uint32_t u = float_bits(f);
  if ((u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu)) return static_cast<uint16_t>((u >> 16) | 0x40u);
  const uint32_t bias = 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<uint16_t>((u + bias) >> 16);
}
PS_HD float bf16_bits_to_float(uint16_t b) { return bits_float(static_cast<uint32_t>(b) << 16); }

// Input value of rank `stream` at `index`: a multiple of 2^-15 in [-1, 1), never a function of
// the index alone (so a wrong index or a wrong rank reads a different value).
PS_HD float raw_value(uint64_t seed, uint32_t stream, uint64_t index) {
  const uint64_t h = splitmix64(seed ^ splitmix64((static_cast<uint64_t>(stream) << 48) ^ index));
  const int32_t q = static_cast<int32_t>(h >> 48) - 32768;  // [-32768, 32767]
  return static_cast<float>(q) * (1.0f / 32768.0f);
}
// The value as stored in `t` (bf16 inputs are the rounded value).
PS_HD float stored_value(DType t, uint64_t seed, uint32_t stream, uint64_t index) {
  const float v = raw_value(seed, stream, index);
  return t == DType::kF32 ? v : bf16_bits_to_float(bf16_bits_from_float(v));
}
// Rounds an exact result to what an fp32-accumulating kernel stores in `t`.
PS_HD double round_to(DType t, double exact) {
  const float f = static_cast<float>(exact);
  return t == DType::kF32 ? f : bf16_bits_to_float(bf16_bits_from_float(f));
}

// Exact (double) value output element `i` of rank `rank` must hold; `c` and `aux` as in CheckKind.
PS_HD double expected_exact(CheckKind kind, DType t, uint64_t seed, int rank, int nranks, uint64_t c, int aux,
                            uint64_t i) {
  switch (kind) {
    case CheckKind::kAllReduce: {
      double s = 0;
      for (int p = 0; p < nranks; ++p) s += stored_value(t, seed, p, i);
      return s;
    }
    case CheckKind::kAllGather:
      return stored_value(t, seed, static_cast<uint32_t>(i / c), i % c);
    case CheckKind::kReduceScatter: {
      double s = 0;
      for (int p = 0; p < nranks; ++p) s += stored_value(t, seed, p, static_cast<uint64_t>(rank) * c + i);
      return s;
    }
    case CheckKind::kAllToAll:
      return stored_value(t, seed, static_cast<uint32_t>(i / c), static_cast<uint64_t>(rank) * c + i % c);
    case CheckKind::kCopyFrom:
      return stored_value(t, seed, static_cast<uint32_t>(aux), i);
    case CheckKind::kSendRecv:
      return stored_value(t, seed, static_cast<uint32_t>((rank - 1 + nranks) % nranks), i);
  }
  return 0;
}

// Error accumulator, identical on host and device. `mismatches` counts elements that differ from
// the reference rounded to the output type (0 for any kernel that accumulates in fp32).
struct ErrorStats {
  double sum_sq_err = 0;
  double sum_sq_ref = 0;
  double max_abs_err = 0;
  unsigned long long elements = 0;
  unsigned long long nonfinite = 0;   // NaN/Inf outputs (poison that was never overwritten)
  unsigned long long mismatches = 0;
};

PS_HD bool is_finite_double(double v) { return v == v && v - v == 0; }

PS_HD void accumulate(ErrorStats& s, DType t, double out, double exact) {
  s.elements += 1;
  if (!is_finite_double(out)) {
    s.nonfinite += 1;
    return;
  }
  const double err = out - exact;
  s.sum_sq_err += err * err;
  s.sum_sq_ref += exact * exact;
  const double a = err < 0 ? -err : err;
  if (a > s.max_abs_err) s.max_abs_err = a;
  if (out != round_to(t, exact)) s.mismatches += 1;
}

}  // namespace parascope::bench
