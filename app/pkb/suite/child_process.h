// Runs a command as a child in a process group of its own, its output into files, bounded by a
// timeout after which its whole process tree is ended (SIGTERM, then SIGKILL after 5 s): torchrun
// starts its workers in sessions of their own, so a process group alone would not reach them; the
// tree is found by parent pid under /proc. Anything of the tree left after the child exits is ended.
#pragma once

#include <string>
#include <vector>

namespace parascope::pkb {

struct ChildResult {
  int exit_code = 0;     // 128 + signal when killed; -1 when it could not be waited for
  bool timed_out = false;
  double wall_s = 0;
};

// `env_extra` ("K=V") is added to this process's environment (replacing the same keys).
ChildResult run_bounded(const std::vector<std::string>& argv, const std::vector<std::string>& env_extra,
                        const std::string& cwd, const std::string& out_path, const std::string& err_path, double timeout_s);

// The last `max_bytes` of a file ("" when it cannot be read).
std::string tail_of(const std::string& path, size_t max_bytes);

}  // namespace parascope::pkb
