// The machine presets (trace/core/topology_presets.h) for the GUI's views: the topology dock's
// machine choices, the roofline's ceilings and the what-if panel's machines, read once per process.
// Which machine a view starts on is choose_machine's (trace/core/machine_choice.h), as in the CLI.
#pragma once

#include <vector>

#include "trace/core/machine_choice.h"

namespace parascope::gui {

using Preset = parascope::Preset;

const std::vector<Preset>& topology_presets();  // files that do not load are left out (the CLI names them)
// The position in topology_presets() of the preset a choice took, or -1 (the trace's own, inferred, a file).
int preset_index(const MachineChoice& choice);

}  // namespace parascope::gui
