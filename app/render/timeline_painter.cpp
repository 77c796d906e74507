#include "render/timeline_painter.h"

#include "render/elided_name.h"
#include <QElapsedTimer>
#include <QFontMetrics>
#include <QPainterPath>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

namespace parascope::render {

namespace {

constexpr QRgb kBackground = 0xfffbfbf9;
constexpr QRgb kRowLine = 0xffe4e4e4;
constexpr QRgb kProcessHeader = 0xffdde3ea;
constexpr QRgb kDeviceHeader = 0xffe9edf1;
constexpr double kLabelMinPx = 30;      // bars at least this wide carry their name
constexpr size_t kMaxFlowsInView = 300;  // more than this in view: only the selection's flows are drawn
constexpr double kHeatWalkBudget = 15'000;  // SM spans a fine heat strip may walk before sampling level 0

QRgb blend(QRgb bg, QRgb fg, double a) {
  auto mix = [&](int s) {
    const int b = (bg >> s) & 0xff, f = (fg >> s) & 0xff;
    return static_cast<QRgb>(std::lround(b + (f - b) * a)) << s;
  };
  return 0xff000000u | mix(16) | mix(8) | mix(0);
}

}  // namespace

QColor category_color(Category c) {
  switch (c) {
    case Category::kCompute: return QColor(0x3b, 0x7d, 0xd8);        // blue
    case Category::kCommunication: return QColor(0xe8, 0x6a, 0x1c);  // orange
    case Category::kMemory: return QColor(0x2e, 0xa0, 0x4f);         // green
    case Category::kSync: return QColor(0x9a, 0x5c, 0xc6);           // purple
    case Category::kHost: return QColor(0x5f, 0x8f, 0x94);           // slate teal
    case Category::kAnnotation: return QColor(0xb8, 0xb8, 0xb0);     // light grey
    case Category::kIdle: return QColor(0xee, 0xee, 0xee);
    case Category::kOther: return QColor(0x80, 0x80, 0x80);
  }
  return Qt::gray;
}

QColor name_color(std::string_view name) {
  uint32_t h = 2166136261u;
  for (char c : name) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
  return QColor::fromHsv(static_cast<int>(h % 360), 110 + static_cast<int>((h >> 9) % 80), 200 + static_cast<int>((h >> 17) % 40));
}

QColor rank_color(int32_t rank) { return QColor::fromHsv((rank < 0 ? 0 : rank * 67) % 360, 140, 210); }

std::vector<uint32_t> flows_of(const Trace& trace, EventRef slice) {
  std::vector<uint32_t> out;
  if (!slice.valid()) return out;
  for (uint32_t i = 0; i < trace.flows.size(); ++i)
    if (trace.flows[i].from == slice || trace.flows[i].to == slice) out.push_back(i);
  return out;
}

QColor flow_color(FlowKind k) {
  switch (k) {
    case FlowKind::kLaunch: return QColor(0x44, 0x55, 0x77);
    case FlowKind::kSendRecv: return QColor(0x1b, 0x8a, 0x3a);
    case FlowKind::kCollective: return QColor(0xc4, 0x4b, 0x0c);
    case FlowKind::kSignalWait: return QColor(0x8a, 0x3f, 0xb8);
    default: return QColor(0x50, 0x50, 0x50);
  }
}

// One paint's state: the RGB32 layer bars are written into, the view, scratch buffers.
struct TimelinePainter::Frame {
  uint32_t* bits = nullptr;
  qsizetype stride = 0;  // in pixels
  int w = 0, h = 0;
  const models::TimelineMapping& m;
  const TimelineStyle& style;
  const TimelineDecorations& deco;
  double scroll_y = 0;
  PaintStats& stats;
  std::vector<models::Coverage> cov;
  std::vector<uint32_t> line;
  std::vector<uint8_t> scratch;

  Frame(const models::TimelineMapping& mm, const TimelineStyle& st, const TimelineDecorations& d, PaintStats& s)
      : m(mm), style(st), deco(d), stats(s) {}

