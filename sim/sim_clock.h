// The engine's clock is int64 picoseconds (2^63 ps is about 106 days). Durations the models
// compute in double (bytes left / rate, work left / rate) become deadlines only through
// deadline_after, so a rate so small that the deadline would not fit the clock is an error that
// says so, never a float-to-integer overflow or a wrapped clock.
#pragma once

#include <cmath>
#include <stdexcept>
#include <string>

#include "trace/core/time.h"

namespace parascope::sim {

// Throws std::invalid_argument naming `what` when now + ceil(dt_ps) would pass the clock's range.
inline TimePs deadline_after(TimePs now, double dt_ps, const char* what) {
  constexpr double kClockLimitPs = 9.0e18;  // below 2^63 with room for the rounding of the sum
  if (!(dt_ps < kClockLimitPs - static_cast<double>(now)))
    throw std::invalid_argument(std::string(what) + " would end past the simulator's clock range (about 104 days): " +
                                "a rate in the topology or workload is too small");
  return now + static_cast<TimePs>(std::ceil(dt_ps));
}

}  // namespace parascope::sim
