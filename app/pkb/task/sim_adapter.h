// The pkb library's one door to the simulator (sim/simulation.h, sim/knobs.h, sim/workload_spec.h):
// a workload step as an op and knob texts in, the predicted time out, and the machine presets.
// Everything else in app/pkb speaks these plain types, so a change of the simulator's API (typed
// knobs, choose_machine, whatif::compare) is followed here alone.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "trace/core/topology.h"

namespace parascope::pkb {

struct SimRequest {
  std::string op;  // a workload op: allreduce, allgather, reducescatter, alltoall, allgather_gemm, ...
  std::vector<std::pair<std::string, std::string>> knobs;  // knob name, value text
  std::string spec() const;  // "allreduce:gpus=2,bytes=2097152,..." for `parascope-cli simulate --workload`
};

struct SimAnswer {
  bool ok = false;
  double seconds = 0;  // the step's makespan
  std::string error;   // why the simulator refused (a knob the op does not take, ...)
};

SimAnswer simulate_step(const Topology& machine, const SimRequest& r);

// A preset name ("h200x2") or a topology file; std::invalid_argument naming the presets when unknown.
Topology load_machine(const std::string& name_or_path, const std::string& preset_dir);
std::vector<std::string> machine_presets(const std::string& preset_dir);

}  // namespace parascope::pkb
