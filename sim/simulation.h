// One simulation from its inputs: a topology, workload steps and knob overrides (`--set`, one value
// of a `--sweep`) in, a summary (and optionally a trace) out. `simulate`, its sweeps and the GUI's
// what-if panel all call this, so they cannot differ. Overrides win over the workload's own values;
// topology knobs (link_bandwidth_scale, hbm) shape the sealed platform.
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
  std::vector<std::pair<std::string, std::string>> overrides;  // knob, value text
  bool want_trace = false;
};

struct SimulationOutput {
  SimSummary summary;
  std::optional<Trace> trace;
  FlowModelStats stats;
};

// Throws KnobError for bad knob values or workloads the platform cannot run.
SimulationOutput run_simulation(const SimulationInput& in);

// `name_or_path`: a file, or the name of a preset `<preset_dir>/<name>.json`. InputError when the
// file is bad (with the JSON path); std::invalid_argument listing the presets when the name is unknown.
Topology find_topology(const std::string& name_or_path, const std::string& preset_dir);
std::vector<std::string> preset_names(const std::string& preset_dir);

}  // namespace parascope::sim
