// The trace a verb's INPUT... names, loaded the way every verb loads it: --lenient skips malformed
// events (and counts them), a progress bar on stderr unless --quiet or --json. Bad input is an
// InputError naming the file (main prints it on one line, exit 1).
#pragma once

#include <string>
#include <vector>

#include "cli/cli_args.h"
#include "trace/io/load_trace.h"

namespace parascope::cli {

// args.inputs() as one trace; UsageError when there are none.
Trace load_inputs(const Args& args, LoadReport* report = nullptr);
// `inputs` (some of args.inputs(): diff's A or B) as one trace, with args' --lenient and --quiet.
Trace load_inputs(const Args& args, const std::vector<std::string>& inputs, LoadReport* report = nullptr);

}  // namespace parascope::cli
