#include "cli/cli_args.h"

#include <charconv>
#include <cmath>

namespace parascope::cli {

Args::Args(const std::vector<OptionSpec>& specs, const std::vector<std::string>& argv) {
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == "--") {
      rest_.assign(argv.begin() + static_cast<long>(i) + 1, argv.end());
      break;
    }
    if (a.size() > 1 && a[0] == '-' && a != "-") {
      std::string name = a, inline_value;
      bool has_inline = false;
      if (const size_t eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
        name = a.substr(0, eq);
        inline_value = a.substr(eq + 1);
        has_inline = true;
      }
      const OptionSpec* spec = nullptr;
      for (const auto& s : specs)
        if (s.name == name || (!s.alias.empty() && s.alias == name)) spec = &s;
      if (!spec) throw UsageError("unknown option " + name);
      if (!spec->repeatable && values_.count(spec->name)) throw UsageError("option " + spec->name + " given twice");
      if (spec->takes_value) {
        if (has_inline) {
          values_[spec->name].push_back(inline_value);
        } else {
          if (i + 1 >= argv.size()) throw UsageError("option " + spec->name + " needs a value");
          values_[spec->name].push_back(argv[++i]);
        }
      } else {
        if (has_inline) throw UsageError("option " + spec->name + " takes no value");
        values_[spec->name].push_back("");
      }
      continue;
    }
    inputs_.push_back(a);
  }
}

std::optional<std::string> Args::value(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end() || it->second.empty()) return std::nullopt;
  return it->second.back();
}

std::vector<std::string> Args::values(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

int64_t Args::integer(const std::string& name, int64_t fallback, int64_t min, int64_t max) const {
  const auto v = value(name);
  if (!v) return fallback;
  int64_t n = 0;
  const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
  if (ec != std::errc() || end != v->data() + v->size() || n < min || n > max)
    throw UsageError(name + " needs a whole number" +
                     (max == INT64_MAX ? " of at least " + std::to_string(min)
                                       : " from " + std::to_string(min) + " to " + std::to_string(max)) +
                     ", got '" + *v + "'");
  return n;
}

std::string options_help(const std::vector<OptionSpec>& specs) {
  std::string out;
  for (const auto& s : specs) {
    std::string left = "  " + (s.alias.empty() ? "" : s.alias + ", ") + s.name + (s.takes_value ? " VALUE" : "");
    if (left.size() < 28) left.append(28 - left.size(), ' ');
    out += left + " " + s.help + "\n";
  }
  return out;
}

int64_t parse_time(const std::string& opt, const std::string& text) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    throw UsageError(opt + " expects a time such as 1500, 1.5us, 2ms or 0.25s, not '" + text + "'");
  }
  const std::string unit = text.substr(used);
  double scale = 1;
  if (unit.empty() || unit == "ns") scale = 1;
  else if (unit == "us") scale = 1e3;
  else if (unit == "ms") scale = 1e6;
  else if (unit == "s") scale = 1e9;
  else throw UsageError(opt + ": unknown unit '" + unit + "' (ns, us, ms, s)");
  return static_cast<int64_t>(std::llround(v * scale));
}

TimeWindow parse_window(const Args& args, int64_t span_start, int64_t span_end, bool absolute) {
  TimeWindow w{span_start, span_end};
  const int64_t base = absolute ? 0 : span_start;
  if (const auto f = args.value("--from")) w.start = base + parse_time("--from", *f);
  if (const auto t = args.value("--to")) w.end = base + parse_time("--to", *t);
  if (w.end <= w.start) throw UsageError("the window is empty (--to must be after --from)");
  return w;
}

}  // namespace parascope::cli
