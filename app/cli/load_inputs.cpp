#include "cli/load_inputs.h"

#include "cli/progress.h"

namespace parascope::cli {

Trace load_inputs(const Args& args, LoadReport* report) {
  if (args.inputs().empty()) throw UsageError("no input given");
  return load_inputs(args, args.inputs(), report);
}

Trace load_inputs(const Args& args, const std::vector<std::string>& inputs, LoadReport* report) {
  Progress progress(args.flag("--quiet") || args.flag("--json"));
  LoadOptions lo;
  lo.lenient = args.flag("--lenient");
  lo.progress = [&](const std::string& file, uint64_t done, uint64_t total) { progress.update("reading " + file, done, total); };
  Trace t = load_trace(inputs, lo, report);
  progress.finish();
  return t;
}

}  // namespace parascope::cli
