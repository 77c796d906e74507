// parascope-bench subcommands. Each lives in its own file; main.cu lists them once. Each returns
// the process exit code: 0 all rows passed, 1 a row failed its check, 2 usage error, 3 the CUDA
// context was lost (rows so far are saved), 77 not enough GPUs (ctest reports a skip).
#pragma once

#include <string>
#include <vector>

namespace parascope::bench {

inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitContextLost = 3;
inline constexpr int kExitSkip = 77;

int cmd_devices(const std::vector<std::string>& args);
int cmd_p2p(const std::vector<std::string>& args);
int cmd_collectives(const std::vector<std::string>& args);
int cmd_nccl(const std::vector<std::string>& args);
int cmd_fused(const std::vector<std::string>& args);
int cmd_selftest(const std::vector<std::string>& args);

}  // namespace parascope::bench
