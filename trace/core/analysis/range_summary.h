// What is inside a time range (the timeline's box selection): per category, how many slices
// overlap the range and how much of the range they cover, and the names that take the most time.
// Time counts each slice's part inside the range; only slices at nesting depth 0 add to the
// per-category time (a nested slice's time is already inside its parent's), while counts and the
// per-name table include every depth. Tracks can be limited, e.g. to the rows a view shows.
#pragma once

#include <array>
#include <vector>

#include "trace/core/analysis/intervals.h"
#include "trace/core/classify.h"
#include "trace/core/trace.h"

namespace parascope {

inline constexpr size_t kCategoryCountForSummary = 8;

struct RangeNameTime {
  StringId name = kEmptyString;
  Category category = Category::kOther;
  int64_t count = 0;
  TimeNs time_ns = 0;  // inside the range, summed over this name's slices
};

struct RangeSummary {
  Interval range;
  int64_t slices = 0;
  int64_t tracks = 0;  // tracks with at least one slice in the range
  std::array<int64_t, kCategoryCountForSummary> count{};     // indexed by Category
  std::array<TimeNs, kCategoryCountForSummary> time_ns{};    // depth-0 slices only
  std::vector<RangeNameTime> top_names;  // by time, largest first, then by name id
};

// `tracks`: the tracks to look at; empty: all. `top`: how many names to keep.
RangeSummary summarize_range(const Trace& trace, const SliceClassifier& classify, Interval range,
                             const std::vector<uint32_t>& tracks = {}, size_t top = 10);

}  // namespace parascope
