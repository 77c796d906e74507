#include "trace/core/analysis/range_summary.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

#include "trace/core/saturating.h"

namespace parascope {

RangeSummary summarize_range(const Trace& trace, const SliceClassifier& classify, Interval range,
                             const std::vector<uint32_t>& tracks, size_t top) {
  RangeSummary out;
  out.range = range;
  if (range.end <= range.start) return out;
  std::unordered_map<StringId, RangeNameTime> names;
  auto one_track = [&](uint32_t ti) {
    const Track& t = trace.tracks[ti];
    const auto& s = t.slices;
    if (s.empty()) return;
    TimeNs longest = 0;
    for (TimeNs d : s.dur) longest = std::max(longest, d);
    TimeNs from = 0;  // the earliest start that can reach the range (damaged input: saturate)
    if (__builtin_sub_overflow(range.start, longest, &from)) from = std::numeric_limits<TimeNs>::min();
    auto i = static_cast<size_t>(std::lower_bound(s.start.begin(), s.start.end(), from) - s.start.begin());
    bool any = false;
    for (; i < s.size() && s.start[i] < range.end; ++i) {
      const TimeNs end = add_saturating(s.start[i], s.dur[i]);  // damaged input: durations up to 2^63
      // a slice overlaps when it reaches into the range; instants (dur 0) count when inside it
      if (end <= range.start && !(s.dur[i] == 0 && s.start[i] >= range.start)) continue;
      any = true;
      const Category c = classify.category(ti, static_cast<uint32_t>(i));
      const TimeNs inside = std::min(end, range.end) - std::max(s.start[i], range.start);
      const auto ci = static_cast<size_t>(c) % kCategoryCountForSummary;
      ++out.slices;
      ++out.count[ci];
      if (s.depth_of(i) == 0 || t.key.kind == TrackKind::kSmLane)
        out.time_ns[ci] = add_saturating(out.time_ns[ci], std::max<TimeNs>(inside, 0));
      RangeNameTime& n = names[s.name[i]];
      n.name = s.name[i];
      n.category = c;
      ++n.count;
      n.time_ns = add_saturating(n.time_ns, std::max<TimeNs>(inside, 0));
    }
    out.tracks += any;
  };
  if (tracks.empty())
    for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) one_track(ti);
  else
    for (uint32_t ti : tracks)
      if (ti < trace.tracks.size()) one_track(ti);
  for (auto& [id, n] : names) out.top_names.push_back(n);
  std::sort(out.top_names.begin(), out.top_names.end(), [](const RangeNameTime& a, const RangeNameTime& b) {
    return a.time_ns != b.time_ns ? a.time_ns > b.time_ns : a.name < b.name;
  });
  if (out.top_names.size() > top) out.top_names.resize(top);
  return out;
}

}  // namespace parascope
