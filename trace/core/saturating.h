// Saturating int64 addition for sums of durations and byte counts over a finished trace. A
// damaged input can hold overlapping spans of up to 2^63 ns each (readers bound times to ±2^62 ns,
// not durations' sums); a sum held at the int64 limit stays defined and shows as "huge", where a
// real trace never comes near the limit.
#pragma once

#include <cstdint>
#include <limits>

namespace parascope {

constexpr int64_t add_saturating(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  return r;
}

}  // namespace parascope
