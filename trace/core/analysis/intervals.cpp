#include "trace/core/analysis/intervals.h"

#include <algorithm>

namespace parascope {

IntervalSet IntervalSet::from(std::vector<Interval> in) {
  in.erase(std::remove_if(in.begin(), in.end(), [](const Interval& i) { return i.end <= i.start; }), in.end());
  std::sort(in.begin(), in.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
  IntervalSet s;
  for (const Interval& i : in) {
    if (!s.v_.empty() && i.start <= s.v_.back().end) s.v_.back().end = std::max(s.v_.back().end, i.end);
    else s.v_.push_back(i);
  }
  return s;
}

TimeNs IntervalSet::total() const {
  TimeNs t = 0;
  for (const Interval& i : v_) t += i.length();
  return t;
}

TimeNs IntervalSet::overlap(TimeNs start, TimeNs end) const {
  if (end <= start) return 0;
  // first interval that ends after `start`
  auto it = std::upper_bound(v_.begin(), v_.end(), start, [](TimeNs t, const Interval& i) { return t < i.end; });
  TimeNs sum = 0;
  for (; it != v_.end() && it->start < end; ++it) sum += std::min(end, it->end) - std::max(start, it->start);
  return sum;
}

IntervalSet IntervalSet::unite(const IntervalSet& o) const {
  std::vector<Interval> all;
  all.reserve(v_.size() + o.v_.size());
  std::merge(v_.begin(), v_.end(), o.v_.begin(), o.v_.end(), std::back_inserter(all),
             [](const Interval& a, const Interval& b) { return a.start < b.start; });
  return from(std::move(all));
}

IntervalSet IntervalSet::intersect(const IntervalSet& o) const {
  IntervalSet r;
  size_t i = 0, j = 0;
  while (i < v_.size() && j < o.v_.size()) {
    const TimeNs s = std::max(v_[i].start, o.v_[j].start);
    const TimeNs e = std::min(v_[i].end, o.v_[j].end);
    if (s < e) r.v_.push_back({s, e});
    if (v_[i].end < o.v_[j].end) ++i;
    else ++j;
  }
  return r;
}

IntervalSet IntervalSet::subtract(const IntervalSet& o) const {
  IntervalSet r;
  size_t j = 0;
  for (const Interval& a : v_) {
    TimeNs cur = a.start;
    while (j < o.v_.size() && o.v_[j].end <= cur) ++j;
    size_t k = j;
    while (k < o.v_.size() && o.v_[k].start < a.end) {
      if (o.v_[k].start > cur) r.v_.push_back({cur, o.v_[k].start});
      cur = std::max(cur, o.v_[k].end);
      if (cur >= a.end) break;
      ++k;
    }
    if (cur < a.end) r.v_.push_back({cur, a.end});
  }
  return r;
}

IntervalSet IntervalSet::clip(TimeNs start, TimeNs end) const {
  IntervalSet r;
  for (const Interval& i : v_) {
    const TimeNs s = std::max(i.start, start), e = std::min(i.end, end);
    if (s < e) r.v_.push_back({s, e});
  }
  return r;
}

}  // namespace parascope
