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
// A time at or past this is taken for an epoch time (ns since 1970 UTC, ~1973 on): wall-clock
// sources (Kineto's baseTimeNanoseconds, CUPTI's CLOCK_REALTIME, Nsight's utcEpochNs) land there,
// a file's own clock (zero at its start) stays far below.
inline constexpr TimeNs kEpochLike = 100'000'000'000'000'000;

constexpr TimePs ns_to_ps(TimeNs ns) { return ns * kPsPerNs; }
// Rounds to the nearest nanosecond, halves away from zero.
constexpr TimeNs ps_to_ns(TimePs ps) {
  return ps >= 0 ? (ps + kPsPerNs / 2) / kPsPerNs : -((-ps + kPsPerNs / 2) / kPsPerNs);
}

// "1.234 ms", "850 ns", "12.5 us": at most 4 significant digits, unit chosen by magnitude.
std::string format_duration(TimeNs ns);
// An epoch time as a UTC date and time: "2026-10-01 12:17:06 UTC", "2026-10-01 12:17:06.0005 UTC"
// (the fraction only as long as it needs, at most nanoseconds).
std::string format_utc(TimeNs epoch_ns);

}  // namespace parascope
