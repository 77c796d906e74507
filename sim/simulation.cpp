#include "sim/simulation.h"

namespace parascope::sim {

SimulationOutput run_simulation(const SimulationInput& in) {
  std::vector<WorkloadStep> steps = in.steps;
  for (WorkloadStep& s : steps) s.knobs.merge(in.overrides);
  const Platform platform = Platform::seal(in.topology, platform_options(in.overrides));
  const Workload workload = build_workload(platform, steps);
  SimOptions so;
  so.record_link_samples = in.want_trace;
  so.record_compute_spans = true;
  Simulator sim(platform, workload, so);
  const SimResult result = sim.run();
  SimulationOutput out;
  out.summary = summarize(platform, workload, result, sim);
  out.stats = result.flow_stats;
  if (in.want_trace) out.trace = simulation_trace(platform, workload, result, sim);
  return out;
}

}  // namespace parascope::sim
