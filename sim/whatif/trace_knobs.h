// What a measured trace already says about the what-if knobs: the value each knob has in the run
// (GPUs, NCCL channels, algorithm and protocol from the kernel names, message sizes, the
// collectives present), so a form can show "the trace: 24" beside the knob's range and default.
// Only knobs the dependency graph knows are listed; the others have no traced value.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sim/whatif/dep_graph.h"

namespace parascope::whatif {

// (knob name, the trace's value as text: "24", "4 .. 24", "ring", "64MiB") in registry order.
std::vector<std::pair<std::string, std::string>> trace_knob_values(const DepGraph& g);

}  // namespace parascope::whatif
