#include "trace/core/counter_unit.h"

#include <cmath>
#include <cstdio>

#include "trace/core/data_table.h"

namespace parascope {

CounterUnit parse_counter_unit(std::string_view t) {
  if (t.empty()) return CounterUnit::kNone;
  if (t == "bytes" || t == "B") return CounterUnit::kBytes;
  if (t == "bytes/s" || t == "B/s") return CounterUnit::kBytesPerS;
  if (t == "%" || t == "percent") return CounterUnit::kPercent;
  if (t == "count") return CounterUnit::kCount;
  return CounterUnit::kOther;
}

CounterUnit counter_unit(const Trace& trace, const Track& track) { return parse_counter_unit(trace.str(track.unit)); }

namespace {

std::string plain(double v) {
  char buf[48];
  if (std::floor(v) == v && std::fabs(v) < 1e15) std::snprintf(buf, sizeof buf, "%.0f", v);
  else std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

}  // namespace

std::string format_counter_value(double v, CounterUnit unit, std::string_view unit_text) {
  switch (unit) {
    case CounterUnit::kBytes: return format_bytes_decimal(v);
    case CounterUnit::kBytesPerS: return format_rate(v);
    case CounterUnit::kPercent: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.1f %%", v);
      return buf;
    }
    case CounterUnit::kCount:
    case CounterUnit::kNone: return plain(v);
    case CounterUnit::kOther: return plain(v) + " " + std::string(unit_text);
  }
  return plain(v);
}

std::string format_counter_value(const Trace& trace, const Track& track, double value) {
  return format_counter_value(value, counter_unit(trace, track), trace.str(track.unit));
}

}  // namespace parascope
