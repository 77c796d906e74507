// parascope-bench subcommands. Each lives in its own file; main.cu lists them once.
#pragma once

#include <string>
#include <vector>

namespace parascope::bench {

int cmd_devices(const std::vector<std::string>& args);

}  // namespace parascope::bench
