// Host-side correctness checks: compares an output buffer copied back from a GPU with the
// reference values of test_data.h, and decides pass/fail the same way for every kernel:
// no NaN/Inf (outputs are poisoned with NaN before each run), relative L2 error within the
// dtype's tolerance, and bit-exact equality where the operation is a pure copy.
#pragma once

#include <cstdint>
#include <string>

#include "host/test_data.h"

namespace parascope::bench {

// Relative L2 tolerances (METHOD.md): fp32 sums of ≤ 8 exact values are exact, so 1e-6 leaves
// room only for a kernel that accumulates in lower precision; bf16 outputs round once (≤ 2^-9).
inline constexpr double kTolF32 = 1e-6;
inline constexpr double kTolBF16 = 1e-2;
inline double tolerance(DType t) { return t == DType::kF32 ? kTolF32 : kTolBF16; }

// Copies (gather, all-to-all, send/recv, P2P) must be exact; reductions within tolerance.
inline bool is_copy_kind(CheckKind k) { return k != CheckKind::kAllReduce && k != CheckKind::kReduceScatter; }

double rel_l2(const ErrorStats& s);  // sqrt(Σerr² / Σref²); 0 when the reference is all zero
void merge(ErrorStats& into, const ErrorStats& from);

struct CheckVerdict {
  bool ok = false;
  double rel_l2 = 0;
  uint64_t mismatches = 0;
  std::string problem;  // empty when ok: "3 NaN/Inf outputs", "rel L2 0.02 > 0.01", "17 mismatches"
};
CheckVerdict judge(const ErrorStats& s, DType t, CheckKind kind, uint64_t expected_elements);

// Checks `count` output elements of rank `rank` (raw bytes as the GPU wrote them).
ErrorStats check_output_host(CheckKind kind, DType t, uint64_t seed, int rank, int nranks, uint64_t c, int aux,
                             const void* out, uint64_t count);

// Fills `count` input elements of rank `rank` exactly as the device fill kernel does.
void fill_input_host(DType t, uint64_t seed, int rank, void* out, uint64_t count);

}  // namespace parascope::bench
