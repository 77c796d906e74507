// One benchmark row, the same way for every subcommand: check (fresh random inputs, poisoned
// outputs, one run, verify every output), time (time_op), check again with new data, and fill a
// ResultRow. A failing row records why and the run goes on; only a lost CUDA context (a sticky
// error such as an illegal address) ends the process, after the caller has saved its rows.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/timing.h"
#include "device/check_kernels.h"
#include "device/gpu_context.h"
#include "device/op.h"
#include "host/result_table.h"

namespace parascope::bench {

struct InputFill {
  int rank = 0;
  void* ptr = nullptr;
  DType dtype = DType::kF32;
  uint32_t stream_id = 0;  // which rank's values (test_data.h stream)
  uint64_t count = 0;
};
struct OutputCheck {
  int rank = 0;
  void* ptr = nullptr;
  uint64_t bytes = 0;  // poisoned before the run
  CheckSpec spec;      // seed is filled in per check
};
struct CheckPlan {
  uint64_t seed = 0;  // set per check by measure_row
  std::vector<InputFill> inputs;
  std::vector<OutputCheck> outputs;
};
using CheckPlanFn = std::function<CheckPlan(uint64_t seed)>;

// A custom check (the fused kernels compare GEMM outputs): returns the verdict after the op ran.
using CustomCheckFn = std::function<CheckVerdict(uint64_t seed)>;

class ContextLost : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

CheckVerdict run_check(GpuContext& ctx, Op& op, const CheckPlan& plan);

struct MeasureOptions {
  bool flush_l2 = false;
  bool second_check = true;
};

// Checks, times and re-checks `op`; fills row.ns, row.timing, row.ops_per_graph, row.checked,
// row.ok, row.rel_l2, row.mismatches, row.problem. Throws ContextLost when the GPUs stop
// answering. `plan_fn` may be empty when `custom` is given (custom = fill + run + verify itself).
void measure_row(GpuContext& ctx, Op& op, const CheckPlanFn& plan_fn, const TimingPlan& plan, ResultRow& row,
                 const MeasureOptions& opt = {}, const CustomCheckFn& custom = {});

// schema_version, machine description, date, driver and runtime versions, NCCL version.
void add_machine_meta(ResultSet& set, const GpuContext& ctx);
std::string utc_now_iso();
std::string join_args(const std::string& sub, const std::vector<std::string>& args);
// Prints one progress line to stderr.
void print_progress(const ResultRow& row);
// Loads every kernel of the harness on every GPU (lazy loading must never happen while a kernel
// on another stream spins waiting for it) and raises shared-memory limits.
void preload_all_kernels(GpuContext& ctx);

}  // namespace parascope::bench
