// DeviceActivity: what each GPU was doing over time, as interval sets per category (compute,
// communication, memory, sync), per device, per stream and per SM lane. The analyses (overlap,
// exposed communication, busy/idle) are set arithmetic on these. Categories come from
// SliceClassifier (structured data first, names last; sync is never compute).
// Device-level sets are built from GPU stream tracks only, so a kernel and its own spans never
// count twice; SM lanes (probe spans inside kernels) are kept apart — except on a device with no
// stream slices at all (a probe-only file, parascope-bench --probe without the collector), whose
// spans are all that says what the GPU did and make its device-level sets.
#pragma once

#include <vector>

#include "trace/core/analysis/intervals.h"
#include "trace/core/classify.h"
#include "trace/core/trace.h"

namespace parascope {

struct ActivitySets {
  IntervalSet compute;
  IntervalSet communication;
  IntervalSet memory;  // host/device copies and memsets that are not peer traffic
  IntervalSet sync;
};

struct TrackActivity {
  uint32_t track = 0;
  int64_t id = 0;  // stream id or SM id (TrackKey::id)
  ActivitySets sets;
};

struct DeviceActivity {
  uint32_t device = 0;
  ActivitySets sets;                   // union over the device's GPU streams
  std::vector<TrackActivity> streams;  // sorted by stream id
  std::vector<TrackActivity> sm_lanes; // sorted by SM id
  TimeNs first = 0, last = 0;          // span of stream activity; {0, 0} when none
};

// One entry per trace device, in device order.
std::vector<DeviceActivity> device_activity(const Trace& trace, const SliceClassifier& classify);

// A device with SM-lane spans and nothing on its GPU streams (a probe-only file): its spans are
// its device-level activity.
bool spans_only_device(const Trace& trace, uint32_t device);
// Whether a track's slices are its device's device-level activity: its GPU streams, or on a
// spans-only device its SM lanes. The one rule for device_activity() and the timeline's folded rows.
bool is_device_activity_track(const Track& track, bool spans_only);
// A GPU is busy while compute, communication or memory work covers it (busy_idle.h); sync waits,
// annotations and the rest never make it busy.
constexpr bool is_busy(Category c) {
  return c == Category::kCompute || c == Category::kCommunication || c == Category::kMemory;
}

// Slices' intervals by category while they are gathered (annotations, host work and "other" are
// not device activity and are dropped); build() makes the sets. Shared by device_activity() and the
// window analyses (window_activity.h).
struct ActivityCollector {
  std::vector<Interval> compute, communication, memory, sync;
  void add(Category c, Interval i);
  ActivitySets build();
};

}  // namespace parascope
