#include "models/track_lod.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>

namespace parascope::models {

int track_sub_rows(const Track& track) {
  if (track.key.kind == TrackKind::kSmLane) return kSmRoleCount;
  return std::min<int>(track.max_depth + 1, kMaxSubRows);
}

int slice_sub_row(const Trace& trace, const Track& track, size_t i) {
  if (track.key.kind == TrackKind::kSmLane) {
    const SliceRef r = track.slices.ref[i];
    if (r.kind() == SliceKind::kSmSpan && r.has_detail() && r.index() < trace.sm_spans.size())
      return static_cast<int>(trace.sm_spans[r.index()].role) & (kSmRoleCount - 1);
    return static_cast<int>(SmRole::kOther);
  }
  return std::min<int>(track.slices.depth_of(i), kMaxSubRows - 1);
}

size_t EndIndex::first_ending_at_or_after(TimeNs t) const {
  const auto it = std::lower_bound(block_max_.begin(), block_max_.end(), t);
  return static_cast<size_t>(it - block_max_.begin()) * kBlock;
}

LodGrid LodGrid::for_span(TimeNs lo, TimeNs hi, size_t slices, double slices_per_bucket) {
  LodGrid g;
  g.origin = lo;
  const double span = static_cast<double>(std::max<TimeNs>(hi - lo, 1));
  const double want = span * slices_per_bucket / static_cast<double>(std::max<size_t>(slices, 1));
  g.bucket_ns = static_cast<TimeNs>(std::bit_ceil(static_cast<uint64_t>(std::max(1.0, std::ceil(want)))));
  g.buckets0 = static_cast<size_t>((hi - lo) / g.bucket_ns) + 1;
  g.levels = 1 + static_cast<int>(std::bit_width(g.buckets0 - 1));  // until one bucket holds everything
  return g;
}

int LodGrid::level_for(double ns_per_px) const {
  if (levels == 0 || ns_per_px < static_cast<double>(bucket_ns)) return -1;
  const int k = static_cast<int>(std::floor(std::log2(ns_per_px / static_cast<double>(bucket_ns))));
  return std::min(k, levels - 1);
}

CoveragePyramid::Builder::Builder(const LodGrid& grid) : grid_(grid), weight_(grid.buckets0) {
  for (auto& w : weight_) w.fill(0.0f);
}

template <class F>
void CoveragePyramid::Builder::spread(TimeNs start, TimeNs dur, F&& f) const {
  const TimeNs w = grid_.bucket_ns;
  const TimeNs lo = std::max<TimeNs>(start - grid_.origin, 0);
  const TimeNs hi = std::min<TimeNs>(start - grid_.origin + std::max<TimeNs>(dur, 1),
                                     static_cast<TimeNs>(grid_.buckets0) * w);
  for (TimeNs b = lo / w; b * w < hi; ++b) f(static_cast<size_t>(b), static_cast<float>(std::min(hi, (b + 1) * w) - std::max(lo, b * w)));
}

void CoveragePyramid::Builder::add(TimeNs start, TimeNs dur, Category c) {
  const auto ci = static_cast<size_t>(c) & (kCategoryCount - 1);
  spread(start, dur, [&](size_t b, float overlap) { weight_[b][ci] += overlap; });
}

void CoveragePyramid::Builder::add_covered(TimeNs start, TimeNs dur) {
  if (covered_.empty()) covered_.assign(grid_.buckets0, 0.0f);
  spread(start, dur, [&](size_t b, float overlap) { covered_[b] += overlap; });
}

uint8_t CoveragePyramid::pack(float share, Category c) {
  const int q = share <= 0.0f ? 0 : std::clamp(static_cast<int>(std::ceil(share * 31.0f)), 1, 31);
  return static_cast<uint8_t>(q | (static_cast<int>(c) << 5));
}

CoveragePyramid CoveragePyramid::Builder::finish() {
  CoveragePyramid p;
  p.grid_ = grid_;
  p.cells_.resize(static_cast<size_t>(grid_.levels));
  std::vector<std::array<float, kCategoryCount>> cur = std::move(weight_);
  std::vector<float> covered = std::move(covered_);
  for (int level = 0; level < grid_.levels; ++level) {
    const auto width = static_cast<float>(grid_.width(level));
    auto& cells = p.cells_[static_cast<size_t>(level)];
    cells.resize(cur.size());
    for (size_t b = 0; b < cur.size(); ++b) {
      float sum = 0, best = 0;
      size_t best_c = static_cast<size_t>(Category::kOther);
      for (size_t c = 0; c < kCategoryCount; ++c) {
        sum += cur[b][c];
        if (cur[b][c] > best) {
          best = cur[b][c];
          best_c = c;
        }
      }
      if (!covered.empty()) sum = covered[b];
      cells[b] = pack(std::min(sum / width, 1.0f), static_cast<Category>(best_c));
    }
    if (level + 1 == grid_.levels) break;
    std::vector<std::array<float, kCategoryCount>> up((cur.size() + 1) / 2);
    for (size_t b = 0; b < cur.size(); ++b)
      for (size_t c = 0; c < kCategoryCount; ++c) up[b / 2][c] += cur[b][c];
    cur.swap(up);
    if (!covered.empty()) {
      std::vector<float> cup((covered.size() + 1) / 2, 0.0f);
      for (size_t b = 0; b < covered.size(); ++b) cup[b / 2] += covered[b];
      covered.swap(cup);
    }
  }
  return p;
}

CoveragePyramid CoveragePyramid::merge(const CoveragePyramid& a, float wa, const CoveragePyramid& b, float wb,
                                       const LodGrid& grid) {
  CoveragePyramid p;
  p.grid_ = grid;
  if (a.empty() && b.empty()) return p;
  p.cells_.resize(static_cast<size_t>(grid.levels));
  const float total = wa + wb;
  for (int level = 0; level < grid.levels; ++level) {
    const size_t nb = grid.buckets(level);
    auto& out = p.cells_[static_cast<size_t>(level)];
    out.resize(nb);
    const uint8_t* ca = a.empty() ? nullptr : a.cells(level).data();
    const uint8_t* cb = b.empty() ? nullptr : b.cells(level).data();
    for (size_t k = 0; k < nb; ++k) {
      const uint8_t va = ca ? ca[k] : 0, vb = cb ? cb[k] : 0;
      const float sa = share_of(va) * wa, sb = share_of(vb) * wb;
      out[k] = pack((sa + sb) / total, sa >= sb ? category_of(va) : category_of(vb));
    }
  }
  return p;
}

Coverage CoveragePyramid::cell(int level, size_t bucket) const {
  const uint8_t v = cells_[static_cast<size_t>(level)][bucket];
  return {share_of(v), category_of(v)};
}

void CoveragePyramid::sample(int level, double t0, double ns_per_px, int n, Coverage* out) const {
  const auto& cells = cells_[static_cast<size_t>(level)];
  const double w = static_cast<double>(grid_.width(level));
  const auto nb = static_cast<int64_t>(cells.size());
  const double rel0 = t0 - static_cast<double>(grid_.origin);
  for (int i = 0; i < n; ++i) {
    const double a = rel0 + i * ns_per_px;
    const double b = a + ns_per_px;
    auto ba = static_cast<int64_t>(std::floor(a / w));
    auto bb = static_cast<int64_t>(std::ceil(b / w)) - 1;
    out[i] = Coverage{};
    if (bb < 0 || ba >= nb) continue;
    ba = std::max<int64_t>(ba, 0);
    bb = std::min<int64_t>(bb, nb - 1);
    double sum = 0, best = -1;
    uint8_t best_cell = 0;
    for (int64_t k = ba; k <= bb; ++k) {
      const uint8_t v = cells[static_cast<size_t>(k)];
      if (!(v & 31)) continue;
      const double overlap = std::min(b, (static_cast<double>(k) + 1) * w) - std::max(a, static_cast<double>(k) * w);
      const double part = share_of(v) * overlap;
      sum += part;
      if (part > best) {
        best = part;
        best_cell = v;
      }
    }
    out[i] = Coverage{static_cast<float>(std::min(sum / ns_per_px, 1.0)), category_of(best_cell)};
  }
}

size_t CoveragePyramid::memory_bytes() const {
  size_t b = cells_.capacity() * sizeof(cells_[0]);
  for (const auto& c : cells_) b += c.capacity();
  return b;
}

TrackLod::TrackLod(const Trace& trace, uint32_t track, const SliceClassifier& classify, const LodGrid* combined_grid) {
  const Track& tr = trace.tracks[track];
  const SliceColumns& s = tr.slices;
  const size_t n = s.size();
  const int subs = track_sub_rows(tr);
  const bool sm = tr.key.kind == TrackKind::kSmLane;
  lanes_.resize(static_cast<size_t>(subs));
  if (n == 0) return;

  std::vector<uint8_t> sub(n), cat(n);
  for (size_t i = 0; i < n; ++i) {
    sub[i] = static_cast<uint8_t>(slice_sub_row(trace, tr, i));
    cat[i] = static_cast<uint8_t>(classify.category(track, static_cast<uint32_t>(i)));
    ++lanes_[sub[i]].count;
  }
  // Which lanes keep their own rows: every depth of a nested track (a long ancestor would make a
  // whole-track walk start far back); on SM lanes, the roles holding under a quarter of the slices.
  for (auto& lane : lanes_) lane.has_rows = subs > 1 && (!sm || lane.count * 4 < n) && lane.count > 0;
  ends_.build(n, [&](size_t i) { return lanes_[sub[i]].has_rows ? INT64_MIN : s.start[i] + s.dur[i]; });
  for (auto& lane : lanes_)
    if (lane.has_rows) lane.rows.reserve(lane.count);
  for (size_t i = 0; i < n; ++i)
    if (lanes_[sub[i]].has_rows) lanes_[sub[i]].rows.push_back(static_cast<uint32_t>(i));

  // per lane: grid, pyramid and wide slices
  struct Span {
    TimeNs lo = INT64_MAX, hi = INT64_MIN;
  };
  std::vector<Span> span(lanes_.size());
  for (size_t i = 0; i < n; ++i) {
    span[sub[i]].lo = std::min(span[sub[i]].lo, s.start[i]);
    span[sub[i]].hi = std::max(span[sub[i]].hi, s.start[i] + s.dur[i]);
  }
  std::vector<std::optional<CoveragePyramid::Builder>> builders(lanes_.size());
  for (size_t l = 0; l < lanes_.size(); ++l)
    if (lanes_[l].count >= kMinPyramidSlices)
      builders[l].emplace(LodGrid::for_span(span[l].lo, span[l].hi, lanes_[l].count, kLaneSlicesPerBucket));
  std::optional<CoveragePyramid::Builder> all;
  if (sm && combined_grid && combined_grid->levels > 0) all.emplace(*combined_grid);
  for (size_t i = 0; i < n; ++i) {
    if (builders[sub[i]]) builders[sub[i]]->add(s.start[i], s.dur[i], static_cast<Category>(cat[i]));
    if (all) all->add(s.start[i], s.dur[i], static_cast<Category>(cat[i]));
  }
  if (all) combined_ = all->finish();
  for (size_t l = 0; l < lanes_.size(); ++l) {
    if (!builders[l]) continue;
    LodLane& lane = lanes_[l];
    lane.pyramid = builders[l]->finish();
    const LodGrid& g = lane.pyramid.grid();
    lane.wide.resize(static_cast<size_t>(g.levels));
  }
  for (size_t i = 0; i < n; ++i) {
    LodLane& lane = lanes_[sub[i]];
    if (lane.pyramid.empty()) continue;
    const LodGrid& g = lane.pyramid.grid();
    const TimeNs d = s.dur[i];
    for (int level = 0; level < g.levels && d >= kWideBuckets * g.width(level); ++level)
      lane.wide[static_cast<size_t>(level)].push_back(static_cast<uint32_t>(i));
  }
  for (auto& lane : lanes_) {
    lane.ends.build(lane.rows.size(), [&](size_t j) { return s.start[lane.rows[j]] + s.dur[lane.rows[j]]; });
    lane.wide_ends.resize(lane.wide.size());
    for (size_t k = 0; k < lane.wide.size(); ++k) {
      lane.wide[k].shrink_to_fit();
      const auto& w = lane.wide[k];
      lane.wide_ends[k].build(w.size(), [&](size_t j) { return s.start[w[j]] + s.dur[w[j]]; });
    }
  }
}

size_t TrackLod::memory_bytes() const {
  size_t b = ends_.memory_bytes() + combined_.memory_bytes() + lanes_.capacity() * sizeof(LodLane);
  for (const auto& l : lanes_) {
    b += l.rows.capacity() * sizeof(uint32_t) + l.ends.memory_bytes() + l.pyramid.memory_bytes();
    for (const auto& w : l.wide) b += w.capacity() * sizeof(uint32_t) + sizeof(w);
    for (const auto& e : l.wide_ends) b += e.memory_bytes() + sizeof(e);
  }
  return b;
}

}  // namespace parascope::models
