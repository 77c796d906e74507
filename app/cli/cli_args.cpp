#include "cli/cli_args.h"

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

std::string options_help(const std::vector<OptionSpec>& specs) {
  std::string out;
  for (const auto& s : specs) {
    std::string left = "  " + (s.alias.empty() ? "" : s.alias + ", ") + s.name + (s.takes_value ? " VALUE" : "");
    if (left.size() < 28) left.append(28 - left.size(), ' ');
    out += left + " " + s.help + "\n";
  }
  return out;
}

}  // namespace parascope::cli
