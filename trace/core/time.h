// Time in the trace model: signed 64-bit nanoseconds on one clock per trace (absolute where the
// source gives an epoch, e.g. Kineto's baseTimeNanoseconds; otherwise the source's own zero).
// The simulator counts picoseconds internally and converts with ps_to_ns/ns_to_ps.
#pragma once

#include <cstdint>
#include <string>

namespace parascope {

using TimeNs = int64_t;
using TimePs = int64_t;

inline constexpr TimeNs kNsPerUs = 1'000;
inline constexpr TimeNs kNsPerMs = 1'000'000;
inline constexpr TimeNs kNsPerS = 1'000'000'000;
inline constexpr TimePs kPsPerNs = 1'000;

constexpr TimePs ns_to_ps(TimeNs ns) { return ns * kPsPerNs; }
// Rounds to the nearest nanosecond, halves away from zero.
constexpr TimeNs ps_to_ns(TimePs ps) {
  return ps >= 0 ? (ps + kPsPerNs / 2) / kPsPerNs : -((-ps + kPsPerNs / 2) / kPsPerNs);
}

// "1.234 ms", "850 ns", "12.5 us": at most 4 significant digits, unit chosen by magnitude.
std::string format_duration(TimeNs ns);

}  // namespace parascope
