#include "cli/machine_option.h"

#include <cstdio>
#include <stdexcept>

#include "cli/cli_args.h"

namespace parascope::cli {

const std::vector<Preset>& cli_presets() {
  static const std::vector<Preset> presets = [] {
    std::vector<std::string> errors;
    std::vector<Preset> p = load_presets(topology_preset_dir(), &errors);
    for (const std::string& e : errors) std::fprintf(stderr, "parascope-cli: skipping preset %s\n", e.c_str());
    return p;
  }();
  return presets;
}

MachineChoice machine_option(const Trace& trace, const MachineRequest& request) {
  MachineChoice c;
  try {
    c = choose_machine(trace, cli_presets(), request);
  } catch (const MachineError& e) {
    throw UsageError(e.what());
  }
  if (request.name == "auto" && c.source == MachineChoice::Source::kInferred && trace.links.empty())
    throw UsageError("--machine auto: no preset has this trace's GPUs; name one (or 'trace')");
  return c;
}

}  // namespace parascope::cli
