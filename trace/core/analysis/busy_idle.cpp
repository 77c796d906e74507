#include "trace/core/analysis/busy_idle.h"

#include <algorithm>
#include <limits>

namespace parascope {

std::vector<BusyIdle> busy_idle(const std::vector<DeviceActivity>& activity, const BusyIdleOptions& options) {
  std::optional<Interval> window = options.window;
  if (!window && options.common_window) {
    Interval all{std::numeric_limits<TimeNs>::max(), std::numeric_limits<TimeNs>::min()};
    for (const DeviceActivity& da : activity)
      if (da.last > da.first) {
        all.start = std::min(all.start, da.first);
        all.end = std::max(all.end, da.last);
      }
    if (all.start < all.end) window = all;
  }
  std::vector<BusyIdle> out;
  out.reserve(activity.size());
  for (const DeviceActivity& da : activity) {
    BusyIdle b;
    b.device = da.device;
    b.window_start = window ? window->start : da.first;
    b.window_end = window ? window->end : da.last;
    if (b.window_end > b.window_start) {
      const ActivitySets& s = da.sets;
      const IntervalSet c = s.compute.clip(b.window_start, b.window_end);
      const IntervalSet m = s.communication.clip(b.window_start, b.window_end);
      const IntervalSet mem = s.memory.clip(b.window_start, b.window_end);
      const IntervalSet sync = s.sync.clip(b.window_start, b.window_end);
      const IntervalSet cm = c.unite(m);
      const IntervalSet busy = cm.unite(mem);
      b.overlapped_ns = c.intersect(m).total();
      b.compute_only_ns = c.total() - b.overlapped_ns;
      b.communication_only_ns = m.total() - b.overlapped_ns;
      b.memory_only_ns = busy.total() - cm.total();
      b.sync_only_ns = sync.subtract(busy).total();
      b.idle_ns = b.window_ns() - busy.total() - b.sync_only_ns;
    } else {
      b.window_end = b.window_start;
    }
    out.push_back(b);
  }
  return out;
}

std::vector<BusyIdle> busy_idle(const Trace& trace, const BusyIdleOptions& options) {
  const SliceClassifier classify(trace);
  return busy_idle(device_activity(trace, classify), options);
}

}  // namespace parascope
