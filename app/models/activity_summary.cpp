#include "models/activity_summary.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>

#include "trace/core/analysis/device_activity.h"

namespace parascope::models {

namespace {
constexpr Category kSlots[3] = {Category::kCompute, Category::kCommunication, Category::kMemory};
size_t slot_of(Category c) { return c == Category::kCompute ? 0 : c == Category::kCommunication ? 1 : 2; }
}  // namespace

ActivitySummary::ActivitySummary(const Trace& trace, const SliceClassifier& classify, uint32_t device) {
  const bool spans_only = spans_only_device(trace, device);
  for (uint32_t t = 0; t < trace.tracks.size(); ++t) {
    const Track& tr = trace.tracks[t];
    if (tr.key.device == static_cast<int32_t>(device) && !tr.slices.empty() && is_device_activity_track(tr, spans_only))
      tracks_.push_back(t);
  }
  // each slice classified once; kIdle marks the ones that are not busy work
  std::vector<std::vector<Category>> cats(tracks_.size());
  TimeNs lo = std::numeric_limits<TimeNs>::max(), hi = std::numeric_limits<TimeNs>::min();
  for (size_t k = 0; k < tracks_.size(); ++k) {
    const SliceColumns& s = trace.tracks[tracks_[k]].slices;
    cats[k].resize(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
      const Category c = classify.category(tracks_[k], static_cast<uint32_t>(i));
      cats[k][i] = is_busy(c) ? c : Category::kIdle;
      if (!is_busy(c)) continue;
      ++busy_slices_;
      lo = std::min(lo, s.start[i]);
      hi = std::max(hi, s.start[i] + s.dur[i]);
    }
  }
  if (busy_slices_ == 0) return;
  CoveragePyramid::Builder b(LodGrid::for_span(lo, hi, busy_slices_, kLaneSlicesPerBucket));
  for (size_t k = 0; k < tracks_.size(); ++k) {
    const SliceColumns& s = trace.tracks[tracks_[k]].slices;
    for (size_t i = 0; i < s.size(); ++i)
      if (cats[k][i] != Category::kIdle) b.add(s.start[i], s.dur[i], cats[k][i]);
  }
  // the union, each moment once: the tracks' busy slices merged by start (each track is sorted)
  using Head = std::pair<TimeNs, size_t>;  // (start, k): the next busy slice of track k is at pos[k]
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
  std::vector<size_t> pos(tracks_.size(), 0);
  auto advance = [&](size_t k) {
    const SliceColumns& s = trace.tracks[tracks_[k]].slices;
    while (pos[k] < s.size() && cats[k][pos[k]] == Category::kIdle) ++pos[k];
    if (pos[k] < s.size()) heads.emplace(s.start[pos[k]], k);
  };
  for (size_t k = 0; k < tracks_.size(); ++k) advance(k);
  TimeNs run_start = 0, run_end = std::numeric_limits<TimeNs>::min();
  auto flush = [&] {
    if (run_end <= run_start) return;
    b.add_covered(run_start, run_end - run_start);
    busy_ns_ += run_end - run_start;
  };
  while (!heads.empty()) {
    const auto [start, k] = heads.top();
    heads.pop();
    const TimeNs end = start + trace.tracks[tracks_[k]].slices.dur[pos[k]];
    ++pos[k];
    advance(k);
    if (start > run_end) {
      flush();
      run_start = start;
      run_end = end;
    } else {
      run_end = std::max(run_end, end);
    }
  }
  flush();
  pyramid_ = b.finish();
}

void ActivitySummary::sample(const Trace& trace, const SliceClassifier& classify, const std::vector<TrackLod>& lods, double t0,
                             double ns_per_px, int n, Coverage* out, size_t* walked) const {
  std::fill(out, out + std::max(n, 0), Coverage{});
  if (empty() || n <= 0) return;
  const LodGrid& g = pyramid_.grid();
  int level = g.level_for(ns_per_px);
  if (level < 0) {
    // finer than a bucket: the slices in view, when few enough
    const double t1 = t0 + ns_per_px * n;
    const double grid_span = static_cast<double>(g.width(0)) * static_cast<double>(g.buckets0);
    const double expected = static_cast<double>(busy_slices_) * (t1 - t0) / grid_span;
    if (expected <= kActivityWalkBudget) {
      std::vector<std::array<float, 3>> acc(static_cast<size_t>(n), {0.0f, 0.0f, 0.0f});
      const auto limit = static_cast<size_t>(2 * kActivityWalkBudget);
      size_t seen = 0;
      const auto lo = static_cast<TimeNs>(std::floor(t0)), hi = static_cast<TimeNs>(std::ceil(t1));
      for (uint32_t t : tracks_) {
        const SliceColumns& s = trace.tracks[t].slices;
        lods[t].visit(trace, t, lo, hi, ~0u, [&](uint32_t i, int) {
          ++seen;
          const Category c = classify.category(t, i);
          if (!is_busy(c)) return seen < limit;
          const double x0 = std::max((static_cast<double>(s.start[i]) - t0) / ns_per_px, 0.0);
          const double x1 = std::min((static_cast<double>(s.start[i] + s.dur[i]) - t0) / ns_per_px, static_cast<double>(n));
          const size_t slot = slot_of(c);
          const int xa = static_cast<int>(x0), xb = std::min(n, static_cast<int>(std::ceil(x1)));
          if (xb - xa <= 1) {
            if (xa < n) acc[static_cast<size_t>(xa)][slot] += static_cast<float>(std::max(x1 - x0, 0.05));
          } else {
            acc[static_cast<size_t>(xa)][slot] += static_cast<float>(xa + 1 - x0);
            for (int x = xa + 1; x < xb - 1; ++x) acc[static_cast<size_t>(x)][slot] += 1.0f;
            acc[static_cast<size_t>(xb - 1)][slot] += static_cast<float>(x1 - (xb - 1));
          }
          return seen < limit;
        });
      }
      if (walked) *walked += seen;
      if (seen < limit) {
        for (size_t x = 0; x < acc.size(); ++x) {
          const auto& a = acc[x];
          const size_t best = static_cast<size_t>(std::max_element(a.begin(), a.end()) - a.begin());
          out[x] = Coverage{std::min(a[0] + a[1] + a[2], 1.0f), kSlots[best]};
        }
        return;
      }
    }
    level = 0;  // too many to walk: the finest buckets, wider than a pixel
  }
  pyramid_.sample(level, t0, ns_per_px, n, out);
}

}  // namespace parascope::models
