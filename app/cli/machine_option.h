// `--machine trace|auto|NAME|FILE` for the verbs that need the machine a trace ran on (links,
// roofline, report): 'trace' its own topology (or one inferred from its devices and counters),
// 'auto' the preset matching its GPUs (trace_machine.h), else a preset name or topology file.
#pragma once

#include <optional>
#include <string>

#include "trace/core/trace.h"

namespace parascope::cli {

// nullopt for 'trace' (and for 'auto' when the trace carries a topology); UsageError when 'auto'
// finds no preset with the trace's GPUs, or NAME is neither a preset nor a file.
std::optional<Topology> machine_option(const Trace& trace, const std::string& value);

}  // namespace parascope::cli
