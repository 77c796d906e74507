// One line saying why a PKB task did not produce a result, read off what its run printed: a
// missing Python package names the package, a Python exception gives its last line (the worker's
// traceback reaches run_local.py's stderr), a timeout says so; otherwise the exit status and the
// last line of stderr. Used for every failing task of `pkb run` and `pkb eval`.
#pragma once

#include <string>
#include <string_view>

namespace parascope::pkb {

struct RunOutcome {
  int exit_code = 0;          // 128 + signal when killed
  bool timed_out = false;
  double timeout_s = 0;
  std::string_view out, err;  // what the run printed (tails are enough)
};

std::string failure_reason(const RunOutcome& o);

// "missing Python package 'X'" when the text holds a ModuleNotFoundError, else empty.
std::string missing_package(std::string_view text);

}  // namespace parascope::pkb
