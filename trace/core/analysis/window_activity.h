// What one device did inside a time window: the same interval sets as device_activity() (device,
// per stream, per SM lane), built only from the slices that overlap [start, end) and clipped to
// it, so a selected kernel or range costs what is inside it rather than the whole trace. Feed the
// result to compute_overlap() for per-stream and per-device exposed communication, or read the SM
// lanes' sets for the share of the window each SM spent computing, communicating and waiting.
#pragma once

#include "trace/core/analysis/device_activity.h"

namespace parascope {

DeviceActivity device_activity_in(const Trace& trace, const SliceClassifier& classify, uint32_t device, Interval window);

// Per SM lane of a device over a window: time in each probe role (union per role, so overlapping
// spans of one role count once) and time with no span at all.
struct SmWindowShare {
  uint32_t track = 0;
  int64_t sm = 0;
  TimeNs compute_ns = 0, communicate_ns = 0, wait_ns = 0, other_ns = 0;
  TimeNs idle_ns = 0;  // window minus the union of every span
};
std::vector<SmWindowShare> sm_window_shares(const Trace& trace, uint32_t device, Interval window);

}  // namespace parascope
