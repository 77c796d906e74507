#include "trace/core/analysis/exposed_communication.h"
#include "trace/core/saturating.h"

#include <algorithm>
#include <map>

namespace parascope {

std::vector<DeviceExposedCommunication> exposed_communication(const Trace& trace, const SliceClassifier& classify,
                                                              const std::vector<DeviceActivity>& activity) {
  std::vector<DeviceExposedCommunication> out(activity.size());
  std::vector<std::map<StringId, ExposedByName>> names(activity.size());
  for (size_t d = 0; d < activity.size(); ++d) {
    const ActivitySets& s = activity[d].sets;
    out[d].device = activity[d].device;
    out[d].communication_ns = s.communication.total();
    out[d].hidden_ns = s.communication.intersect(s.compute).total();
    out[d].exposed_ns = out[d].communication_ns - out[d].hidden_ns;
  }
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    if (t.key.kind != TrackKind::kGpuStream || t.key.device < 0 || static_cast<size_t>(t.key.device) >= activity.size())
      continue;
    const size_t d = static_cast<size_t>(t.key.device);
    const IntervalSet& compute = activity[d].sets.compute;
    for (uint32_t i = 0; i < t.slices.size(); ++i) {
      if (classify.category(ti, i) != Category::kCommunication) continue;
      ExposedByName& e = names[d][t.slices.name[i]];
      e.name = t.slices.name[i];
      ++e.count;
      e.total_ns = add_saturating(e.total_ns, t.slices.dur[i]);
      e.exposed_ns = add_saturating(e.exposed_ns, t.slices.dur[i] - compute.overlap(t.slices.start[i], t.slices.end(i)));
    }
  }
  for (size_t d = 0; d < out.size(); ++d) {
    for (auto& [id, e] : names[d]) out[d].by_name.push_back(e);
    std::sort(out[d].by_name.begin(), out[d].by_name.end(), [](const ExposedByName& a, const ExposedByName& b) {
      return a.exposed_ns != b.exposed_ns ? a.exposed_ns > b.exposed_ns : a.name < b.name;
    });
  }
  return out;
}

std::vector<DeviceExposedCommunication> exposed_communication(const Trace& trace) {
  const SliceClassifier classify(trace);
  return exposed_communication(trace, classify, device_activity(trace, classify));
}

}  // namespace parascope
