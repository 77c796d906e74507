// Level-of-detail summaries of one slice track, built once per trace (on the loader thread) so that
// a paint costs O(pixels) rather than O(events). A track splits into lanes, one per sub-row (nesting
// depth, or SmRole on SM lanes). Per lane: a coverage pyramid on the lane's own time grid (per
// bucket one byte: the share covered and the category covering most of it; each level doubles the
// bucket; level 0 holds about one slice per bucket), and per level the slices long enough to draw
// one by one. First-visible searches use a prefix maximum of slice ends, so they stay exact when
// slices overlap. No Qt: tested without a window.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "trace/core/classify.h"
#include "trace/core/trace.h"

namespace parascope::models {

inline constexpr int kMaxSubRows = 8;      // deeper slices share the last sub-row
inline constexpr int kCategoryCount = 8;   // Category values, which fit in 3 bits
inline constexpr int kWideBuckets = 4;     // a slice ≥ 4 buckets long is drawn one by one at that level
inline constexpr size_t kMinPyramidSlices = 256;  // smaller lanes are always walked slice by slice
inline constexpr double kLaneSlicesPerBucket = 1.0;  // level-0 density of a lane's pyramid
inline constexpr double kHeatSlicesPerBucket = 2.0;  // level-0 density of an SM lane's heat pyramid

// Sub-row of slice i of a track: its SmRole on SM lanes, else its depth, capped at kMaxSubRows - 1.
int slice_sub_row(const Trace& trace, const Track& track, size_t i);
// Number of sub-rows (lanes) a track has.
int track_sub_rows(const Track& track);

// The first position of a start-sorted sequence whose item may end at or after t: a prefix maximum
// of ends per block of kBlock items; callers walk on from there, skipping items that end before t.
class EndIndex {
 public:
  static constexpr size_t kBlock = 32;
  template <class EndOf>
  void build(size_t n, EndOf end_of) {
    block_max_.clear();
    block_max_.reserve((n + kBlock - 1) / kBlock);
    TimeNs m = INT64_MIN;
    for (size_t i = 0; i < n; ++i) {
      m = std::max(m, static_cast<TimeNs>(end_of(i)));
      if (i % kBlock == kBlock - 1 || i + 1 == n) block_max_.push_back(m);
    }
  }
  size_t first_ending_at_or_after(TimeNs t) const;
  size_t memory_bytes() const { return block_max_.capacity() * sizeof(TimeNs); }

 private:
  std::vector<TimeNs> block_max_;  // block b: max end over items [0, (b + 1) · kBlock)
};

// What a stretch of time looks like from far away: the share covered (0..1) and who covers most.
struct Coverage {
  float share = 0;
  Category category = Category::kOther;
};

// The time grid of a pyramid: bucket b of level k covers [origin + b·w·2^k, origin + (b+1)·w·2^k).
struct LodGrid {
  TimeNs origin = 0;
  TimeNs bucket_ns = 1;  // level 0, a power of two
  int levels = 0;
  size_t buckets0 = 0;   // level-0 bucket count
  // A grid over [lo, hi] with about `slices / slices_per_bucket` level-0 buckets.
  static LodGrid for_span(TimeNs lo, TimeNs hi, size_t slices, double slices_per_bucket = 2.0);
  TimeNs width(int level) const { return bucket_ns << level; }
  size_t buckets(int level) const { return ((buckets0 - 1) >> level) + 1; }
  // The coarsest level whose bucket is at most ns_per_px wide; -1 when even level 0 is wider.
  int level_for(double ns_per_px) const;
};

class CoveragePyramid {
 public:
  // Accumulates exact per-category coverage of level 0, then sums it upwards; quantizes at the end.
  class Builder {
   public:
    explicit Builder(const LodGrid& grid);
    void add(TimeNs start, TimeNs dur, Category c);
    // Once called, the share comes from these spans (a union the caller made, each moment once)
    // and add() only decides the dominant category: overlapping work is busy once, not twice.
    void add_covered(TimeNs start, TimeNs dur);
    CoveragePyramid finish();

   private:
    // level-0 buckets [b0, b1) that [start, start + dur) touches, relative to the origin, and f(b, overlap) for each
    template <class F>
    void spread(TimeNs start, TimeNs dur, F&& f) const;
    LodGrid grid_;
    std::vector<std::array<float, kCategoryCount>> weight_;  // ns covered per category, level 0
    std::vector<float> covered_;                              // ns covered, level 0 (add_covered only)
  };

