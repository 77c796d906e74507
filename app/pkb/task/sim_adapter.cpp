#include "pkb/task/sim_adapter.h"

#include "sim/simulation.h"
#include "sim/workload_spec.h"
#include "trace/core/topology_presets.h"

namespace parascope::pkb {

std::string SimRequest::spec() const {
  std::string s = op;
  for (size_t i = 0; i < knobs.size(); ++i) s += (i ? "," : ":") + knobs[i].first + "=" + knobs[i].second;
  return s;
}

SimAnswer simulate_step(const Topology& machine, const SimRequest& r) {
  SimAnswer a;
  try {
    sim::SimulationInput in;
    in.topology = machine;
    in.steps = sim::parse_workload_spec(r.spec());
    const sim::SimulationOutput out = sim::run_simulation(in);
    a.seconds = static_cast<double>(out.summary.makespan) * 1e-12;
    a.ok = a.seconds > 0;
    if (!a.ok) a.error = "the simulation took no time";
  } catch (const std::exception& e) {
    a.error = e.what();
  }
  return a;
}

Topology load_machine(const std::string& name_or_path, const std::string& preset_dir) {
  return find_topology(name_or_path, preset_dir);
}

std::vector<std::string> machine_presets(const std::string& preset_dir) { return preset_names(preset_dir); }

}  // namespace parascope::pkb
