// Command-line parsing shared by the CLI's verbs: `parascope-cli VERB [options] INPUT...`.
// Options are declared per verb (flag or value, help text); unknown options and missing values
// are usage errors that name the option. Inputs are the remaining arguments.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace parascope::cli {

struct OptionSpec {
  std::string name;       // "--json"
  bool takes_value = false;
  bool repeatable = false;  // --set k=v --set k2=v2
  std::string help;
  std::string alias;      // "-o"
};

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Args {
 public:
  Args(const std::vector<OptionSpec>& specs, const std::vector<std::string>& argv);
  bool flag(const std::string& name) const { return values_.count(name) != 0; }
  std::optional<std::string> value(const std::string& name) const;
  std::vector<std::string> values(const std::string& name) const;
  // A whole-number option in [min, max]; `fallback` when it is absent; UsageError naming it otherwise.
  int64_t integer(const std::string& name, int64_t fallback, int64_t min = 1, int64_t max = INT64_MAX) const;
  const std::vector<std::string>& inputs() const { return inputs_; }
  // Arguments after a bare "--" (record's command line).
  const std::vector<std::string>& rest() const { return rest_; }

 private:
  std::map<std::string, std::vector<std::string>> values_;
  std::vector<std::string> inputs_;
  std::vector<std::string> rest_;
};

std::string options_help(const std::vector<OptionSpec>& specs);

// "1500", "1.5us", "2ms", "0.25s" → ns; UsageError naming `opt` otherwise.
int64_t parse_time(const std::string& opt, const std::string& text);

// --from/--to (relative to the trace start unless `absolute`) → [start, end) on the trace clock,
// defaulting to the trace span; UsageError when empty.
struct TimeWindow {
  int64_t start = 0, end = 0;
};
TimeWindow parse_window(const Args& args, int64_t span_start, int64_t span_end, bool absolute);

}  // namespace parascope::cli
