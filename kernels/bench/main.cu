// parascope-bench SUBCOMMAND [options] — real multi-GPU kernels, their baselines and timings.
#include <cstdio>
#include <cstdlib>
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
    {"p2p", "P2P mechanism sweep (copy engine, TMA, LD/ST push/pull); writes the calibration file", parascope::bench::cmd_p2p},
    {"collectives", "all-reduce, all-gather, reduce-scatter, all-to-all variants against NCCL", parascope::bench::cmd_collectives},
    {"nccl", "NCCL collectives and send/recv inside CUDA graphs (simulator data)", parascope::bench::cmd_nccl},
    {"fused", "all-gather + GEMM and GEMM + reduce-scatter, fused vs cuBLAS + NCCL", parascope::bench::cmd_fused},
    {"selftest", "every kernel against its reference at small sizes (ctest label gpu)", parascope::bench::cmd_selftest},
};
}  // namespace

int main(int argc, char** argv) {
  // Lazy module loading could load a kernel while a kernel on another stream spins waiting for it;
  // the harness preloads its own kernels, and NVLink multicast stays off by policy.
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "help")) {
    std::printf("usage: parascope-bench SUBCOMMAND [options]   (SUBCOMMAND --help for its options)\n\n");
    for (const auto& c : kCommands) std::printf("  %-12s %s\n", c.name, c.summary);
    return argc < 2 ? 2 : 0;
  }
  for (const auto& c : kCommands)
    if (!std::strcmp(argv[1], c.name)) return c.run(std::vector<std::string>(argv + 2, argv + argc));
  std::fprintf(stderr, "parascope-bench: unknown subcommand '%s'\n", argv[1]);
  return 2;
}
