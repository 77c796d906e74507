// Parascope's solutions for PKB tasks its kernels implement (1 all-reduce, 2 all-gather, 7
// reduce-scatter, 8 all-to-all, 12 all-gather + GEMM, 13 GEMM + all-reduce, 14 GEMM + all-gather,
// 16 GEMM + reduce-scatter): the PKB "cuda" solution files in resources/pkb/solutions, which call
// libparascope_pkb_kernels.so through ctypes, and each one's predicted speed-up, written down
// before PKB runs it (predictions.json). The prediction: the reference's measured GEMMs kept, the
// Parascope kernel as the simulator predicts it (world ≥ 2) or as one HBM pass (world 1), the
// solution's own copies at HBM speed plus a kernel's fixed cost each, and never less than the
// reference's host time per iteration (the Python loop enqueues no faster).
#pragma once

#include <string>
#include <vector>

#include "pkb/report/task_report.h"
#include "pkb/suite/pkb_checkout.h"

namespace parascope::pkb {

struct SolutionSpec {
  int id = 0;
  std::string file;            // "1_allreduce_cuda.py" (the template's name)
  std::string kernel;          // "one-shot pull all-reduce"
  CollectiveOp op = CollectiveOp::kUnknown;
  std::string sim_op, mechanism;  // the simulator's design of the kernel
  int copies = 0;              // copies the solution makes of the collective's buffer besides the kernel
  bool keeps_gemm = false;     // the reference's GEMM stays (torch.matmul)
};

const std::vector<SolutionSpec>& parascope_solutions();

struct SolutionPrediction {
  std::string stem;
  std::string kernel;
  int world = 1;
  std::string machine;
  double reference_s = 0;      // PKB's measured time (0: no suite given)
  double host_s = 0;           // the reference's host time per iteration
  double kept_s = 0;           // the reference's GEMMs, kept
  double kernel_s = 0;         // Parascope's kernel, predicted
  double copies_s = 0;
  double task_s = 0;
  double speedup = 0;          // reference / task (0: unknown)
  std::string basis;           // how the kernel was predicted
};

// `measured`: the task's report from a suite of that world (nullptr: none); `bytes` the
// collective's buffer when there is no report (PKB's default inputs).
SolutionPrediction predict_solution(const SolutionSpec& s, const std::string& stem, const TaskReport* measured,
                                    const Topology& machine, const RooflineCeilings& ceilings, int world);

struct WrittenSolutions {
  std::vector<std::string> files;      // written, by stem
  std::vector<std::string> skipped;    // templates whose task the checkout does not have
  std::vector<SolutionPrediction> predictions;
};

// Writes DIR/{stem}_cuda.py for every solution whose task is in the checkout, the runtime module
// beside them (with `kernels_lib` as the library's path) and DIR/predictions.json.
WrittenSolutions write_solutions(const std::string& dir, const PkbCheckout& checkout, const std::string& templates_dir,
                                 const std::string& kernels_lib, const std::vector<SolutionPrediction>& predictions);

// predictions.json of a solutions folder: stem -> predicted speed-up (empty map when absent).
std::vector<SolutionPrediction> read_predictions(const std::string& dir);

}  // namespace parascope::pkb
