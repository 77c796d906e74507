// One what-if run: a measured trace's dependency graph, the knobs (`--set`, one point of a
// `--sweep`, typed: parsed once at the edge) and a topology in; the transformed graph replayed on
// the interconnect model, a summary and (optionally) the predicted trace out. With no knob set it
// is the plain replay, whose step times are checked against the measurement. The comparison the
// tools show (compare.h), the sweeps, the benchmark and the tests all call run_whatif, so they
// cannot differ. Knobs come from the registry (knobs.h).
#pragma once

#include <atomic>
#include <memory>
#include <stdexcept>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/whatif/comm_model.h"
#include "sim/whatif/critical_path.h"
#include "sim/whatif/dep_graph.h"
#include "sim/whatif/predicted_trace.h"
#include "sim/whatif/replay.h"
#include "trace/core/topology.h"
#include "trace/core/trace.h"

namespace parascope::whatif {

inline constexpr int kWhatIfSchemaVersion = 1;

struct WhatIfInput {
  const Trace* measured = nullptr;  // optional: identity for the predicted trace, analyses to compare with
  const DepGraph* graph = nullptr;  // built once by build_dep_graph (shared by a sweep's variants)
  Topology topology;
  sim::KnobSettings knobs;          // the what-if; none set: the unchanged replay
  bool want_trace = false;          // the predicted Trace (costs time; a sweep skips it)
  bool want_analyses = true;        // exposed communication from the predicted trace (needs it built)
  std::shared_ptr<CommCache> cache; // shared by a sweep's variants; made when null
  // Set from another thread to stop: run_whatif checks it between its stages and collectives and
  // throws Cancelled; run_sweep starts no further variant (its rows say "cancelled").
  const std::atomic<bool>* cancel = nullptr;
};

struct Cancelled : std::runtime_error {
  Cancelled() : std::runtime_error("cancelled") {}
};

struct StepTimes {
  std::string step;
  int32_t process = 0;
  int32_t rank = -1;
  TimeNs measured_ns = 0, replay_ns = 0;          // the step's host range (ProfilerStep#N, --step)
  TimeNs measured_gpu_ns = 0, replay_gpu_ns = 0;  // first GPU op start .. last GPU op end in the step
  TimeNs exposed_ns = 0;  // replay: the rank's communication not under its compute in the step's range (step_exposure.h)
  TimeNs measured_exposed_ns = 0;  // the same of the graph as traced, at its measured times
};

struct Divergence {
  std::string name;
  std::string kind;           // "compute", "collective", ...
  int64_t count = 0;
  TimeNs measured_ns = 0, replay_ns = 0;  // summed durations
};

struct LinkUse {
  std::string name;
  double capacity_bytes_per_s = 0;
  double bytes = 0;
  double mean_utilization = 0;  // bytes / (capacity x replayed span)
  double peak_utilization = 0;
};

struct RankCommunication {
  int32_t rank = -1;
  TimeNs communication_ns = 0, exposed_ns = 0;
};

struct CriticalItem {
  std::string name;
  int32_t rank = -1;
  std::string lane;           // "stream 7", "thread 727"
  std::string kind;
  TimeNs ns = 0;              // time on the path
  int64_t count = 0;
};

// A selected collective member on a side stream after a schedule change (comm_stream=side,
// comm_deps, comm_split, comm_merge): what the graph keeps holding it back, and which of those
// its replayed start waited for.
struct HeldCollective {
  std::string name;
  int32_t rank = -1;
  std::string step;
  std::string kept;     // "launch (cudaLaunchKernel); event wait on nvjet_tst_..."
  std::string held_by;  // the replay: "event wait on nvjet_tst_...", "launch (cudaLaunchKernel)", "its measured start"
};

struct WhatIfSummary {
  std::string topology;
  std::string calibration;
  std::vector<std::string> changes;       // one line per transform that changed something
  std::vector<HeldCollective> held;       // the moved collectives' dependencies (empty when no schedule change)
  std::vector<StepTimes> steps;           // per step, per process
  // Mean over steps of the slowest process's time, rounded to whole ns; 0 when there is no step.
  double step_ns = 0, measured_step_ns = 0, gpu_step_ns = 0, measured_gpu_step_ns = 0;
  TimeNs span_ns = 0;                     // first start .. last end of the replay
  std::vector<RankCommunication> communication;           // replay, per rank (predicted trace's analysis)
  std::vector<RankCommunication> measured_communication;  // the measured trace's analysis
  TimeNs exposed_ns = 0, measured_exposed_ns = 0;         // max over ranks, over the whole trace
  double step_exposed_ns = 0;             // replay: mean over steps of the most exposed rank's StepTimes::exposed_ns
  double measured_step_exposed_ns = 0;    // the same of StepTimes::measured_exposed_ns
  std::vector<LinkUse> links;             // busiest first
  CriticalPath critical;
  std::vector<CriticalItem> critical_items;  // the path's time by (rank, lane, name), largest first
  std::vector<Divergence> divergences;    // replay vs measured by name, largest |difference| first
  double comm_slowdown = 0;               // the replay's communication slow-down beside compute
  // Where comm_slowdown came from: "a-priori (machine h200x2, <source>)", "calibrated on this trace
  // (comm_slowdown=-1: fitted, not a prediction)" or "set (comm_slowdown=0.2)".
  std::string comm_slowdown_source;
  bool comm_slowdown_fitted = false;      // calibrated on the replayed trace itself
  uint64_t simulations = 0;               // collectives simulated for this run (others came from the cache)
  uint64_t replay_events = 0;
  std::vector<std::string> warnings;
};

struct WhatIfOutput {
  WhatIfSummary summary;
  std::optional<Trace> trace;
  DepGraph graph;       // after the transforms
  ReplayResult replay;
};

// Throws sim::KnobError for bad knob values, Cancelled when in.cancel is set, std::invalid_argument for impossible requests
// (scale_gpus not a multiple of the traced GPUs, a topology without enough GPUs).
WhatIfOutput run_whatif(const WhatIfInput& in);

// The difference of two runs (b - a) for the report: step time, exposed communication, and per
// kernel name the summed time.
struct WhatIfDiff {
  double step_ns = 0, gpu_step_ns = 0;
  TimeNs exposed_ns = 0;
  std::vector<Divergence> by_name;  // a's time in measured_ns, b's in replay_ns
};
WhatIfDiff diff_runs(const WhatIfOutput& a, const WhatIfOutput& b, size_t top = 10);

}  // namespace parascope::whatif