  bool empty() const { return cells_.empty(); }
  const LodGrid& grid() const { return grid_; }
  int levels() const { return static_cast<int>(cells_.size()); }
  // Coverage of one bucket.
  Coverage cell(int level, size_t bucket) const;
  // Raw cell bytes of a level: bits 0-4 coverage 0..31 (31 = whole bucket), bits 5-7 the category.
  const std::vector<uint8_t>& cells(int level) const { return cells_[static_cast<size_t>(level)]; }
  // Pixel i covers [t0 + i·ns_per_px, t0 + (i+1)·ns_per_px); fills out[0..n) from `level`.
  void sample(int level, double t0, double ns_per_px, int n, Coverage* out) const;
  size_t memory_bytes() const;

  static uint8_t pack(float share, Category c);
  // The cell-wise weighted mean of two pyramids on the same grid (an empty one counts as idle),
  // the dominant category taken from whichever covers more: SM groups of the heat strip.
  static CoveragePyramid merge(const CoveragePyramid& a, float wa, const CoveragePyramid& b, float wb, const LodGrid& grid);
  static float share_of(uint8_t cell) { return static_cast<float>(cell & 31) / 31.0f; }
  static Category category_of(uint8_t cell) { return static_cast<Category>(cell >> 5); }

 private:
  LodGrid grid_;
  std::vector<std::vector<uint8_t>> cells_;
};

struct LodLane {
  std::vector<uint32_t> rows;     // track rows of this lane by start; empty for dense lanes of whole-track walks
  EndIndex ends;                  // over `rows` (only when rows are kept)
  CoveragePyramid pyramid;        // on the lane's own grid; empty for lanes under kMinPyramidSlices
  std::vector<std::vector<uint32_t>> wide;  // per pyramid level: track rows ≥ kWideBuckets buckets long
  std::vector<EndIndex> wide_ends;          // per level, over `wide[level]`
  size_t count = 0;               // slices in this lane
  bool has_rows = false;
};

class TrackLod {
 public:
  TrackLod() = default;
  // `combined_grid`: SM lanes only, the grid all SM lanes of the device share for the heat strip.
  TrackLod(const Trace& trace, uint32_t track, const SliceClassifier& classify, const LodGrid* combined_grid = nullptr);

  int sub_rows() const { return static_cast<int>(lanes_.size()); }
  const LodLane& lane(int sub) const { return lanes_[static_cast<size_t>(sub)]; }
  // The first track row at which a slice of a dense lane (one walked over the whole track) may
  // end at or after t.
  size_t first_visible(TimeNs t) const { return ends_.first_ending_at_or_after(t); }
  // SM lanes: every role together, on the device's shared grid (the heat strip).
  const CoveragePyramid& combined() const { return combined_; }
  size_t memory_bytes() const;

  // Calls f(row, sub_row) for the slices of the lanes in `lane_mask` that overlap [t0, t1], in
  // start order per lane; stops early when f returns false. Lanes with rows are walked alone;
  // dense lanes together in one pass over the track (single-lane tracks and SM lanes), so a
  // sparse role never costs a walk over the busy ones.
  template <class F>
  void visit(const Trace& trace, uint32_t track, TimeNs t0, TimeNs t1, unsigned lane_mask, F&& f) const {
    const Track& tr = trace.tracks[track];
    const auto& s = tr.slices;
    unsigned dense = 0;
    for (size_t l = 0; l < lanes_.size(); ++l) {
      if (!(lane_mask & (1u << l)) || lanes_[l].count == 0) continue;
      if (!lanes_[l].has_rows) {
        dense |= 1u << l;
        continue;
      }
      const auto& rows = lanes_[l].rows;
      for (size_t j = lanes_[l].ends.first_ending_at_or_after(t0); j < rows.size(); ++j) {
        const uint32_t i = rows[j];
        if (s.start[i] > t1) break;
        if (s.start[i] + s.dur[i] < t0) continue;
        if (!f(i, static_cast<int>(l))) return;
      }
    }
    if (!dense) return;
    const bool single = lanes_.size() == 1;
    for (size_t i = ends_.first_ending_at_or_after(t0); i < s.size() && s.start[i] <= t1; ++i) {
      if (s.start[i] + s.dur[i] < t0) continue;
      const int sub = single ? 0 : slice_sub_row(trace, tr, i);
      if (!(dense & (1u << sub))) continue;
      if (!f(static_cast<uint32_t>(i), sub)) return;
    }
  }

 private:
  std::vector<LodLane> lanes_;
  EndIndex ends_;               // dense lanes, over the whole track
  CoveragePyramid combined_;
};

}  // namespace parascope::models
