// The simulator's topology presets (resources/topologies/*.json) for the GUI's views: the topology
// dock's machine choices, the roofline's ceilings and the what-if panel's machines. Read once per
// process; $PARASCOPE_RESOURCES overrides the source tree's resources folder, as for the CLI.
#pragma once

#include <QString>
#include <vector>

#include "trace/core/trace.h"

namespace parascope::gui {

struct Preset {
  QString name;       // file name without .json
  Topology topology;
};

QString resources_dir();
const std::vector<Preset>& topology_presets();  // bad files are skipped (the CLI reports them)
// The preset matching the trace's GPUs (trace_machine.h: best_matching_topology), or -1.
int matching_preset(const Trace& trace);

}  // namespace parascope::gui
