// Busy/idle breakdown per device: every nanosecond of a window falls in exactly one state, chosen
// by priority — compute and communication together ("overlapped"), compute only, communication
// only, memory only (copies/memsets that are not peer traffic), sync only (the GPU waits on an
// event: never busy, never compute), idle. The states sum to the window length.
// The window is the device's own span of stream activity, or one window for all devices.
#pragma once

#include <optional>
#include <vector>

#include "trace/core/analysis/device_activity.h"

namespace parascope {

struct BusyIdle {
  uint32_t device = 0;
  TimeNs window_start = 0, window_end = 0;
  TimeNs overlapped_ns = 0;
  TimeNs compute_only_ns = 0;
  TimeNs communication_only_ns = 0;
  TimeNs memory_only_ns = 0;
  TimeNs sync_only_ns = 0;
  TimeNs idle_ns = 0;
  TimeNs window_ns() const { return window_end - window_start; }
  TimeNs busy_ns() const { return overlapped_ns + compute_only_ns + communication_only_ns + memory_only_ns; }
  double busy_fraction() const {
    return window_ns() > 0 ? static_cast<double>(busy_ns()) / static_cast<double>(window_ns()) : 0.0;
  }
};

struct BusyIdleOptions {
  // Window used for every device; unset: each device's own first..last stream activity.
  std::optional<Interval> window;
  // When no explicit window: use one window spanning all devices' activity.
  bool common_window = false;
};

std::vector<BusyIdle> busy_idle(const std::vector<DeviceActivity>& activity, const BusyIdleOptions& options = {});
std::vector<BusyIdle> busy_idle(const Trace& trace, const BusyIdleOptions& options = {});

}  // namespace parascope
