#include "trace/collector/clock_bounds.h"

#include <algorithm>

namespace parascope::collector {

ClockBounds host_window_bounds(uint64_t t0, uint64_t t1, uint64_t g) {
  if (t1 < t0) return {};
  return {static_cast<int64_t>(t0) - static_cast<int64_t>(g), static_cast<int64_t>(t1) - static_cast<int64_t>(g), true};
}

ClockBounds kernel_bracket_bounds(uint64_t cupti_start, uint64_t cupti_end, uint64_t g_first, uint64_t g_last) {
  if (cupti_end < cupti_start || g_last < g_first) return {};
  ClockBounds b{static_cast<int64_t>(cupti_start) - static_cast<int64_t>(g_first),
                static_cast<int64_t>(cupti_end) - static_cast<int64_t>(g_last), true};
  b.valid = b.lo <= b.hi;  // a kernel shorter than its own two reads: clocks inconsistent
  return b;
}

ClockBounds intersect(const ClockBounds& a, const ClockBounds& b) {
  if (!a.valid) return b;
  if (!b.valid) return a;
  ClockBounds r{std::max(a.lo, b.lo), std::min(a.hi, b.hi), true};
  r.valid = r.lo <= r.hi;
  return r;
}

ClockEstimate combine_clock_bounds(const ClockBounds& host, const ClockBounds& brackets) {
  ClockEstimate e;
  auto from = [&](const ClockBounds& b, const char* method) {
    e.offset_ns = b.midpoint();
    e.uncertainty_ns = (b.width() + 1) / 2;
    e.method = method;
  };
  if (host.valid && brackets.valid) {
    const ClockBounds both = intersect(host, brackets);
    if (both.valid) {
      from(both, "host window ∩ kernel brackets");
      return e;
    }
    from(brackets, "kernel brackets");
    const int64_t gap = host.hi < brackets.lo ? brackets.lo - host.hi : host.lo - brackets.hi;
    e.note = "the host window and the kernel brackets miss each other by " + std::to_string(gap) +
             " ns (CUPTI's conversion of GPU kernel times differs from cuptiGetTimestamp by at least that)";
    return e;
  }
  if (brackets.valid) from(brackets, "kernel brackets");
  else if (host.valid) from(host, "host window");
  return e;
}

}  // namespace parascope::collector
