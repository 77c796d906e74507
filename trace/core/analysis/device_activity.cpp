#include "trace/core/analysis/device_activity.h"

#include <algorithm>
#include <limits>

namespace parascope {

void ActivityCollector::add(Category c, Interval i) {
  switch (c) {
    case Category::kCompute: compute.push_back(i); break;
    case Category::kCommunication: communication.push_back(i); break;
    case Category::kMemory: memory.push_back(i); break;
    case Category::kSync: sync.push_back(i); break;
    default: break;  // annotations, host work and "other" are not device activity
  }
}

ActivitySets ActivityCollector::build() {
  return {IntervalSet::from(std::move(compute)), IntervalSet::from(std::move(communication)),
          IntervalSet::from(std::move(memory)), IntervalSet::from(std::move(sync))};
}

bool spans_only_device(const Trace& trace, uint32_t device) {
  bool lanes = false;
  for (const Track& t : trace.tracks) {
    if (t.key.device != static_cast<int32_t>(device) || t.slices.empty()) continue;
    if (t.key.kind == TrackKind::kGpuStream) return false;
    lanes = lanes || t.key.kind == TrackKind::kSmLane;
  }
  return lanes;
}

bool is_device_activity_track(const Track& track, bool spans_only) {
  return track.key.kind == TrackKind::kGpuStream || (spans_only && track.key.kind == TrackKind::kSmLane);
}

namespace {

TrackActivity track_activity(const Trace& trace, const SliceClassifier& classify, uint32_t ti) {
  const Track& t = trace.tracks[ti];
  ActivityCollector b;
  for (uint32_t i = 0; i < t.slices.size(); ++i)
    b.add(classify.category(ti, i), {t.slices.start[i], t.slices.end(i)});
  return {ti, t.key.id, b.build()};
}

}  // namespace

std::vector<DeviceActivity> device_activity(const Trace& trace, const SliceClassifier& classify) {
  std::vector<DeviceActivity> out(trace.devices.size());
  std::vector<ActivityCollector> device_builders(trace.devices.size());
  std::vector<uint8_t> spans_only(trace.devices.size());
  for (uint32_t d = 0; d < out.size(); ++d) spans_only[d] = spans_only_device(trace, d);
  for (uint32_t d = 0; d < out.size(); ++d) {
    out[d].device = d;
    out[d].first = std::numeric_limits<TimeNs>::max();
    out[d].last = std::numeric_limits<TimeNs>::min();
  }
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    if (t.key.device < 0 || static_cast<size_t>(t.key.device) >= out.size()) continue;
    const auto d = static_cast<size_t>(t.key.device);
    if (t.key.kind != TrackKind::kGpuStream && t.key.kind != TrackKind::kSmLane) continue;
    DeviceActivity& da = out[d];
    if (is_device_activity_track(t, spans_only[d])) {
      ActivityCollector& db = device_builders[d];
      for (uint32_t i = 0; i < t.slices.size(); ++i) {
        const Interval iv{t.slices.start[i], t.slices.end(i)};
        db.add(classify.category(ti, i), iv);
        da.first = std::min(da.first, iv.start);
        da.last = std::max(da.last, iv.end);
      }
    }
    (t.key.kind == TrackKind::kGpuStream ? da.streams : da.sm_lanes).push_back(track_activity(trace, classify, ti));
  }
  auto by_id = [](const TrackActivity& a, const TrackActivity& b) { return a.id < b.id; };
  for (uint32_t d = 0; d < out.size(); ++d) {
    out[d].sets = device_builders[d].build();
    if (out[d].first > out[d].last) out[d].first = out[d].last = 0;
    std::sort(out[d].streams.begin(), out[d].streams.end(), by_id);
    std::sort(out[d].sm_lanes.begin(), out[d].sm_lanes.end(), by_id);
  }
  return out;
}

}  // namespace parascope
