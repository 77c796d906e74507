// The offset between a GPU's %globaltimer (what probe records and PM samples carry) and the CUPTI
// clock (what activity records carry), measured by a tiny kernel in the program's own context:
// the kernel waits for the host to raise a flag in mapped host memory, then writes %globaltimer
// back; the host brackets each exchange with CUPTI timestamps. offset = midpoint − globaltimer of
// the narrowest of 32 exchanges; uncertainty = half its width (PCIe round trip, ~1 µs).
// Runs on the collector's writer thread; the kernel shows in the trace as "parascope_clock_sync".
// launch_clock_brackets() runs `count` one-thread kernels "parascope_clock_bracket" (block
// (i + 1, round): the index and round can be read back from the CUPTI kernel record) that read
// %globaltimer first and last; with their CUPTI start/end they bound the offset (clock_bounds.h).
#pragma once

#include <cuda.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "trace/collector/driver_api.h"

namespace parascope::collector {

struct ClockOffset {
  int64_t cupti_minus_globaltimer_ns = 0;
  uint64_t uncertainty_ns = 0;  // half the narrowest host window
  uint32_t samples = 0;
  uint64_t measured_at_ns = 0;  // CUPTI time
  int64_t window_lo_ns = 0, window_hi_ns = 0;  // the narrowest window as bounds: t0 − g, t1 − g
};

struct BracketReading {
  uint64_t g_first = 0, g_last = 0;
};

// `now` returns the CUPTI clock (cuptiGetTimestamp). false with *error on any driver failure or
// when the kernel did not answer within 2 s (the device busy with other work the whole time).
bool measure_clock_offset(const DriverApi& d, CUcontext ctx, const std::function<uint64_t()>& now, ClockOffset* out,
                          std::string* error);

// Launches the bracket kernels one after another on a stream of their own, waits, and returns the
// %globaltimer pairs (index i = block.x − 1). round: 1..64 (block.y).
bool launch_clock_brackets(const DriverApi& d, CUcontext ctx, uint32_t round, uint32_t count,
                           std::vector<BracketReading>* out, std::string* error);

}  // namespace parascope::collector
