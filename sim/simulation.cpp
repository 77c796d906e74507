#include "sim/simulation.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "trace/core/topology_json.h"

namespace parascope::sim {

SimulationOutput run_simulation(const SimulationInput& in) {
  KnobSettings global;
  std::vector<WorkloadStep> steps = in.steps;
  for (const auto& [k, v] : in.overrides) {
    global.set(k, v);
    for (WorkloadStep& s : steps) s.knobs.set(k, v);
  }
  PlatformOptions po;
  po.link_bandwidth_scale = global.get_double("link_bandwidth_scale");
  po.hbm = global.get_bool("hbm");
  const Platform platform = Platform::seal(in.topology, po);
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

std::vector<std::string> preset_names(const std::string& preset_dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(preset_dir, ec))
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

Topology find_topology(const std::string& name_or_path, const std::string& preset_dir) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(name_or_path, ec)) return load_topology_file(name_or_path);
  const std::filesystem::path preset = std::filesystem::path(preset_dir) / (name_or_path + ".json");
  if (std::filesystem::is_regular_file(preset, ec)) return load_topology_file(preset.string());
  std::string list;
  for (const auto& n : preset_names(preset_dir)) list += (list.empty() ? "" : ", ") + n;
  throw std::invalid_argument("no topology file or preset named '" + name_or_path + "'" +
                              (list.empty() ? " (no presets found in " + preset_dir + ")" : "; presets: " + list));
}

}  // namespace parascope::sim
