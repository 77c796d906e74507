#include "trace/core/analysis/window_overlap.h"

#include <algorithm>

namespace parascope {

WindowOverlap window_overlap(const Trace& trace, const SliceClassifier& classify, uint32_t device, Interval window) {
  WindowOverlap o;
  o.device = device;
  o.window = window;
  o.sms = sm_window_shares(trace, device, window);
  DeviceActivity activity = device_activity_in(trace, classify, device, window);
  const auto busy = [](const ActivitySets& a) { return !a.compute.empty() || !a.communication.empty() || !a.memory.empty() || !a.sync.empty(); };
  const bool streams_busy = std::any_of(activity.streams.begin(), activity.streams.end(), [&](const TrackActivity& t) { return busy(t.sets); });
  o.spans_only = !streams_busy && busy(activity.sets);
  o.overlap = compute_overlap(std::vector<DeviceActivity>{std::move(activity)}).front();
  const double w = static_cast<double>(std::max<TimeNs>(window.length(), 1));
  for (const SmWindowShare& s : o.sms) {
    o.compute += static_cast<double>(s.compute_ns) / w;
    o.communicate += static_cast<double>(s.communicate_ns) / w;
    o.wait += static_cast<double>(s.wait_ns) / w;
    o.idle += static_cast<double>(s.idle_ns) / w;
  }
  if (!o.sms.empty()) {
    const auto n = static_cast<double>(o.sms.size());
    o.compute /= n;
    o.communicate /= n;
    o.wait /= n;
    o.idle /= n;
  }
  return o;
}

}  // namespace parascope
