// One simulation from its inputs: a topology, workload steps and knob overrides (`--set`, one value
// of a `--sweep`) in, a summary (and optionally a trace) out. `simulate`, its sweeps, the
// calibration fits and the accuracy table all call this, so they cannot differ (the what-if on a
// trace goes through sim/whatif/what_if.h). Overrides win over the workload's own values; topology
// knobs (link_bandwidth_scale, hbm) shape the sealed platform.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/collectives.h"
#include "sim/sim_report.h"

namespace parascope::sim {

struct SimulationInput {
  Topology topology;
  std::vector<WorkloadStep> steps;
  KnobSettings overrides;  // win over every step's own values
  bool want_trace = false;
};

struct SimulationOutput {
  SimSummary summary;
  std::optional<Trace> trace;
  FlowModelStats stats;
};

// Throws KnobError for bad knob values or workloads the platform cannot run.
SimulationOutput run_simulation(const SimulationInput& in);

}  // namespace parascope::sim
