// `--machine trace|auto|NAME|FILE` (and whatif's --topology) for the verbs that need the machine a
// trace ran on: the choice is choose_machine's (trace/core/machine_choice.h), among the presets,
// loaded once per run; a preset file that does not load is named on stderr and left out.
#pragma once

#include <string>
#include <vector>

#include "trace/core/machine_choice.h"

namespace parascope::cli {

const std::vector<Preset>& cli_presets();

// UsageError when the name is neither a preset nor a file, when a simulation finds no machine, and
// when an explicit 'auto' finds no preset for a trace that has no topology or link counters.
MachineChoice machine_option(const Trace& trace, const MachineRequest& request);

}  // namespace parascope::cli
