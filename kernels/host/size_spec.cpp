#include "host/size_spec.h"

#include <charconv>

namespace parascope::bench {

namespace {
std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    const size_t pos = text.find(sep, start);
    out.push_back(text.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return out;
}
}  // namespace

uint64_t parse_bytes(std::string_view text) {
  uint64_t value = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  const auto [p, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || p == begin) throw UsageError("not a size: '" + std::string(text) + "' (examples: 4096, 4KiB, 1GiB)");
  const std::string_view unit(p, static_cast<size_t>(end - p));
  int shift = -1;
  if (unit.empty() || unit == "B") shift = 0;
  else if (unit == "K" || unit == "KiB") shift = 10;
  else if (unit == "M" || unit == "MiB") shift = 20;
  else if (unit == "G" || unit == "GiB") shift = 30;
  if (shift < 0) throw UsageError("unknown size unit in '" + std::string(text) + "' (B, KiB, MiB, GiB)");
  if (value > (~uint64_t{0} >> shift)) throw UsageError("size too large: '" + std::string(text) + "'");
  return value << shift;
}

std::string format_bytes(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  uint64_t v = bytes;
  while (u < 4 && v >= 1024 && v % 1024 == 0) {
    v /= 1024;
    ++u;
  }
  return std::to_string(v) + " " + kUnits[u];
}

std::vector<uint64_t> log_sweep(uint64_t lo, uint64_t hi, uint64_t factor) {
  if (factor < 2) throw UsageError("sweep factor must be at least 2");
  if (lo == 0 || lo > hi) throw UsageError("sweep needs 0 < lo <= hi");
  std::vector<uint64_t> out;
  for (uint64_t v = lo; v <= hi; v *= factor) {
    out.push_back(v);
    if (v > hi / factor) break;
  }
  return out;
}

std::vector<uint64_t> parse_size_list(std::string_view text) {
  if (text.find(':') != std::string_view::npos) {
    const auto parts = split(text, ':');
    if (parts.size() != 3 || parts[2].size() < 2 || parts[2][0] != 'x')
      throw UsageError("a sweep is LO:HI:xFACTOR, e.g. 1KiB:1GiB:x4, not '" + std::string(text) + "'");
    uint64_t factor = 0;
    const auto f = parts[2].substr(1);
    const auto [p, ec] = std::from_chars(f.data(), f.data() + f.size(), factor);
    if (ec != std::errc() || p != f.data() + f.size()) throw UsageError("bad sweep factor in '" + std::string(text) + "'");
    return log_sweep(parse_bytes(parts[0]), parse_bytes(parts[1]), factor);
  }
  std::vector<uint64_t> out;
  for (const auto part : split(text, ',')) out.push_back(parse_bytes(part));
  return out;
}

std::vector<int> parse_int_list(std::string_view text, int lo, int hi) {
  std::vector<int> out;
  for (const auto part : split(text, ',')) {
    int v = 0;
    const auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (ec != std::errc() || p != part.data() + part.size() || part.empty())
      throw UsageError("not an integer: '" + std::string(part) + "' in '" + std::string(text) + "'");
    if (v < lo || v > hi)
      throw UsageError(std::to_string(v) + " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    out.push_back(v);
  }
  return out;
}

}  // namespace parascope::bench
