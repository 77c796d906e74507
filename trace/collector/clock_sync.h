// The offset between a GPU's %globaltimer (what probe records and PM samples carry) and the CUPTI
// clock (what activity records carry), measured by a tiny kernel in the program's own context:
// the kernel waits for the host to raise a flag in mapped host memory, then writes %globaltimer
// back; the host brackets each exchange with CUPTI timestamps. offset = midpoint − globaltimer of
// the narrowest of 32 exchanges; uncertainty = half its width (PCIe round trip, ~1 µs).
// Runs on the collector's writer thread; the kernel shows in the trace as "parascope_clock_sync".
#pragma once

#include <cuda.h>

#include <cstdint>
#include <functional>
#include <string>

#include "trace/collector/driver_api.h"

namespace parascope::collector {

struct ClockOffset {
  int64_t cupti_minus_globaltimer_ns = 0;
  uint64_t uncertainty_ns = 0;  // half the narrowest host window
  uint32_t samples = 0;
  uint64_t measured_at_ns = 0;  // CUPTI time
};

// `now` returns the CUPTI clock (cuptiGetTimestamp). false with *error on any driver failure or
// when the kernel did not answer within 2 s (the device busy with other work the whole time).
bool measure_clock_offset(const DriverApi& d, CUcontext ctx, const std::function<uint64_t()>& now, ClockOffset* out,
                          std::string* error);

}  // namespace parascope::collector
