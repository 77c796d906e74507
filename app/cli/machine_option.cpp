#include "cli/machine_option.h"

#include <stdexcept>

#include "cli/cli_args.h"
#include "cli/verbs.h"
#include "sim/simulation.h"
#include "trace/core/trace_machine.h"

namespace parascope::cli {

std::optional<Topology> machine_option(const Trace& trace, const std::string& value) {
  if (value == "trace") return std::nullopt;
  if (value == "auto") {
    if (trace.topology) return std::nullopt;
    std::vector<Topology> candidates;
    for (const std::string& n : sim::preset_names(topology_preset_dir())) candidates.push_back(sim::find_topology(n, topology_preset_dir()));
    const int best = best_matching_topology(trace, candidates);
    if (best < 0) throw UsageError("--machine auto: no preset has this trace's GPUs; name one (or 'trace')");
    return candidates[static_cast<size_t>(best)];
  }
  try {
    return sim::find_topology(value, topology_preset_dir());
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

}  // namespace parascope::cli
