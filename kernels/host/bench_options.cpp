#include "host/bench_options.h"

#include <charconv>
#include <cstdlib>

#include "host/size_spec.h"

namespace parascope::bench {

Options::Options(const std::vector<std::string>& args, std::vector<OptionSpec> specs) : specs_(std::move(specs)) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const OptionSpec* spec = nullptr;
    for (const auto& s : specs_)
      if (s.name == a) spec = &s;
    if (!spec) throw UsageError("unknown option '" + a + "' (try --help)");
    if (spec->takes_value) {
      if (i + 1 >= args.size()) throw UsageError("option " + a + " needs a value");
      values_[a] = args[++i];
    } else {
      values_[a] = std::string(1, '1');  // (not = "1": a GCC 12 -Wrestrict false positive)
    }
  }
}

std::string Options::get(const std::string& name, const std::string& dflt) const {
  const auto it = values_.find(name);
  return it == values_.end() ? dflt : it->second;
}

int Options::get_int(const std::string& name, int dflt) const {
  const auto it = values_.find(name);
  if (it == values_.end()) return dflt;
  int v = 0;
  const auto& s = it->second;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) throw UsageError(name + " needs an integer, not '" + s + "'");
  return v;
}

double Options::get_double(const std::string& name, double dflt) const {
  const auto it = values_.find(name);
  if (it == values_.end()) return dflt;
  char* end = nullptr;
  const double v = std::strtod(it->second.c_str(), &end);
  if (end == it->second.c_str() || *end) throw UsageError(name + " needs a number, not '" + it->second + "'");
  return v;
}

std::string Options::usage() const {
  std::string out = "options:\n";
  for (const auto& s : specs_) out += "  " + s.name + (s.takes_value ? " " : "") + s.help + "\n";
  return out;
}

bool Options::wants_help(const std::vector<std::string>& args) {
  for (const auto& a : args)
    if (a == "--help" || a == "-h") return true;
  return false;
}

std::vector<std::string> split_list(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t pos = s.find(sep, start);
    out.push_back(s.substr(start, pos == std::string::npos ? std::string::npos : pos - start));
    if (pos == std::string::npos) break;
    start = pos + 1;
  }
  return out;
}

bool excluded(const std::vector<std::string>& tokens, const std::string& name) {
  for (const auto& t : tokens)
    if (!t.empty() && name.find(t) != std::string::npos) return true;
  return false;
}

DType parse_dtype(const std::string& s) {
  if (s == "bf16") return DType::kBF16;
  if (s == "fp32") return DType::kF32;
  throw UsageError("dtype must be bf16 or fp32, not '" + s + "'");
}

}  // namespace parascope::bench
