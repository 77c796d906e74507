// `pkb eval`: PKB's own eval of a solutions folder, task by task (run_local.py --mode eval
// --solution cuda --solutions-dir DIR --measure-perf: the reference and the solution on the same
// inputs for each trial, PKB's tolerances), the verdict and the measured speed-up kept in the suite
// (SUITE/solutions/<stem>.json) beside the speed-up predictions.json had predicted before the run.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "pkb/suite/pkb_checkout.h"

namespace parascope::pkb {

struct EvalOptions {
  PkbCheckout checkout;
  std::string solutions_dir;
  std::string suite_dir;
  std::vector<std::string> stems;  // tasks to evaluate (those with a solution file)
  int world = 1;
  int trials = 5;                  // PKB's default
  double timeout_s = 300;
  std::string python = "python3";
};

struct EvalResult {
  std::string stem;
  bool correct = false;
  int trials = 0;
  double reference_ms = 0, solution_ms = 0, measured_speedup = 0;  // means over the trials PKB timed
  double predicted_speedup = 0;
  std::string reason;
  double wall_s = 0;
};

// Reads what run_local.py printed: "PKB_EVAL_JSON:{...}" (all_ok, trials) and the trial lines
// "trial N: match | ref X ms | cuda Y ms | speedup Zx".
EvalResult parse_eval_output(const std::string& stem, const std::string& out, const std::string& err, int exit_code);

std::vector<EvalResult> run_eval(const EvalOptions& o, const std::function<void(const EvalResult&)>& done);

}  // namespace parascope::pkb
