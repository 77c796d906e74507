// parascope-bench SUBCOMMAND [options] — real multi-GPU kernels, their baselines and timings.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench/commands.h"

namespace {
struct Command {
  const char* name;
  const char* summary;
  int (*run)(const std::vector<std::string>&);
};
constexpr Command kCommands[] = {
    {"devices", "GPUs, SM counts, clocks and the peer-access matrix", parascope::bench::cmd_devices},
};
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "help")) {
    std::printf("usage: parascope-bench SUBCOMMAND [options]\n\n");
    for (const auto& c : kCommands) std::printf("  %-10s %s\n", c.name, c.summary);
    return argc < 2 ? 2 : 0;
  }
  for (const auto& c : kCommands)
    if (!std::strcmp(argv[1], c.name)) return c.run(std::vector<std::string>(argv + 2, argv + argc));
  std::fprintf(stderr, "parascope-bench: unknown subcommand '%s'\n", argv[1]);
  return 2;
}
