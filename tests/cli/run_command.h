// Runs a command line for tests and captures exit code, stdout and stderr.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace parascope::test {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline CommandResult run_command(const std::string& cmd) {
  const auto dir = std::filesystem::temp_directory_path();
  const auto err_path = dir / ("parascope-cmd-err-" + std::to_string(::getpid()));
  CommandResult r;
  FILE* p = ::popen((cmd + " 2>" + err_path.string()).c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = ::pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.err = slurp(err_path);
  std::filesystem::remove(err_path);
  return r;
}

}  // namespace parascope::test
