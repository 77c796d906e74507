#include "trace/core/time.h"

#include <chrono>
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

std::string format_utc(TimeNs epoch_ns) {
  using namespace std::chrono;
  const TimeNs day_ns = 86'400 * kNsPerS;
  TimeNs days = epoch_ns / day_ns, rest = epoch_ns % day_ns;
  if (rest < 0) {
    rest += day_ns;
    --days;
  }
  const year_month_day ymd{sys_days{std::chrono::days{days}}};
  const TimeNs secs = rest / kNsPerS;
  TimeNs frac = rest % kNsPerS;
  char buf[64];
  int n = std::snprintf(buf, sizeof buf, "%04d-%02u-%02u %02lld:%02lld:%02lld", static_cast<int>(ymd.year()),
                        static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()), static_cast<long long>(secs / 3600),
                        static_cast<long long>(secs / 60 % 60), static_cast<long long>(secs % 60));
  if (frac) {
    int digits = 9;
    while (frac % 10 == 0) {
      frac /= 10;
      --digits;
    }
    n += std::snprintf(buf + n, sizeof buf - static_cast<size_t>(n), ".%0*lld", digits, static_cast<long long>(frac));
  }
  std::snprintf(buf + n, sizeof buf - static_cast<size_t>(n), " UTC");
  return buf;
}

}  // namespace parascope
