#include "render/timeline_mapping.h"

#include <cmath>
#include <cstdio>

namespace parascope::render {

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

}  // namespace parascope::render
