#include "trace/core/analysis/overlap.h"

namespace parascope {

namespace {
OverlapTotals totals_of(const ActivitySets& s) {
  OverlapTotals t;
  t.compute_ns = s.compute.total();
  t.communication_ns = s.communication.total();
  t.overlap_ns = s.compute.intersect(s.communication).total();
  return t;
}
}  // namespace

std::vector<DeviceOverlap> compute_overlap(const std::vector<DeviceActivity>& activity) {
  std::vector<DeviceOverlap> out;
  out.reserve(activity.size());
  for (const DeviceActivity& da : activity) {
    DeviceOverlap d;
    d.device = da.device;
    d.totals = totals_of(da.sets);
    for (const TrackActivity& s : da.streams) {
      StreamOverlap so;
      so.track = s.track;
      so.stream = s.id;
      so.compute_ns = s.sets.compute.total();
      so.communication_ns = s.sets.communication.total();
      so.compute_under_comm_ns = s.sets.compute.intersect(da.sets.communication).total();
      so.comm_under_compute_ns = s.sets.communication.intersect(da.sets.compute).total();
      d.streams.push_back(so);
    }
    for (const TrackActivity& l : da.sm_lanes) d.sm_lanes.push_back({l.track, l.id, totals_of(l.sets)});
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<DeviceOverlap> compute_overlap(const Trace& trace) {
  const SliceClassifier classify(trace);
  return compute_overlap(device_activity(trace, classify));
}

}  // namespace parascope
