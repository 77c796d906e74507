#include "trace/core/analysis/window_activity.h"

#include <algorithm>
#include <limits>

#include "trace/core/saturating.h"

namespace parascope {

namespace {

// Calls f(i) for the slices of a track that overlap [w.start, w.end): binary search on start,
// stepping back by the track's longest slice (slices are sorted by start, not by end).
template <class F>
void for_each_in(const Track& t, Interval w, F&& f) {
  const auto& s = t.slices;
  if (s.empty() || w.end <= w.start) return;
  TimeNs longest = 0;
  for (TimeNs d : s.dur) longest = std::max(longest, d);
  TimeNs from = 0;  // damaged input can hold 2^63 ns slices: saturate instead of overflowing
  if (__builtin_sub_overflow(w.start, longest, &from)) from = std::numeric_limits<TimeNs>::min();
  auto i = static_cast<size_t>(std::lower_bound(s.start.begin(), s.start.end(), from) - s.start.begin());
  for (; i < s.size() && s.start[i] < w.end; ++i)
    if (add_saturating(s.start[i], s.dur[i]) > w.start) f(i);
}

Interval clipped(const Track& t, size_t i, Interval w) {
  return {std::max(t.slices.start[i], w.start), std::min(add_saturating(t.slices.start[i], t.slices.dur[i]), w.end)};
}

}  // namespace

DeviceActivity device_activity_in(const Trace& trace, const SliceClassifier& classify, uint32_t device, Interval w) {
  DeviceActivity out;
  out.device = device;
  ActivityCollector all;
  TimeNs first = w.end, last = w.start;
  const bool spans_only = spans_only_device(trace, device);  // its SM spans are its device-level activity
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    if (t.key.device != static_cast<int32_t>(device)) continue;
    if (t.key.kind != TrackKind::kGpuStream && t.key.kind != TrackKind::kSmLane) continue;
    ActivityCollector mine;
    for_each_in(t, w, [&](size_t i) {
      const Interval iv = clipped(t, i, w);
      const Category c = classify.category(ti, static_cast<uint32_t>(i));
      mine.add(c, iv);
      if (t.key.kind == TrackKind::kGpuStream || spans_only) {
        all.add(c, iv);
        first = std::min(first, iv.start);
        last = std::max(last, iv.end);
      }
    });
    TrackActivity ta{ti, t.key.id, mine.build()};
    (t.key.kind == TrackKind::kGpuStream ? out.streams : out.sm_lanes).push_back(std::move(ta));
  }
  out.sets = all.build();
  if (first < last) {
    out.first = first;
    out.last = last;
  }
  auto by_id = [](const TrackActivity& a, const TrackActivity& b) { return a.id < b.id; };
  std::sort(out.streams.begin(), out.streams.end(), by_id);
  std::sort(out.sm_lanes.begin(), out.sm_lanes.end(), by_id);
  return out;
}

std::vector<SmWindowShare> sm_window_shares(const Trace& trace, uint32_t device, Interval w) {
  std::vector<SmWindowShare> out;
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    if (t.key.kind != TrackKind::kSmLane || t.key.device != static_cast<int32_t>(device)) continue;
    std::vector<Interval> role[kSmRoleCount], any;
    for_each_in(t, w, [&](size_t i) {
      const SliceRef r = t.slices.ref[i];
      SmRole ro = SmRole::kOther;
      if (r.kind() == SliceKind::kSmSpan && r.has_detail() && r.index() < trace.sm_spans.size()) ro = trace.sm_spans[r.index()].role;
      const Interval iv = clipped(t, i, w);
      role[static_cast<int>(ro) & (kSmRoleCount - 1)].push_back(iv);
      any.push_back(iv);
    });
    SmWindowShare s;
    s.track = ti;
    s.sm = t.key.id;
    s.compute_ns = IntervalSet::from(std::move(role[static_cast<int>(SmRole::kCompute)])).total();
    s.communicate_ns = IntervalSet::from(std::move(role[static_cast<int>(SmRole::kCommunicate)])).total();
    s.wait_ns = IntervalSet::from(std::move(role[static_cast<int>(SmRole::kWait)])).total();
    s.other_ns = IntervalSet::from(std::move(role[static_cast<int>(SmRole::kOther)])).total();
    s.idle_ns = w.length() - IntervalSet::from(std::move(any)).total();
    out.push_back(s);
  }
  std::sort(out.begin(), out.end(), [](const SmWindowShare& a, const SmWindowShare& b) { return a.sm < b.sm; });
  return out;
}

}  // namespace parascope
