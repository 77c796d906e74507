// ChartSpec: what a chart shows — axes and series of points with a kind (line, band, scatter) and a
// style (solid, dashed, hatched) — as plain data, built from analysis results on worker threads.
// Views and images are drawn from it by one backend (chart_view.h), so the charting library can be
// replaced without touching what the charts say: today Qt Charts, deprecated upstream from Qt 6.10.
#pragma once

#include <QColor>
#include <QPointF>
#include <QString>
#include <QStringList>
#include <cmath>
#include <vector>

namespace parascope::render {

enum class SeriesKind : uint8_t {
  kLine,     // points joined in order
  kBand,     // filled between `lower` and `points` (lower empty: down to 0): a min/max envelope
  kScatter,  // markers only; `labels` are their tooltips
};

// How a series says where its numbers come from: measured solid, estimated dashed, simulated hatched.
enum class SeriesStyle : uint8_t { kSolid, kDashed, kHatched, kHollow };

struct ChartSeries {
  QString name;
  SeriesKind kind = SeriesKind::kLine;
  SeriesStyle style = SeriesStyle::kSolid;
  QColor color = QColor(0x33, 0x66, 0xcc);
  std::vector<QPointF> points;
  std::vector<QPointF> lower;   // kBand: same x as points
  QStringList labels;           // kScatter: one per point (tooltips, hit results)
  double marker_size = 8;
  bool in_legend = true;
};

struct ChartAxis {
  QString title;
  bool log = false;
  double min = NAN, max = NAN;  // NaN: from the data
  QStringList categories;       // non-empty: a category axis, category i at value i
};

struct ChartSpec {
  QString title;
  ChartAxis x, y;
  std::vector<ChartSeries> series;
  bool legend = true;
  QString empty_text;  // shown when there are no series
};

}  // namespace parascope::render
