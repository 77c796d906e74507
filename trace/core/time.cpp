#include "trace/core/time.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace parascope {

std::string format_duration(TimeNs ns) {
  const double a = std::fabs(static_cast<double>(ns));
  const char* unit = "ns";
  double v = static_cast<double>(ns);
  if (a >= 1e9) {
    v /= 1e9;
    unit = "s";
  } else if (a >= 1e6) {
    v /= 1e6;
    unit = "ms";
  } else if (a >= 1e3) {
    v /= 1e3;
    unit = "us";
  }
  char buf[48];
  if (unit[0] == 'n' && unit[1] == 's') {
    std::snprintf(buf, sizeof buf, "%lld ns", static_cast<long long>(ns));
  } else {
    const double av = std::fabs(v);
    const int decimals = av >= 100 ? 1 : (av >= 10 ? 2 : 3);
    std::snprintf(buf, sizeof buf, "%.*f %s", decimals, v, unit);
  }
  return buf;
}

}  // namespace parascope
