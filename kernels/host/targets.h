// Issue #5's targets for 2 × H200, evaluated from the rows of one run: every comparison uses rows
// measured in the same process and run, and only rows whose correctness check passed. A target
// whose rows are missing or failed is reported as not available, never as met.
#pragma once

#include <string>
#include <vector>

#include "host/result_table.h"

namespace parascope::bench {

// The probe of 2026-11-30 (../shared/data/h200x2_probe.md): the reference points of the targets.
inline constexpr double kProbeCeUniGBps = 397.0;       // copy engine, 1 GiB, GPU0 → GPU1
inline constexpr double kProbeCeBiGBps = 391.0;        // copy engine, both directions, each way
inline constexpr double kProbeLdstPushGBps = 369.0;    // SM stores, 132 blocks
inline constexpr double kProbeLdstPullGBps = 373.0;    // SM loads, 132 blocks
inline constexpr double kTargetTmaGBps = 370.0;        // TMA with ≤ 16 SMs

// Mechanism peaks vs the probe (within 3 %), TMA ≥ 370 GB/s with ≤ 16 SMs. P2P rows: op "p2p",
// variant = mechanism, direction uni|bi, sms.
std::vector<TargetCheck> p2p_targets(const std::vector<ResultRow>& rows);

// All-reduce: busbw ≥ 1.10 × NCCL at ≥ 256 MiB, ≥ 1.0 × from 64 MiB; per-op time ≤ 0.5 × NCCL
// at ≤ 64 KiB. The best passing non-NCCL variant at each size and dtype.
std::vector<TargetCheck> allreduce_targets(const std::vector<ResultRow>& rows);

// All-gather / reduce-scatter: busbw ≥ min(1.1 × NCCL, 0.95 × mechanism peak) at ≥ 64 MiB. The
// peak is the bidirectional per-direction rate of the best variant's mechanism (GB/s), looked up
// by `peak_of(mechanism)`; 0 means unknown (then only the NCCL term counts, and the detail says so).
struct MechanismPeaks {
  double ce = 0, tma = 0, ldst = 0;
  double of(const std::string& mechanism) const;
};
std::vector<TargetCheck> gather_scatter_targets(const std::vector<ResultRow>& rows, const MechanismPeaks& peaks);

// Fused kernels: at the square shape time ≤ t_gemm + 0.3 × t_comm (≥ 70 % of the ideal overlap
// gain); on the communication-heavy shape ≥ 1.2 × faster than cuBLAS + NCCL in sequence.
TargetCheck fused_overlap_target(const std::string& name, double t_fused, double t_gemm, double t_comm);
TargetCheck fused_speedup_target(const std::string& name, double t_fused, double t_sequential);

// The best (highest busbw) passing row of `op`/`dtype`/`bytes` among variants that are not
// NCCL's (is_library_variant); nullptr when none passed.
const ResultRow* best_ours(const std::vector<ResultRow>& rows, const std::string& op, const std::string& dtype,
                           uint64_t bytes);
// NCCL's variants (nccl, nccl_symm, nccl_dev...): the library baselines, never "ours".
bool is_library_variant(const std::string& variant);
// The fastest passing library row at one size: the strongest baseline the targets compare with.
const ResultRow* best_library(const std::vector<ResultRow>& rows, const std::string& op, const std::string& dtype,
                              uint64_t bytes);
const ResultRow* find_row(const std::vector<ResultRow>& rows, const std::string& op, const std::string& variant,
                          const std::string& dtype, uint64_t bytes);

}  // namespace parascope::bench
