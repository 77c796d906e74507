#include "models/timeline_mapping.h"

#include <cmath>
#include <cstdio>

namespace parascope::models {

TimeNs tick_step(const TimelineMapping& m, double min_px) {
  const double want = m.ns_per_px() * min_px;
  TimeNs base = 1;
  while (true) {
    for (TimeNs mult : {1, 2, 5}) {
      const TimeNs step = base * mult;
      if (static_cast<double>(step) >= want) return step;
    }
    if (base > INT64_MAX / 100) return base * 10;
    base *= 10;
  }
}

std::string tick_label(TimeNs t, TimeNs origin, TimeNs step) {
  const TimeNs rel = t - origin;
  const double a = static_cast<double>(rel);
  char buf[48];
  const char* unit;
  double scale;
  TimeNs unit_ns;
  if (step >= kNsPerS || std::fabs(a) >= 1.0 * kNsPerS) { unit = "s"; scale = 1e-9; unit_ns = kNsPerS; }
  else if (step >= kNsPerMs || std::fabs(a) >= 1.0 * kNsPerMs) { unit = "ms"; scale = 1e-6; unit_ns = kNsPerMs; }
  else if (step >= kNsPerUs || std::fabs(a) >= 1.0 * kNsPerUs) { unit = "us"; scale = 1e-3; unit_ns = kNsPerUs; }
  else { unit = "ns"; scale = 1; unit_ns = 1; }
  int decimals = 0;
  for (TimeNs s = step; s < unit_ns && decimals < 9; s *= 10) ++decimals;
  std::snprintf(buf, sizeof buf, "%.*f %s", decimals, a * scale, unit);
  return buf;
}

std::string tick_label_absolute(TimeNs t, TimeNs step) {
  if (t < kEpochLike) return tick_label(t, 0, step);
  const TimeNs day_ns = t % (86'400 * kNsPerS);
  const TimeNs secs = day_ns / kNsPerS;
  const TimeNs frac = day_ns % kNsPerS;
  int digits = 0;
  for (TimeNs s = step; s < kNsPerS && digits < 9; s *= 10) ++digits;
  char buf[48];
  int n = std::snprintf(buf, sizeof buf, "%02lld:%02lld:%02lld", static_cast<long long>(secs / 3600),
                        static_cast<long long>(secs / 60 % 60), static_cast<long long>(secs % 60));
  if (digits > 0) {
    TimeNs f = frac;
    for (int i = digits; i < 9; ++i) f /= 10;
    std::snprintf(buf + n, sizeof buf - static_cast<size_t>(n), ".%0*lld", digits, static_cast<long long>(f));
  }
  return buf;
}

}  // namespace parascope::models
