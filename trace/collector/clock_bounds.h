// Bounds on the offset between a GPU's %globaltimer and the CUPTI clock (CUPTI − globaltimer), and
// how two independent measurements combine. CUDA-free, so the arithmetic is unit-tested anywhere.
//   - host window: the host raised a flag at t0 and saw the reply (a globaltimer value g) at t1,
//     both CUPTI time: the offset lies in [t0 − g, t1 − g];
//   - kernel bracket: a kernel read g_first as its first instruction and g_last as its last, and
//     CUPTI stamped it [start, end]: start ≤ g_first + offset and g_last + offset ≤ end, so the
//     offset lies in [start − g_first, end − g_last] (in CUPTI's own kernel time base, which is
//     what probe spans are compared with).
// Every bound is a hard bound; combining intersects them. The estimate is the midpoint, its
// uncertainty half the width.
#pragma once

#include <cstdint>
#include <string>

namespace parascope::collector {

struct ClockBounds {
  int64_t lo = 0, hi = 0;
  bool valid = false;  // false: no measurement, or an empty intersection
  uint64_t width() const { return valid ? static_cast<uint64_t>(hi - lo) : 0; }
  int64_t midpoint() const { return lo + (hi - lo) / 2; }
};

ClockBounds host_window_bounds(uint64_t t0, uint64_t t1, uint64_t g);
ClockBounds kernel_bracket_bounds(uint64_t cupti_start, uint64_t cupti_end, uint64_t g_first, uint64_t g_last);
ClockBounds intersect(const ClockBounds& a, const ClockBounds& b);  // an invalid operand is ignored

struct ClockEstimate {
  int64_t offset_ns = 0;
  uint64_t uncertainty_ns = 0;
  std::string method;  // "host window", "kernel brackets", "host window ∩ kernel brackets"
  std::string note;    // non-empty when the two disagree (no overlap): by how much
};
// Both valid and overlapping: their intersection. Disjoint: the kernel brackets win (probe spans
// are compared with CUPTI's kernel times) and the note says by how many ns they miss each other.
// Only one valid: that one.
ClockEstimate combine_clock_bounds(const ClockBounds& host, const ClockBounds& brackets);

}  // namespace parascope::collector
