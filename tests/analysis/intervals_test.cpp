#include <catch2/catch.hpp>

#include "trace/core/analysis/intervals.h"

using namespace parascope;

TEST_CASE("IntervalSet merges overlapping and touching intervals and drops empty ones", "[analysis][intervals]") {
  // [0,10) + [5,20) + [20,25) touch/overlap into [0,25); [30,30) is empty; [40,50) stays apart
  const IntervalSet s = IntervalSet::from({{20, 25}, {0, 10}, {30, 30}, {5, 20}, {40, 50}, {60, 55}});
  REQUIRE(s.intervals().size() == 2);
  CHECK(s.intervals()[0] == Interval{0, 25});
  CHECK(s.intervals()[1] == Interval{40, 50});
  CHECK(s.total() == 35);  // 25 + 10
}

TEST_CASE("IntervalSet intersection, difference, union and clipping", "[analysis][intervals]") {
  const IntervalSet a = IntervalSet::from({{0, 100}, {150, 250}});
  const IntervalSet b = IntervalSet::from({{50, 200}});
  // a ∩ b = [50,100) ∪ [150,200) = 100
  CHECK(a.intersect(b).total() == 100);
  // b − a = [100,150) = 50;  a − b = [0,50) ∪ [200,250) = 100
  CHECK(b.subtract(a).total() == 50);
  REQUIRE(a.subtract(b).intervals().size() == 2);
  CHECK(a.subtract(b).intervals()[1] == Interval{200, 250});
  // a ∪ b = [0,250)
  REQUIRE(a.unite(b).intervals().size() == 1);
  CHECK(a.unite(b).total() == 250);
  // clip to [90,160): [90,100) ∪ [150,160) = 20
  CHECK(a.clip(90, 160).total() == 20);
  // overlap of a query range by binary search: [90, 210) ∩ a = 10 + 60
  CHECK(a.overlap(90, 210) == 70);
  CHECK(a.overlap(100, 150) == 0);
  // subtracting several pieces from one interval: [0,100) − {[10,20), [30,40), [90,120)} = 10+10+50
  CHECK(IntervalSet::from({{0, 100}}).subtract(IntervalSet::from({{10, 20}, {30, 40}, {90, 120}})).total() == 70);
}
