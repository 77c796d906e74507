// PKB's own timing of a task: the rank_<r>_perf.json files its worker writes with --measure-perf
// (utils/performance.py: wall_time_ms is the mean per-iteration time of `iterations` timed calls
// after `warmup_iterations`, CUDA events around each call). A task's time is PKB's: the largest
// wall_time_ms over its ranks (utils/run_utils.py summarize_perf_artifacts).
#pragma once

#include <string>
#include <vector>

namespace parascope::pkb {

struct RankPerf {
  int rank = -1;
  double wall_time_ms = 0, wall_time_std_ms = 0, min_time_ms = 0, max_time_ms = 0;
  int iterations = 0, warmup_iterations = 0;
  double num_input_groups = 0, timed_tensor_bytes = 0;
  std::string file;
};

struct PerfSummary {
  std::vector<RankPerf> ranks;      // by rank
  double wall_time_ms_max = 0;      // PKB's number for the task
  double wall_time_ms_mean = 0;
  int iterations = 0, warmup_iterations = 0;  // of rank 0 (every rank runs the same loop)
  bool empty() const { return ranks.empty(); }
};

// One rank_<r>_perf.json; InputError naming the file and the field when it is not PKB's format.
RankPerf read_rank_perf(const std::string& path);
// Every rank_*_perf.json in `dir` (none: an empty summary).
PerfSummary read_perf_dir(const std::string& dir);

}  // namespace parascope::pkb
