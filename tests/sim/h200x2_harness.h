// The 2 x H200 measurements the simulator is calibrated and scored against: the raw P2P sweeps and
// the C++ harness's result files (CUDA graphs, 2026-11-30), relative to the source tree. The preset
// resources/topologies/h200x2.json is calibrate's output on exactly these (docs/accuracy.md), and
// sim_accuracy / the accuracy test score the preset on them. NCCL's file comes first: the harness
// repeats NCCL's rows in every family's file, and unique_rows keeps the first.
#pragma once

#include <string>
#include <vector>

namespace parascope::test {

inline const std::vector<std::string>& h200x2_raw_p2p() {
  static const std::vector<std::string> files = {
      "resources/calibration/h200x2_p2p.json",
      "resources/captures/h200x2_2026-11-30/kernels_tuned/p2p_tma_calibration.json",
      // LD/ST at 512 threads per block (the collectives' block size) and a 1024-thread control of the
      // same session (scripts/gpu/sim_batch3.sh): they fit the thread count where an SM saturates
      "resources/captures/h200x2_2026-11-30/batch3/p2p_ldst_t512.json",
      "resources/captures/h200x2_2026-11-30/batch3/p2p_ldst_t1024.json"};
  return files;
}

inline const std::vector<std::string>& h200x2_harness_files() {
  static const std::vector<std::string> files = {
      "resources/captures/h200x2_2026-11-30/kernels/nccl.json",
      "resources/captures/h200x2_2026-11-30/kernels/all_reduce.json",
      "resources/captures/h200x2_2026-11-30/kernels/all_gather.json",
      "resources/captures/h200x2_2026-11-30/kernels/reduce_scatter.json",
      "resources/captures/h200x2_2026-11-30/kernels/all_to_all.json",
      "resources/captures/h200x2_2026-11-30/kernels_tuned/all_reduce_small.json",
      "resources/captures/h200x2_2026-11-30/kernels_tuned/all_reduce_large.json",
      "resources/captures/h200x2_2026-11-30/kernels_tuned/reduce_scatter.json",
      // NCCL with its protocol forced (scripts/gpu/nccl_proto_batch.sh): Simple at the fit grid's
      // small sizes, LL at 2 and 8 MiB; fit rows of the per-protocol curves
      "resources/captures/h200x2_2026-11-30/nccl_proto/nccl_simple.json",
      "resources/captures/h200x2_2026-11-30/nccl_proto/nccl_ll.json"};
  return files;
}

// Batch 2 (scripts/gpu/sim_batch2.sh, 2026-11-30): NCCL and the project's kernels at 32 KiB, 128 KiB,
// 512 KiB, 2, 8, 32, 128, 512 MiB, bf16 and fp32. Scored, not fitted, until stop 15; since then its NCCL
// bf16 rows fit NCCL's per-operation curves (calibrate takes nccl_mid.json) and its kernel rows are
// validation rows (not fitted, not blind):
// scored with nccl_fitted_batch_split(). NCCL's own file first (collectives_mid.json repeats NCCL's
// rows from another run; unique_rows keeps the first).
inline const std::vector<std::string>& h200x2_batch2_files() {
  static const std::vector<std::string> files = {
      "resources/captures/h200x2_2026-11-30/batch2/nccl_mid.json",
      "resources/captures/h200x2_2026-11-30/batch2/collectives_mid.json"};
  return files;
}

// Measured after the batch-2 model changes (scripts/gpu/sim_batch3.sh, 2026-11-30 batch 3): NCCL and
// the project's kernels at 96, 192, 384, 768 KiB, 1.5, 3, 6, 12, 24, 48, 96, 192, 384, 768 MiB (x1.5
// off both earlier grids), bf16 and fp32. No fit reads them, but they are validation, not blind: the
// LL limits and NCCL's per-operation curves were set after they were seen (docs/accuracy.md);
// scored with unfitted_batch_split().
inline const std::vector<std::string>& h200x2_batch3_files() {
  static const std::vector<std::string> files = {
      "resources/captures/h200x2_2026-11-30/batch3/nccl_b3.json",
      "resources/captures/h200x2_2026-11-30/batch3/collectives_b3.json"};
  return files;
}

}  // namespace parascope::test
