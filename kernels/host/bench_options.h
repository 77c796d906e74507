// Command-line options of one subcommand: `--name value` and `--flag`, declared up front with a
// help line, so an unknown or misspelt option is a usage error (exit 2), never silently ignored.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "host/test_data.h"

namespace parascope::bench {

struct OptionSpec {
  std::string name;  // "--sizes"
  bool takes_value = true;
  std::string help;  // "LIST  message sizes (default 4KiB:1GiB:x4)"
};

class Options {
 public:
  // Throws UsageError (size_spec.h) for unknown options, missing values and stray arguments.
  Options(const std::vector<std::string>& args, std::vector<OptionSpec> specs);
  bool has(const std::string& name) const { return values_.count(name) > 0; }
  std::string get(const std::string& name, const std::string& dflt) const;
  int get_int(const std::string& name, int dflt) const;
  double get_double(const std::string& name, double dflt) const;
  std::string usage() const;
  static bool wants_help(const std::vector<std::string>& args);

 private:
  std::vector<OptionSpec> specs_;
  std::map<std::string, std::string> values_;
};

// "a,b,c" → {"a", "b", "c"} (empty fields kept, so "a,,b" has an empty middle entry).
std::vector<std::string> split_list(const std::string& s, char sep = ',');
// True when one of the tokens occurs in `name` ("tma" excludes twoshot_tma, fused_tma, ...): how a
// run leaves out a kernel family that crashed an earlier step.
bool excluded(const std::vector<std::string>& tokens, const std::string& name);
// "bf16" | "fp32"; throws UsageError.
DType parse_dtype(const std::string& s);

}  // namespace parascope::bench