  // Fills [x0, x1) × [y0, y1) of the layer (layer pixels), at least one pixel wide.
  void fill(double x0, double x1, double y0, double y1, uint32_t c) {
    int ix0 = static_cast<int>(std::floor(x0));
    int ix1 = std::max(ix0 + 1, static_cast<int>(std::lround(x1)));
    int iy0 = static_cast<int>(std::lround(y0));
    int iy1 = std::max(iy0 + 1, static_cast<int>(std::lround(y1)));
    ix0 = std::max(ix0, 0);
    ix1 = std::min(ix1, w);
    iy0 = std::max(iy0, 0);
    iy1 = std::min(iy1, h);
    if (ix0 >= ix1 || iy0 >= iy1) return;
    for (int y = iy0; y < iy1; ++y) std::fill_n(bits + y * stride + ix0, ix1 - ix0, c);
    ++stats.bars_drawn;
  }
  // Copies `line` (w pixels) into rows [y0, y1).
  void put_line(double y0, double y1) {
    const int iy0 = std::max(static_cast<int>(std::lround(y0)), 0);
    const int iy1 = std::min(std::max(static_cast<int>(std::lround(y1)), iy0 + 1), h);
    for (int y = iy0; y < iy1; ++y) std::memcpy(bits + y * stride, line.data(), static_cast<size_t>(w) * 4);
  }
};

namespace {
// Top and bottom of a sub-row's bars inside a row starting at `top`.
std::pair<double, double> bar_span(const models::TimelineRow& row, double top, int sub) {
  const double sub_h = row.height / row.sub_rows;
  const double pad = sub_h >= 8 ? 1 : 0;
  return {top + sub * sub_h + pad, top + (sub + 1) * sub_h - pad};
}
}  // namespace

TimelinePainter::TimelinePainter(const models::TimelineIndex& index) : index_(index), trace_(index.trace()) {}

QColor TimelinePainter::slice_color(uint32_t track, uint32_t index, ColorMode mode) const {
  switch (mode) {
    case ColorMode::kName: return name_color(trace_.str(trace_.tracks[track].slices.name[index]));
    case ColorMode::kRank: return rank_color(trace_.processes[trace_.tracks[track].key.process].rank);
    case ColorMode::kCategory: break;
  }
  return category_color(index_.classifier().category(track, index));
}

const QString& TimelinePainter::elided(StringId name, int width, const QFontMetrics& fm) const {
  const quint64 key = (static_cast<quint64>(name) << 16) | static_cast<quint64>(std::min(width / 4, 0xffff));
  auto it = elided_.find(key);
  if (it != elided_.end()) return *it;
  if (elided_.size() > 20000) elided_.clear();
  return *elided_.insert(key, elide_name(trace_.str(name), QFontMetricsF(fm), (width / 4) * 4));
}

void TimelinePainter::walk_fine(Frame& f, const models::TimelineRow& row, double top, unsigned lane_mask) const {
  const auto t = static_cast<uint32_t>(row.track);
  const Track& tr = trace_.tracks[t];
  const auto& s = tr.slices;
  const models::TimelineMapping& m = f.m;
  const ColorMode mode = f.style.color_mode;
  struct Pending {
    double x0 = 0, x1 = -1;
    std::array<double, models::kCategoryCount> weight{};
    uint32_t index = 0;
    bool single = true;
  };
  std::array<Pending, models::kMaxSubRows> pend{};
  auto flush = [&](int sub, Pending& pb) {
    if (pb.x1 < pb.x0) return;
    QRgb c;
    if (pb.single) {
      c = slice_color(t, pb.index, mode).rgb();
    } else if (mode == ColorMode::kRank) {
      c = rank_color(trace_.processes[tr.key.process].rank).rgb();
    } else {
      const auto best = std::max_element(pb.weight.begin(), pb.weight.end()) - pb.weight.begin();
      c = category_color(static_cast<Category>(best)).rgb();
    }
    const auto [y0, y1] = bar_span(row, top, sub);
    f.fill(pb.x0, std::max(pb.x1, pb.x0 + 1), y0, y1, c);
    if (pb.single && pb.x1 - pb.x0 >= kLabelMinPx)
      labels_.push_back({QRectF(pb.x0, y0, pb.x1 - pb.x0, y1 - y0), s.name[pb.index], c});
    pb = Pending{};
  };
  const double w = f.w;
  auto visit = [&](uint32_t i, int sub) {
    ++f.stats.slices_visited;
    sub = std::min(sub, row.sub_rows - 1);
    const double x0 = std::max(m.x_of(s.start[i]), -2.0);
    const double x1 = std::min(m.x_of(s.start[i] + s.dur[i]), w + 2);
    Pending& pb = pend[static_cast<size_t>(sub)];
    const auto cat = static_cast<size_t>(index_.classifier().category(t, i)) & (models::kCategoryCount - 1);
    if (pb.x1 >= pb.x0 && x0 - pb.x1 < 1.0 && (x1 - x0 < 1.0 || pb.x1 - pb.x0 < 1.0)) {
      // fold: this slice or the pending bar is thinner than a pixel and they touch
      pb.x1 = std::max(pb.x1, x1);
      pb.weight[cat] += std::max(x1 - x0, 0.05);
      pb.single = false;
      return true;
    }
    flush(sub, pb);
    pb.x0 = x0;
    pb.x1 = x1;
    pb.weight[cat] += std::max(x1 - x0, 0.05);
    pb.index = i;
    return true;
  };
  if (f.style.use_lod) {
    // one lane at a time, so each lane's pending bar sees its slices in start order
    for (int l = 0; l < index_.lod(t).sub_rows(); ++l) {
      if (!(lane_mask & (1u << l))) continue;
      index_.lod(t).visit(trace_, t, m.start(), m.end(), 1u << l, visit);
      flush(std::min(l, row.sub_rows - 1), pend[static_cast<size_t>(std::min(l, row.sub_rows - 1))]);
    }
    return;
  }
  // the first version: from the track's longest slice back, every slice of the track
  if (max_dur_.empty()) {
    max_dur_.resize(trace_.tracks.size(), 0);
    for (size_t k = 0; k < trace_.tracks.size(); ++k)
      for (TimeNs d : trace_.tracks[k].slices.dur) max_dur_[k] = std::max(max_dur_[k], d);
  }
  const TimeNs t0 = m.start(), t1 = m.end();
  for (auto i = static_cast<size_t>(std::lower_bound(s.start.begin(), s.start.end(), t0 - max_dur_[t]) - s.start.begin());
       i < s.size() && s.start[i] <= t1; ++i) {
    if (s.start[i] + s.dur[i] < t0) continue;
    visit(static_cast<uint32_t>(i), models::slice_sub_row(trace_, tr, i));
  }
  for (int sub = 0; sub < row.sub_rows && sub < models::kMaxSubRows; ++sub) flush(sub, pend[static_cast<size_t>(sub)]);
}

void TimelinePainter::paint_coverage(Frame& f, const models::TimelineRow& row, double top, int sub, int level) const {
  const auto t = static_cast<uint32_t>(row.track);
  const models::CoveragePyramid& pyr = index_.lod(t).lane(sub).pyramid;
  f.cov.resize(static_cast<size_t>(f.w));
  pyr.sample(level, static_cast<double>(f.m.start()), f.m.ns_per_px(), f.w, f.cov.data());
  f.stats.cells_sampled += static_cast<size_t>(f.w);
  // colours: category (dominant) or the rank's; 8 steps of density from faint to solid
  std::array<std::array<QRgb, 9>, models::kCategoryCount> table{};
  const bool by_rank = f.style.color_mode == ColorMode::kRank;
  const QRgb rank = rank_color(trace_.processes[trace_.tracks[t].key.process].rank).rgb();
  for (int c = 0; c < models::kCategoryCount; ++c)
    for (int q = 0; q <= 8; ++q)
      table[static_cast<size_t>(c)][static_cast<size_t>(q)] =
          blend(kBackground, by_rank ? rank : category_color(static_cast<Category>(c)).rgb(), 0.3 + 0.7 * q / 8.0);
  f.line.assign(static_cast<size_t>(f.w), kBackground);
  bool any = false;
  QRgb prev = kBackground;
  for (int x = 0; x < f.w; ++x) {
    const models::Coverage& c = f.cov[static_cast<size_t>(x)];
    if (c.share <= 0) {
      prev = kBackground;
      continue;
    }
    const auto q = static_cast<size_t>(std::lround(c.share * 8));
    const QRgb col = table[static_cast<size_t>(c.category) & (models::kCategoryCount - 1)][q];
    f.line[static_cast<size_t>(x)] = col;
    if (col != prev) ++f.stats.bars_drawn;
    prev = col;
    any = true;
  }
  if (!any) return;
  const auto [y0, y1] = bar_span(row, top, std::min(sub, row.sub_rows - 1));
  f.put_line(y0, y1);
}

void TimelinePainter::paint_wide(Frame& f, const models::TimelineRow& row, double top, int sub, int level) const {
  const auto t = static_cast<uint32_t>(row.track);
  const models::LodLane& lane = index_.lod(t).lane(sub);
  if (static_cast<size_t>(level) >= lane.wide.size()) return;
  const auto& list = lane.wide[static_cast<size_t>(level)];
  const auto& s = trace_.tracks[t].slices;
  const TimeNs t0 = f.m.start(), t1 = f.m.end();
  const auto [y0, y1] = bar_span(row, top, std::min(sub, row.sub_rows - 1));
  for (size_t j = lane.wide_ends[static_cast<size_t>(level)].first_ending_at_or_after(t0); j < list.size(); ++j) {
    const uint32_t i = list[j];
    if (s.start[i] > t1) break;
    if (s.start[i] + s.dur[i] < t0) continue;
    ++f.stats.slices_visited;
    const double x0 = std::max(f.m.x_of(s.start[i]), -2.0);
    const double x1 = std::min(f.m.x_of(s.start[i] + s.dur[i]), f.w + 2.0);
    const QRgb c = slice_color(t, i, f.style.color_mode).rgb();
    f.fill(x0, x1, y0, y1, c);
    if (x1 - x0 >= kLabelMinPx) labels_.push_back({QRectF(x0, y0, x1 - x0, y1 - y0), s.name[i], c});
  }
}

void TimelinePainter::paint_track(Frame& f, const models::TimelineRow& row, double top) const {
  const auto t = static_cast<uint32_t>(row.track);
  const Track& tr = trace_.tracks[t];
  if (tr.slices.empty()) return;
  if (!f.style.use_lod) {
    walk_fine(f, row, top, ~0u);
    return;
  }
  // each lane: its pyramid when a pixel holds at least a bucket, else its slices one by one
  const models::TrackLod& lod = index_.lod(t);
  const double npp = f.m.ns_per_px();
  unsigned fine = 0;
  for (int sub = 0; sub < lod.sub_rows(); ++sub) {
    const models::LodLane& lane = lod.lane(sub);
    if (lane.count == 0) continue;
    const int level = lane.pyramid.empty() ? -1 : lane.pyramid.grid().level_for(npp);
    if (level < 0) {
      fine |= 1u << sub;
      continue;
    }
    paint_coverage(f, row, top, sub, level);
    paint_wide(f, row, top, sub, level);
  }
  if (fine) walk_fine(f, row, top, fine);
}

void TimelinePainter::paint_heat_strip(Frame& f, const models::TimelineRow& row, double top) const {
  const auto& lanes = index_.sm_lanes(row.device);
  if (lanes.empty()) return;
  const models::LodGrid& grid = index_.sm_grid(row.device);
  const models::TimelineMapping& m = f.m;
  const double npp = m.ns_per_px();
  const int w = f.w;
  const int strip_h = std::max(1, static_cast<int>(row.height) - 1);
  const TimeNs t0 = m.start(), t1 = m.end();

  // Sample the shared grid (one bucket per pixel: the level whose buckets are 1–2 pixels wide,
  // level 0 when even that is wider) unless the view is finer than the grid and the spans in view
  // are few enough to walk.
  bool walk = grid.levels == 0 || grid.level_for(npp) < 0;
  if (walk && grid.levels > 0) {
    double spans = 0;
    for (uint32_t t : lanes) spans += static_cast<double>(trace_.tracks[t].slices.size());
    const double grid_span = static_cast<double>(grid.width(0)) * static_cast<double>(grid.buckets0);
    walk = spans * static_cast<double>(t1 - t0) / grid_span <= kHeatWalkBudget;
  }
  const int level = walk ? 0 : std::clamp(grid.level_for(npp) + 1, 0, grid.levels - 1);
  std::vector<int32_t> bucket_of;  // per pixel, -1 outside the grid
  if (!walk) {
    bucket_of.resize(static_cast<size_t>(w));
    const double bw = static_cast<double>(grid.width(level));
    const auto nb = static_cast<int64_t>(grid.buckets(level));
    const double rel0 = static_cast<double>(t0 - grid.origin);
    for (int x = 0; x < w; ++x) {
      const auto b = static_cast<int64_t>(std::floor((rel0 + (x + 0.5) * npp) / bw));
      bucket_of[static_cast<size_t>(x)] = b < 0 || b >= nb ? -1 : static_cast<int32_t>(b);
    }
  }
  // heat colours: 16 steps from faint to the full category colour
  std::array<std::array<QRgb, 17>, models::kCategoryCount> heat{};
  for (int c = 0; c < models::kCategoryCount; ++c)
    for (int q = 0; q <= 16; ++q)
      heat[static_cast<size_t>(c)][static_cast<size_t>(q)] =
          q == 0 ? kBackground : blend(kBackground, category_color(static_cast<Category>(c)).rgb(), 0.15 + 0.85 * q / 16.0);
  std::array<QRgb, 256> colour_of{};  // a heat-pyramid cell's colour
  for (int v = 0; v < 256; ++v) {
    const auto q = (v & 31) ? std::clamp((v & 31) * 16 / 31, 1, 16) : 0;
    colour_of[static_cast<size_t>(v)] = heat[static_cast<size_t>(v >> 5)][static_cast<size_t>(q)];
  }
  // SMs go in groups of g (a power of two) so that there are no more groups than pixel rows;
  // group i fills rows [i·H/groups, (i+1)·H/groups)
  size_t g = 1;
  while ((lanes.size() + g - 1) / g > static_cast<size_t>(strip_h)) g *= 2;
  const size_t groups = (lanes.size() + g - 1) / g;
  const auto wz = static_cast<size_t>(w);
  f.line.resize(wz);
  std::vector<float> acc;
  // walks sum time per role (SmRole: compute, communicate, wait, other), 4 rows of floats, coloured
  // as the classifier colours those roles
  constexpr size_t kSlots = 4;
  constexpr Category kSlotCategory[kSlots] = {Category::kCompute, Category::kCommunication, Category::kSync, Category::kOther};
  static_assert(static_cast<int>(SmRole::kCompute) == 0 && static_cast<int>(SmRole::kCommunicate) == 1 &&
                static_cast<int>(SmRole::kWait) == 2 && static_cast<int>(SmRole::kOther) == 3);
  if (walk) acc.assign(kSlots * wz, 0.0f);
  for (size_t gi = 0; gi < groups; ++gi) {
    const size_t first = gi * g, last = std::min(lanes.size(), first + g);
    if (walk) {
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (size_t si = first; si < last; ++si) {
        const uint32_t t = lanes[si];
        const auto& s = trace_.tracks[t].slices;
        // on an SM lane the sub-row is the probe role: compute, communicate, wait, other = the slots
        index_.lod(t).visit(trace_, t, t0, t1, ~0u, [&](uint32_t i, int role) {
          ++f.stats.slices_visited;
          const double x0 = std::max(m.x_of(s.start[i]), 0.0);
          const double x1 = std::min(m.x_of(s.start[i] + s.dur[i]), static_cast<double>(w));
          float* a = acc.data() + static_cast<size_t>(role & 3) * wz;
          const int xa = static_cast<int>(x0), xb = std::min(w, static_cast<int>(std::ceil(x1)));
          if (xb - xa <= 1) {
            if (xa < w) a[xa] += static_cast<float>(std::max(x1 - x0, 0.05));
            return true;
          }
          a[xa] += static_cast<float>(xa + 1 - x0);
          for (int x = xa + 1; x < xb - 1; ++x) a[x] += 1.0f;
          a[xb - 1] += static_cast<float>(x1 - (xb - 1));
          return true;
        });
      }
      const float scale = 16.0f / static_cast<float>(last - first);
      const float* a0 = acc.data();
      const float* a1 = a0 + wz;
      const float* a2 = a1 + wz;
      const float* a3 = a2 + wz;
      std::vector<uint8_t>& q = f.scratch;
      q.resize(wz);
      for (size_t x = 0; x < wz; ++x) {  // branch-free, so it vectorises: level and argmax per pixel
        const float sum = a0[x] + a1[x] + a2[x] + a3[x];
        const int steps = std::min(16, static_cast<int>(sum * scale + 0.999f));
        const float m01 = std::max(a0[x], a1[x]), m23 = std::max(a2[x], a3[x]);
        const int c01 = a1[x] > a0[x], c23 = 2 + (a3[x] > a2[x]);
        const int cat = m23 > m01 ? c23 : c01;
        q[x] = static_cast<uint8_t>(steps | (cat << 5));
      }
      for (size_t x = 0; x < wz; ++x)
        f.line[x] = heat[static_cast<size_t>(kSlotCategory[q[x] >> 5])][static_cast<size_t>(q[x] & 31)];
    } else {
      const models::CoveragePyramid* pyr = g == 1 ? &index_.lod(lanes[first]).combined() : index_.sm_group(row.device, g, gi);
      if (pyr && !pyr->empty() && level < pyr->levels()) {
        const uint8_t* cells = pyr->cells(level).data();
        for (size_t x = 0; x < wz; ++x) {
          const int32_t b = bucket_of[x];
          f.line[x] = b < 0 ? kBackground : colour_of[cells[b]];
        }
        f.stats.cells_sampled += wz;
      } else {
        std::fill(f.line.begin(), f.line.end(), kBackground);
      }
    }
    const auto r0 = static_cast<int>(gi * static_cast<size_t>(strip_h) / groups);
    const auto r1 = static_cast<int>((gi + 1) * static_cast<size_t>(strip_h) / groups);
    f.put_line(top + r0, top + std::max(r1, r0 + 1));
  }
}

// A folded rank or GPU: one band per GPU of it that did busy work, a bar per pixel as tall as the
// GPU was busy there, in the colour of the work that took most of it (TimelineIndex::sample_activity).
void TimelinePainter::paint_activity(Frame& f, const models::TimelineRow& row, double top) const {
  std::vector<int32_t> devices;
  if (row.kind == models::TimelineRow::Kind::kProcess) devices = index_.active_devices(row.process);
  else if (!index_.activity(row.device).empty()) devices = {row.device};
  if (devices.empty()) return;
  const double y0 = top + 2, y1 = top + row.height - 1;  // above the row line
  const double band = (y1 - y0) / static_cast<double>(devices.size());
  std::array<QRgb, models::kCategoryCount> colour{};
  for (int c = 0; c < models::kCategoryCount; ++c) colour[static_cast<size_t>(c)] = category_color(static_cast<Category>(c)).rgb();
  f.cov.resize(static_cast<size_t>(f.w));
  for (size_t k = 0; k < devices.size(); ++k) {
    index_.sample_activity(devices[k], static_cast<double>(f.m.start()), f.m.ns_per_px(), f.w, f.cov.data(), &f.stats.slices_visited);
    f.stats.cells_sampled += static_cast<size_t>(f.w);
    const int bottom = std::min(static_cast<int>(std::lround(y0 + (k + 1) * band)), f.h);
    const int band_px = std::max(1, static_cast<int>(std::lround(band)));
    for (int x = 0; x < f.w; ++x) {
      const models::Coverage& c = f.cov[static_cast<size_t>(x)];
      if (c.share <= 0) continue;
      const int h = std::max(1, static_cast<int>(std::lround(c.share * band_px)));
      const QRgb col = colour[static_cast<size_t>(c.category) & (models::kCategoryCount - 1)];
      for (int y = std::max(bottom - h, 0); y < bottom; ++y) f.bits[y * f.stride + x] = col;
    }
  }
}

void TimelinePainter::paint_counter(Frame& f, const models::TimelineRow& row, double top) const {
  const auto t = static_cast<uint32_t>(row.track);
  const Track& tr = trace_.tracks[t];
  const auto& c = tr.counter;
  const models::CounterLod& lod = index_.counter(t);
  const models::TimelineMapping& m = f.m;
  const double maxv = lod.max() > 0 ? lod.max() : 1.0;
  const int base = static_cast<int>(std::lround(top + row.height)) - 1;  // the row line is below
  const double h = row.height - 4;
  // measured: solid; estimated: pale with a dashed top line; simulated: purple hatching
  QRgb fill = blend(kBackground, 0xffe86a1c, 0.6), edge = 0xffb04810;
  switch (tr.counter_source) {
    case CounterSource::kMeasured: break;
    case CounterSource::kEstimated: fill = blend(kBackground, 0xffe86a1c, 0.22); break;
    case CounterSource::kSimulated:
      fill = blend(kBackground, 0xff6a3d9a, 0.35);
      edge = 0xff6a3d9a;
      break;
  }
  // per pixel: the largest value holding anywhere in it (the sample holding at its left edge and
  // every sample inside), by binary search and the maximum pyramid
  size_t i = static_cast<size_t>(std::upper_bound(c.time.begin(), c.time.end(), m.start()) - c.time.begin());
  int prev_y = base;
  for (int x = 0; x < f.w; ++x) {
    const TimeNs b = m.time_at(x + 1);
    const size_t first = i > 0 ? i - 1 : 0;
    const size_t j = static_cast<size_t>(std::lower_bound(c.time.begin() + static_cast<std::ptrdiff_t>(i), c.time.end(), b) -
                                         c.time.begin());
    double v = 0;
    if (i > 0 || j > i) {
      if (j - first > 16) v = lod.max_in(c, first, j);
      else
        for (size_t k = first; k < j; ++k) v = std::max(v, c.value[k]);
    }
    i = j;
    const int y = base - static_cast<int>(std::lround(h * std::clamp(v / maxv, 0.0, 1.0)));
    if (y < base) {
      const int y0 = std::max(y, 0), y1 = std::min(base, f.h);
      const bool hatch = tr.counter_source == CounterSource::kSimulated;
      for (int yy = y0; yy < y1; ++yy)
        f.bits[yy * f.stride + x] = hatch && (x + yy) % 4 ? kBackground : fill;
    }
    // the top edge, joined to the previous column; dashed for estimates
    const bool dash = tr.counter_source == CounterSource::kEstimated && (x / 3) % 2;
    if (!dash) {
      const int e0 = std::max(std::min(y, prev_y), 0), e1 = std::min(std::max(y, prev_y) + 1, f.h);
      for (int yy = e0; yy < e1 && yy <= base; ++yy) f.bits[yy * f.stride + x] = edge;
    }
    prev_y = y;
  }
}

QPointF TimelinePainter::anchor(const models::TrackLayout& layout, const models::TimelineMapping& m, EventRef r, bool at_end,
                                double data_x0, double data_y0, double scroll_y, bool* ok) const {
  *ok = false;
  if (!r.valid() || r.track >= trace_.tracks.size()) return {};
  const Track& tr = trace_.tracks[r.track];
  if (r.index >= tr.slices.size()) return {};
  const int ri = layout.row_of_track(static_cast<int32_t>(r.track));
  if (ri < 0) return {};
  const models::TimelineRow& row = layout.rows()[static_cast<size_t>(ri)];
  const int sub = std::min(models::slice_sub_row(trace_, tr, r.index), row.sub_rows - 1);
  const double sub_h = row.height / row.sub_rows;
  const TimeNs t = tr.slices.start[r.index] + (at_end ? tr.slices.dur[r.index] : 0);
  *ok = true;
  return {data_x0 + m.x_of(t), data_y0 + row.y - scroll_y + (sub + 0.5) * sub_h};
}

void TimelinePainter::paint_flows(QPainter& p, const models::TrackLayout& layout, const models::TimelineMapping& m, double data_x0,
                                  double data_y0, double scroll_y, const TimelineStyle& style,
                                  const TimelineDecorations& deco, PaintStats& stats) const {
  std::vector<uint32_t> flows = deco.selected_flows;
  if (style.show_flows) {
    const auto [first, last] = index_.flows().candidates(m.start(), m.end());
    if (last - first <= kMaxFlowsInView) {
      for (size_t k = first; k < last; ++k) {
        const auto& e = index_.flows().entries()[k];
        if (e.t1 >= m.start()) flows.push_back(e.flow);
      }
    }
  }
  if (flows.empty() && deco.collective_peers.empty()) return;
  p.setRenderHint(QPainter::Antialiasing, !deco.selected_flows.empty() || !deco.collective_peers.empty() || flows.size() < 60);
  auto draw = [&](QPointF a, QPointF b, QColor c, bool selected) {
    if (!selected) c.setAlpha(150);
    if ((a.y() < data_y0 && b.y() < data_y0) || (a.x() < data_x0 && b.x() < data_x0)) return;
    p.setPen(QPen(c, selected ? 1.8 : 1.0));
    p.setBrush(Qt::NoBrush);
    if (selected) {
      QPainterPath path(a);
      const double dx = std::max(std::abs(b.x() - a.x()) * 0.5, 12.0);
      path.cubicTo(a + QPointF(dx, 0), b - QPointF(dx, 0), b);
      p.drawPath(path);
    } else {
      p.drawLine(a, b);
    }
    // arrow head pointing into the target
    p.setBrush(c);
    const QPointF tip = b;
    p.drawPolygon(QPolygonF({tip, tip + QPointF(-6, -3.5), tip + QPointF(-6, 3.5)}));
    ++stats.flows_drawn;
  };
  for (uint32_t fi : flows) {
    const Flow& fl = trace_.flows[fi];
    bool ok_a = false, ok_b = false;
    const QPointF a = anchor(layout, m, fl.from, true, data_x0, data_y0, scroll_y, &ok_a);
    const QPointF b = anchor(layout, m, fl.to, false, data_x0, data_y0, scroll_y, &ok_b);
    if (!ok_a || !ok_b) continue;
    const bool selected = deco.selected.valid() && (fl.from == deco.selected || fl.to == deco.selected);
    draw(a, b, flow_color(fl.kind), selected);
  }
  bool ok_self = false;
  const QPointF self = anchor(layout, m, deco.selected, false, data_x0, data_y0, scroll_y, &ok_self);
  for (EventRef peer : deco.collective_peers) {
    bool ok = false;
    const QPointF b = anchor(layout, m, peer, false, data_x0, data_y0, scroll_y, &ok);
    if (ok_self && ok) draw(self, b, flow_color(FlowKind::kCollective), true);
  }
  p.setRenderHint(QPainter::Antialiasing, false);
}

// Where one paint puts things: the data region (area minus the label column and the ruler) in
// widget pixels, and the layout y at its top.
struct TimelinePainter::Viewport {
  QRect area;
  double label_w = 0, ruler_h = 0;
  double data_x0 = 0, data_y0 = 0, data_w = 0;
  QRectF data;
  double scroll_y = 0;
};

// Sizes the layer to the data region, clears it and points the frame at it.
void TimelinePainter::prepare_layer(Frame& f, const Viewport& v) const {
  const int lw_px = std::max(1, static_cast<int>(std::ceil(v.data_w)));
  const int lh_px = std::max(1, static_cast<int>(std::ceil(v.area.height() - v.ruler_h)));
  if (layer_.size() != QSize(lw_px, lh_px)) layer_ = QImage(lw_px, lh_px, QImage::Format_RGB32);
  layer_.fill(kBackground);
  labels_.clear();
  f.bits = reinterpret_cast<uint32_t*>(layer_.bits());
  f.stride = layer_.bytesPerLine() / 4;
  f.w = lw_px;
  f.h = lh_px;
  f.scroll_y = v.scroll_y;
}

// Rows: bars, strips and header bands go into the layer.
void TimelinePainter::paint_rows(Frame& f, const std::vector<const models::TimelineRow*>& visible, const QElapsedTimer& clock) const {
  for (const models::TimelineRow* row : visible) {
    const double top = row->y - f.scroll_y;
    ++f.stats.rows_painted;
    switch (row->kind) {
      case models::TimelineRow::Kind::kProcess:
      case models::TimelineRow::Kind::kDevice: {
        f.fill(0, f.w, top, top + row->height, row->kind == models::TimelineRow::Kind::kProcess ? kProcessHeader : kDeviceHeader);
        if (!row->collapsed) break;
        const qint64 t0 = clock.nsecsElapsed();
        paint_activity(f, *row, top);
        f.stats.activity_ms += static_cast<double>(clock.nsecsElapsed() - t0) / 1e6;
        break;
      }
      case models::TimelineRow::Kind::kSmGroup: {
        const qint64 t0 = clock.nsecsElapsed();
        paint_heat_strip(f, *row, top);
        f.stats.heat_ms += static_cast<double>(clock.nsecsElapsed() - t0) / 1e6;
        break;
      }
      case models::TimelineRow::Kind::kTrack: {
        const Track& tr = trace_.tracks[static_cast<size_t>(row->track)];
        if (tr.slices.empty() && tr.counter.size()) paint_counter(f, *row, top);
        else paint_track(f, *row, top);
        break;
      }
    }
    f.fill(0, f.w, top + row->height - 1, top + row->height, kRowLine);
  }
}

// The names of the bars wide enough to hold one, collected while the rows were painted.
void TimelinePainter::paint_slice_labels(QPainter& p, const Viewport& v, const QFontMetrics& fm, const TimelineStyle& style,
                                         PaintStats& stats) const {
  const double ascent = fm.ascent(), descent = fm.descent();
  if (elided_font_ != style.font) {
    elided_.clear();
    label_text_.clear();
    elided_font_ = style.font;
  }
  for (const Label& l : labels_) {
    if (l.rect.height() < fm.height() - 2) continue;
    const double x = std::max(l.rect.left(), 0.0);
    const int width = static_cast<int>(std::min(l.rect.right(), v.data_w) - x) - 5;
    if (width < 12) continue;
    const QString& text = elided(l.name, width, fm);
    const int lightness = qGray(l.color);
    p.setPen(lightness > 150 ? QColor(0x10, 0x10, 0x10) : QColor(0xff, 0xff, 0xff));
    p.drawText(QPointF(v.data_x0 + x + 3, v.data_y0 + l.rect.top() + (l.rect.height() + ascent - descent) / 2), text);
    ++stats.labels_drawn;
  }
}

// A black frame around the selected slice.
void TimelinePainter::paint_selection(QPainter& p, const Viewport& v, const models::TrackLayout& layout, const models::TimelineMapping& m,
                                      const TimelineDecorations& deco) const {
  if (!deco.selected.valid() || deco.selected.track >= trace_.tracks.size()) return;
  const int ri = layout.row_of_track(static_cast<int32_t>(deco.selected.track));
  const Track& tr = trace_.tracks[deco.selected.track];
  if (ri < 0 || deco.selected.index >= tr.slices.size()) return;
  const models::TimelineRow& row = layout.rows()[static_cast<size_t>(ri)];
  const uint32_t i = deco.selected.index;
  const int sub = std::min(models::slice_sub_row(trace_, tr, i), row.sub_rows - 1);
  const auto [y0, y1] = bar_span(row, v.data_y0 + row.y - v.scroll_y, sub);
  const double x0 = v.data_x0 + m.x_of(tr.slices.start[i]);
  const double x1 = v.data_x0 + m.x_of(tr.slices.start[i] + tr.slices.dur[i]);
  p.setPen(QPen(QColor(0, 0, 0), 2));
  p.setBrush(Qt::NoBrush);
  p.drawRect(QRectF(x0 - 1, y0 - 0.5, std::max(x1 - x0, 1.0) + 2, y1 - y0 + 1));
}

// The selected range as a translucent band with edges, and bookmarks as dashed lines.
void TimelinePainter::paint_range_and_bookmarks(QPainter& p, const Viewport& v, const models::TimelineMapping& m,
                                                const TimelineDecorations& deco) const {
  if (deco.has_range) {
    const double x0 = v.data_x0 + m.x_of(std::min(deco.range_start, deco.range_end));
    const double x1 = v.data_x0 + m.x_of(std::max(deco.range_start, deco.range_end));
    p.fillRect(QRectF(x0, v.data_y0, std::max(x1 - x0, 1.0), v.data.height()), QColor(0x2a, 0x6c, 0xd4, 36));
    p.setPen(QPen(QColor(0x2a, 0x6c, 0xd4), 1));
    p.drawLine(QPointF(x0, v.data_y0), QPointF(x0, v.data.bottom()));
    p.drawLine(QPointF(x1, v.data_y0), QPointF(x1, v.data.bottom()));
  }
  for (const Bookmark& b : deco.bookmarks) {
    const double x = v.data_x0 + m.x_of(b.time);
    if (x < v.data_x0 || x > v.data.right()) continue;
    p.setPen(QPen(QColor(0xc0, 0x30, 0x30), 1, Qt::DashLine));
    p.drawLine(QPointF(x, v.data_y0), QPointF(x, v.data.bottom()));
  }
}

// The label column: each visible row's name (tracks with their marks, headers with their
// collapse arrow, SM groups with the heat strip's legend); below the last row, background.
void TimelinePainter::paint_label_column(QPainter& p, const Viewport& v, const std::vector<const models::TimelineRow*>& visible,
                                         const QFontMetrics& fm, const TimelineStyle& style, const TimelineDecorations& deco) const {
  const QRect& area = v.area;
  const double lw = v.label_w, data_y0 = v.data_y0, scroll_y = v.scroll_y;
  const double ascent = fm.ascent(), descent = fm.descent();
  p.fillRect(QRectF(area.left(), data_y0, lw, area.height() - v.ruler_h), QColor(kBackground));
  const double label_bottom = area.bottom() + 1;
  p.setClipRect(QRectF(area.left(), data_y0, lw, area.height() - v.ruler_h));
  QFont bold = style.font;
  bold.setBold(true);
  const QFontMetrics bfm(bold);
  auto elide = [&](const QString& text, int width, bool is_bold) -> const QString& {
    const QString key = QString::number(width) + (is_bold ? QLatin1Char('b') : QLatin1Char('n')) + text;
    auto it = label_text_.find(key);
    if (it != label_text_.end()) return *it;
    if (label_text_.size() > 4096) label_text_.clear();
    return *label_text_.insert(key, (is_bold ? bfm : fm).elidedText(text, Qt::ElideRight, width));
  };
  for (const models::TimelineRow* row : visible) {
    const double top = data_y0 + row->y - scroll_y;
    const double y0 = std::max(top, data_y0);
    const double y1 = std::min(top + row->height, label_bottom);
    if (y1 <= y0) continue;
    const QRectF cell(area.left(), y0, lw, y1 - y0);
    const double tx = area.left() + 4 + row->indent * 12;
    const int tw = static_cast<int>(lw - 8 - row->indent * 12);
    const double line_h = std::min(row->height, 20.0);
    if (row->kind == models::TimelineRow::Kind::kTrack) {
      const auto mark = deco.track_marks.find(row->track);
      p.fillRect(cell, mark == deco.track_marks.end() ? QColor(0xf3, 0xf4, 0xf6) : mark->second.color.lighter(170));
      p.setPen(QColor(0x30, 0x30, 0x30));
      const Track& tr = trace_.tracks[static_cast<size_t>(row->track)];
      int label_w = tw;
      if (mark != deco.track_marks.end() && !mark->second.text.isEmpty()) {
        const int w = fm.horizontalAdvance(mark->second.text);
        label_w = std::max(0, tw - w - 6);
        p.fillRect(QRectF(area.left(), y0, 3, y1 - y0), mark->second.color);
        p.drawText(QPointF(area.left() + lw - 4 - w, top + ascent + 1), mark->second.text);
      }
      p.drawText(QPointF(tx, top + ascent + 1), elide(QString::fromStdString(row->label), label_w, false));
      if (tr.slices.empty() && tr.counter.size() && row->height >= 30) {
        const std::string info = index_.counter_info(static_cast<uint32_t>(row->track));
        p.setPen(QColor(0x70, 0x70, 0x70));
        p.drawText(QPointF(tx, top + 15 + ascent + 1), QString::fromStdString(info));
      }
    } else {
      const QRgb band = row->kind == models::TimelineRow::Kind::kProcess ? kProcessHeader
                        : row->kind == models::TimelineRow::Kind::kDevice ? kDeviceHeader
                                                                  : 0xffeef0f3;
      p.fillRect(cell, QColor(band));
      p.setPen(QColor(0x20, 0x20, 0x20));
      const bool is_bold = row->kind != models::TimelineRow::Kind::kSmGroup;
      p.setFont(is_bold ? bold : style.font);
      const QString text = QString(row->collapsed ? "\u25b8 " : "\u25be ") + QString::fromStdString(row->label);
      p.drawText(QPointF(tx, top + (line_h + ascent - descent) / 2), elide(text, tw, is_bold));
      p.setFont(style.font);
      if (row->kind == models::TimelineRow::Kind::kSmGroup && row->height >= 40) {
        // legend: role colours of the heat strip
        double x = tx;
        const double y = top + 24;
        const std::pair<Category, const char*> roles[] = {{Category::kCompute, "compute"}, {Category::kCommunication, "comm"}, {Category::kSync, "wait"}};
        for (const auto& [c, name] : roles) {
          p.fillRect(QRectF(x, y, 9, 9), category_color(c));
          p.setPen(QColor(0x40, 0x40, 0x40));
          p.drawText(QPointF(x + 12, y + 8), name);
          x += 14 + fm.horizontalAdvance(name) + 8;
        }
      }
    }
  }
  p.setClipping(false);
  p.setPen(QColor(0xc8, 0xc8, 0xc8));
  p.drawLine(QPointF(v.data_x0 - 0.5, area.top()), QPointF(v.data_x0 - 0.5, area.bottom()));
}

// The ruler: ticks with times, the selected range's duration, bookmark flags, the view's span.
void TimelinePainter::paint_ruler(QPainter& p, const Viewport& v, const models::TimelineMapping& m, const QFontMetrics& fm,
                                  const TimelineStyle& style, const TimelineDecorations& deco) const {
  const QRect& area = v.area;
  const double lw = v.label_w, rh = v.ruler_h, data_x0 = v.data_x0;
  const double ascent = fm.ascent(), descent = fm.descent();
  const QRectF ruler(data_x0, area.top(), v.data_w, rh);
  p.fillRect(QRectF(area.left(), area.top(), area.width(), rh), QColor(0xf0, 0xf1, 0xf3));
  const TimeNs step = models::tick_step(m, 90);
  const TimeNs origin = style.relative_time ? index_.start() : 0;
  const TimeNs first = ((m.start() - origin) / step) * step + origin;
  p.setPen(QColor(0x50, 0x50, 0x50));
  for (TimeNs t = first; t <= m.end(); t += step) {
    const double x = data_x0 + m.x_of(t);
    if (x < data_x0) continue;
    p.drawLine(QPointF(x, ruler.bottom() - 6), QPointF(x, ruler.bottom()));
    const std::string text = style.relative_time ? models::tick_label(t, origin, step) : models::tick_label_absolute(t, step);
    p.drawText(QPointF(x + 3, ruler.top() + (rh + ascent - descent) / 2), QString::fromStdString(text));
  }
  if (deco.has_range) {
    const double x0 = data_x0 + m.x_of(std::min(deco.range_start, deco.range_end));
    const double x1 = data_x0 + m.x_of(std::max(deco.range_start, deco.range_end));
    const QString text = QString::fromStdString(format_duration(std::abs(deco.range_end - deco.range_start)));
    const double tw = fm.horizontalAdvance(text) + 8;
    const QRectF box((x0 + x1) / 2 - tw / 2, ruler.top() + 3, tw, rh - 6);
    p.fillRect(box, QColor(0x2a, 0x6c, 0xd4));
    p.setPen(Qt::white);
    p.drawText(box, Qt::AlignCenter, text);
  }
  for (const Bookmark& b : deco.bookmarks) {
    const double x = data_x0 + m.x_of(b.time);
    if (x < data_x0 || x > ruler.right()) continue;
    const QString text = b.label.isEmpty() ? QStringLiteral("\u2691") : "\u2691 " + b.label;
    const QRectF box(x, ruler.top() + 2, fm.horizontalAdvance(text) + 6, 14);
    p.fillRect(box, QColor(0xc0, 0x30, 0x30));
    p.setPen(Qt::white);
    p.drawText(box, Qt::AlignCenter, text);
  }
  p.setPen(QColor(0x30, 0x30, 0x30));
  const QString left = QString::fromStdString("view " + format_duration(m.duration())) +
                       (style.relative_time ? QString() : QStringLiteral("  (absolute)"));
  p.drawText(QRectF(area.left() + 4, area.top(), lw - 8, rh), Qt::AlignVCenter | Qt::AlignLeft, left);
}

PaintStats TimelinePainter::paint(QPainter& p, const QRect& area, const models::TrackLayout& layout, const models::TimelineMapping& m,
                                  double scroll_y, const TimelineStyle& style, const TimelineDecorations& deco) const {
  PaintStats stats;
  p.save();
  p.setFont(style.font);
  Viewport v;
  v.area = area;
  v.label_w = style.label_width;
  v.ruler_h = style.ruler_height;
  v.data_x0 = area.left() + v.label_w;
  v.data_w = area.width() - v.label_w;
  v.data_y0 = area.top() + v.ruler_h;
  v.data = QRectF(v.data_x0, v.data_y0, v.data_w, area.height() - v.ruler_h);
  v.scroll_y = scroll_y;
  Frame f(m, style, deco, stats);
  prepare_layer(f, v);

  const auto& rows = layout.rows();
  const double view_top = scroll_y, view_bottom = scroll_y + v.data.height();
  const auto first_row = std::lower_bound(rows.begin(), rows.end(), view_top,
                                          [](const models::TimelineRow& r, double y) { return r.y + r.height <= y; });
  std::vector<const models::TimelineRow*> visible;
  for (auto it = first_row; it != rows.end() && it->y < view_bottom; ++it) visible.push_back(&*it);
  QElapsedTimer clock;
  clock.start();
  paint_rows(f, visible, clock);
  stats.layer_ms = static_cast<double>(clock.nsecsElapsed()) / 1e6;
  p.drawImage(QPointF(v.data_x0, v.data_y0), layer_);
  stats.blit_ms = static_cast<double>(clock.nsecsElapsed()) / 1e6 - stats.layer_ms;

  // on top of the layer: slice names, selection, flows, range, bookmarks
  p.setClipRect(v.data);
  const QFontMetrics fm(style.font);
  const qint64 labels_t0 = clock.nsecsElapsed();
  paint_slice_labels(p, v, fm, style, stats);
  stats.labels_ms = static_cast<double>(clock.nsecsElapsed() - labels_t0) / 1e6;
  paint_selection(p, v, layout, m, deco);
  const qint64 flows_t0 = clock.nsecsElapsed();
  paint_flows(p, layout, m, v.data_x0, v.data_y0, scroll_y, style, deco, stats);
  stats.flows_ms = static_cast<double>(clock.nsecsElapsed() - flows_t0) / 1e6;
  paint_range_and_bookmarks(p, v, m, deco);
  p.setClipping(false);

  paint_label_column(p, v, visible, fm, style, deco);
  paint_ruler(p, v, m, fm, style, deco);
  p.restore();
  stats.overlay_ms = static_cast<double>(clock.nsecsElapsed()) / 1e6 - stats.layer_ms - stats.blit_ms;
  return stats;
}

int32_t TimelinePainter::sm_lane_at(const models::TimelineRow& row, double layout_y) const {
  if (row.kind != models::TimelineRow::Kind::kSmGroup) return -1;
  const auto& lanes = index_.sm_lanes(row.device);
  if (lanes.empty()) return -1;
  const double h = std::max(1.0, row.height - 1);
  const auto si = static_cast<size_t>(std::clamp((layout_y - row.y) / h * static_cast<double>(lanes.size()), 0.0,
                                                 static_cast<double>(lanes.size() - 1)));
  return static_cast<int32_t>(lanes[si]);
}

EventRef TimelinePainter::slice_at(const models::TrackLayout& layout, const models::TimelineMapping& m, double x, double layout_y) const {
  const int ri = layout.row_at(layout_y);
  if (ri < 0) return {};
  const models::TimelineRow& row = layout.rows()[static_cast<size_t>(ri)];
  int32_t track = row.track;
  int sub = -1;  // -1: any sub-row (heat strip)
  if (row.kind == models::TimelineRow::Kind::kSmGroup) track = sm_lane_at(row, layout_y);
  else if (row.kind != models::TimelineRow::Kind::kTrack) return {};
  else sub = static_cast<int>((layout_y - row.y) / (row.height / row.sub_rows));
  if (track < 0) return {};
  const auto t = static_cast<uint32_t>(track);
  const Track& tr = trace_.tracks[t];
  const auto& s = tr.slices;
  if (s.empty()) return {};
  const models::TrackLod& lod = index_.lod(t);
  const TimeNs at = m.time_at(x);
  const TimeNs slop = static_cast<TimeNs>(m.ns_per_px() * 2);  // 2 px of grace for thin slices
  EventRef best;
  TimeNs best_dist = slop + 1;
  TimeNs best_dur = 0;
  size_t budget = 100'000;  // a click at a very coarse zoom looks at this many slices at most
  auto consider = [&](size_t i) {
    const TimeNs end = s.start[i] + s.dur[i];
    const TimeNs d = at < s.start[i] ? s.start[i] - at : (at > end ? at - end : 0);
    if (d < best_dist || (d == best_dist && d == 0 && s.dur[i] < best_dur)) {
      best = EventRef{t, static_cast<uint32_t>(i)};
      best_dist = d;
      best_dur = s.dur[i];
    }
  };
  const unsigned mask = sub < 0 ? ~0u : (sub == row.sub_rows - 1 ? ~0u << sub : 1u << sub);
  lod.visit(trace_, t, at - slop, at + slop, mask, [&](uint32_t i, int) {
    consider(i);
    return --budget > 0;
  });
  return best;
}

QImage render_timeline_image(const Trace& trace, QSize size, const TimelineStyle& style, TimeNs start, TimeNs end) {
  QImage img(size, QImage::Format_ARGB32_Premultiplied);
  img.fill(Qt::white);
  QPainter p(&img);
  p.setRenderHint(QPainter::Antialiasing, false);
  const models::TimelineIndex index(trace);
  const models::TrackLayout layout(trace, models::LayoutOptions{});
  if (end <= start) {
    start = index.start();
    end = index.end();
  }
  const models::TimelineMapping m(start, end, size.width() - style.label_width);
  TimelinePainter(index).paint(p, QRect(QPoint(0, 0), size), layout, m, 0, style);
  return img;
}

}  // namespace parascope::render
