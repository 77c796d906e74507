// The output side of a subcommand: rows accumulate in a ResultSet that is rewritten as JSON after
// every row (a crash later loses nothing before it), a progress line per row on stderr, and at the
// end the readable table and the target checks on stdout and in an optional text file.
// run_subcommand wraps a subcommand body with the exit-code conventions of commands.h.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "host/bench_options.h"
#include "host/result_table.h"

namespace parascope::bench {

class Report {
 public:
  Report(const std::string& subcommand, const std::string& command_line, std::string json_path, std::string table_path);
  ResultSet& set() { return set_; }
  void add(ResultRow row);
  void add_target(TargetCheck t) { set_.add_target(std::move(t)); }
  void save() const;
  // Prints (and writes) the table and the targets; saves the JSON.
  void finish(const std::string& title) const;
  bool any_failed() const;

 private:
  ResultSet set_;
  std::string json_path_, table_path_;
};

// Parses options, handles --help, requires `min_gpus` GPUs (else exit 77 with a message), and
// maps exceptions to exit codes. The body returns its own exit code.
int run_subcommand(const std::string& name, const std::vector<std::string>& args, const std::vector<OptionSpec>& specs,
                   int min_gpus, const std::function<int(const Options&)>& body);

}  // namespace parascope::bench
