// `--set knob=value` (repeatable; report's --whatif likewise) parsed once, here at the edge, into
// typed KnobSettings (sim/knobs.h): UsageError for text that is not knob=value, KnobError (exit 2,
// with the registry's suggestion) for an unknown knob or a bad value.
#pragma once

#include <string>

#include "cli/cli_args.h"
#include "sim/knobs.h"

namespace parascope::cli {

sim::KnobSettings knob_options(const Args& args, const std::string& option);

}  // namespace parascope::cli
