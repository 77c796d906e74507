// Exposed communication: communication time on a device that no compute on the same device hid,
// i.e. |M − C| with M, C the unions of communication and compute over the device's streams. This
// is the time communication adds to a step if nothing else moves. Per name, each communication
// slice's exposed part is dur − |slice ∩ C|; those per-slice sums can exceed the device figure
// when communication slices overlap one another (the device figure counts each moment once).
#pragma once

#include <vector>

#include "trace/core/analysis/device_activity.h"

namespace parascope {

struct ExposedByName {
  StringId name = kEmptyString;
  int64_t count = 0;
  TimeNs total_ns = 0;    // sum of durations
  TimeNs exposed_ns = 0;  // sum of per-slice exposed time
};

struct DeviceExposedCommunication {
  uint32_t device = 0;
  TimeNs communication_ns = 0;  // |M|
  TimeNs hidden_ns = 0;         // |M ∩ C|
  TimeNs exposed_ns = 0;        // |M − C|
  double exposed_fraction() const {
    return communication_ns ? static_cast<double>(exposed_ns) / static_cast<double>(communication_ns) : 0.0;
  }
  std::vector<ExposedByName> by_name;  // sorted by exposed time, largest first, then name id
};

std::vector<DeviceExposedCommunication> exposed_communication(const Trace& trace, const SliceClassifier& classify,
                                                              const std::vector<DeviceActivity>& activity);
std::vector<DeviceExposedCommunication> exposed_communication(const Trace& trace);

}  // namespace parascope
