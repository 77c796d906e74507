#include "pkb/suite/failure_reason.h"

#include <cctype>
#include <cstdio>
#include <vector>

namespace parascope::pkb {

namespace {

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view l = text.substr(pos, nl - pos);
    while (!l.empty() && (l.back() == '\r' || l.back() == ' ')) l.remove_suffix(1);
    while (!l.empty() && (l.front() == ' ' || l.front() == '\t')) l.remove_prefix(1);
    if (!l.empty()) out.push_back(l);
    pos = nl + 1;
  }
  return out;
}

// "ValueError: ...", "torch.distributed.DistBackendError: ...", "AssertionError" (alone too).
bool is_exception_line(std::string_view l) {
  size_t i = 0;
  while (i < l.size() && (std::isalnum(static_cast<unsigned char>(l[i])) || l[i] == '_' || l[i] == '.')) ++i;
  if (i == 0) return false;
  const std::string_view name = l.substr(0, i);
  const bool named = name.size() >= 5 && (name.substr(name.size() - 5) == "Error" ||
                                          (name.size() >= 9 && name.substr(name.size() - 9) == "Exception") ||
                                          name == "KeyboardInterrupt");
  if (!named) return false;
  return i == l.size() || l[i] == ':';
}

std::string clip(std::string_view s, size_t n = 240) {
  std::string out(s.substr(0, n));
  if (s.size() > n) out += "...";
  return out;
}

}  // namespace

std::string missing_package(std::string_view text) {
  constexpr std::string_view kKey = "No module named '";
  const size_t at = text.rfind(kKey);
  if (at == std::string_view::npos) return {};
  const size_t start = at + kKey.size();
  const size_t end = text.find('\'', start);
  if (end == std::string_view::npos || end == start) return {};
  std::string mod(text.substr(start, end - start));
  return "missing Python package '" + mod.substr(0, mod.find('.')) + "' (No module named '" + mod + "')";
}

std::string failure_reason(const RunOutcome& o) {
  if (o.timed_out) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "timed out after %.0f s", o.timeout_s);
    return buf;
  }
  std::string both(o.err);
  both += "\n";
  both += o.out;
  if (std::string m = missing_package(both); !m.empty()) return m;
  // the last exception line: stderr first (the worker's traceback), then stdout
  for (std::string_view text : {o.err, o.out}) {
    const auto ls = lines_of(text);
    for (auto it = ls.rbegin(); it != ls.rend(); ++it)
      if (is_exception_line(*it)) return clip(*it);
  }
  for (std::string_view text : {o.err, o.out}) {
    const auto ls = lines_of(text);
    for (auto it = ls.rbegin(); it != ls.rend(); ++it)
      if (it->find("out of memory") != std::string_view::npos) return clip(*it);
  }
  std::string r = o.exit_code > 128 ? "killed by signal " + std::to_string(o.exit_code - 128)
                                     : "exit code " + std::to_string(o.exit_code);
  const auto ls = lines_of(o.err.empty() ? o.out : o.err);
  if (!ls.empty()) r += ": " + clip(ls.back());
  return r;
}

}  // namespace parascope::pkb
