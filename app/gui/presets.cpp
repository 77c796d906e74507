// sim headers first: sim/workload.h names a member `slots`, which Qt's headers make a keyword
#include "sim/simulation.h"
#include "trace/core/trace_machine.h"

#include "gui/presets.h"

#include <cstdlib>
#include <mutex>

#ifndef PARASCOPE_RESOURCE_DIR
#define PARASCOPE_RESOURCE_DIR "resources"
#endif

namespace parascope::gui {

QString resources_dir() {
  if (const char* env = std::getenv("PARASCOPE_RESOURCES")) return QString::fromLocal8Bit(env);
  return QStringLiteral(PARASCOPE_RESOURCE_DIR);
}

const std::vector<Preset>& topology_presets() {
  static std::once_flag once;
  static std::vector<Preset> presets;
  std::call_once(once, [] {
    const std::string dir = (resources_dir() + "/topologies").toStdString();
    for (const std::string& name : sim::preset_names(dir)) {
      try {
        presets.push_back({QString::fromStdString(name), sim::find_topology(name, dir)});
      } catch (const std::exception&) {
      }
    }
  });
  return presets;
}

int matching_preset(const Trace& trace) {
  std::vector<Topology> candidates;
  for (const Preset& p : topology_presets()) candidates.push_back(p.topology);
  return best_matching_topology(trace, candidates);
}

}  // namespace parascope::gui
