#include "cli/knob_options.h"

namespace parascope::cli {

sim::KnobSettings knob_options(const Args& args, const std::string& option) {
  sim::KnobSettings knobs;
  for (const std::string& kv : args.values(option)) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) throw UsageError(option + " expects knob=value, got '" + kv + "'");
    knobs.set(kv.substr(0, eq), kv.substr(eq + 1));
  }
  return knobs;
}

}  // namespace parascope::cli
