// ChartSpec: what a chart shows — axes and series of points with a kind (line, band, scatter) and a
// style (solid, dashed, hatched) — as plain data without Qt, built from analysis results on worker
// threads and tested without a window. Views and images are drawn from it by one backend
// (render/chart_view.h), so the charting library can be replaced without touching what the charts
// say: today Qt Charts, deprecated upstream from Qt 6.10. Text is UTF-8; tooltips may hold HTML.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace parascope::models {

enum class SeriesKind : uint8_t {
  kLine,     // points joined in order
  kBand,     // filled between `lower` and `points` (lower empty: down to 0): a min/max envelope
  kScatter,  // markers only; `labels` are their tooltips
};

// How a series says where its numbers come from: measured solid, estimated dashed, simulated hatched.
enum class SeriesStyle : uint8_t { kSolid, kDashed, kHatched, kHollow };

struct ChartPoint {
  double x = 0, y = 0;
  friend bool operator==(const ChartPoint&, const ChartPoint&) = default;
};

struct ChartColor {
  uint8_t r = 0, g = 0, b = 0;
  static constexpr ChartColor rgb(uint32_t v) {
    return {static_cast<uint8_t>(v >> 16), static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v)};
  }
  friend bool operator==(const ChartColor&, const ChartColor&) = default;
};

struct ChartSeries {
  std::string name;
  SeriesKind kind = SeriesKind::kLine;
  SeriesStyle style = SeriesStyle::kSolid;
  ChartColor color = ChartColor{0x33, 0x66, 0xcc};
  std::vector<ChartPoint> points;
  std::vector<ChartPoint> lower;    // kBand: same x as points
  std::vector<std::string> labels;  // kScatter: one per point (tooltips, hit results)
  double marker_size = 8;
  bool in_legend = true;
};

struct ChartAxis {
  std::string title;
  bool log = false;
  double min = NAN, max = NAN;          // NaN: from the data
  std::vector<std::string> categories;  // non-empty: a category axis, category i at value i
};

struct ChartSpec {
  std::string title;
  ChartAxis x, y;
  std::vector<ChartSeries> series;
  bool legend = true;
  std::string empty_text;  // shown when there are no series
};

}  // namespace parascope::models
