// IntervalSet: a union of half-open time intervals [start, end), kept sorted and disjoint, with
// the set operations the analyses are made of (union, intersection, difference, clipping).
// Invariant: intervals are non-empty, sorted by start, and neither overlap nor touch (touching
// intervals are merged), so total() is the measure of the set and never counts a moment twice.
#pragma once

#include <vector>

#include "trace/core/time.h"

namespace parascope {

struct Interval {
  TimeNs start = 0;
  TimeNs end = 0;
  TimeNs length() const { return end - start; }
  friend bool operator==(const Interval&, const Interval&) = default;
};

class IntervalSet {
 public:
  IntervalSet() = default;
  // Any order, overlaps allowed; empty and inverted intervals are dropped.
  static IntervalSet from(std::vector<Interval> intervals);

  const std::vector<Interval>& intervals() const { return v_; }
  bool empty() const { return v_.empty(); }
  TimeNs total() const;
  // Measure of [start, end) ∩ this, by binary search.
  TimeNs overlap(TimeNs start, TimeNs end) const;

  IntervalSet unite(const IntervalSet& o) const;
  IntervalSet intersect(const IntervalSet& o) const;
  IntervalSet subtract(const IntervalSet& o) const;
  IntervalSet clip(TimeNs start, TimeNs end) const;

 private:
  std::vector<Interval> v_;
};

}  // namespace parascope
