// TimelinePainter: draws a trace's timeline (ruler, track labels, slices, counters) with QPainter
// for the GUI, the offscreen PNG fallback and reports — the same pixels everywhere. Preprocessing
// happens once per trace (classification, per-track longest slice for the visible-range search);
// each paint walks only the visible slices and folds runs narrower than a pixel into one bar
// coloured by the category that covers most of it.
#pragma once

#include <QColor>
#include <QFont>
#include <QImage>
#include <QPainter>
#include <QRect>
#include <vector>

#include "render/timeline_mapping.h"
#include "render/track_layout.h"
#include "trace/core/classify.h"
#include "trace/core/trace.h"

namespace parascope::render {

enum class ColorMode : uint8_t { kCategory, kName, kRank };

struct TimelineStyle {
  double label_width = 260;
  double ruler_height = 26;
  ColorMode color_mode = ColorMode::kCategory;
  bool relative_time = true;   // ruler labels relative to the trace start
  QFont font = QFont("DejaVu Sans", 8);
};

QColor category_color(Category c);
QColor name_color(std::string_view name);

struct PaintStats {
  size_t slices_visited = 0;
  size_t bars_drawn = 0;
};

class TimelinePainter {
 public:
  explicit TimelinePainter(const Trace& trace);
  const Trace& trace() const { return trace_; }
  const SliceClassifier& classifier() const { return classify_; }

  // Paints into `area`; the data region is area minus the label column and the ruler.
  // `mapping` must have width = area.width() - label_width. `scroll_y` is the layout y at the top
  // of the data region.
  PaintStats paint(QPainter& p, const QRect& area, const TrackLayout& layout, const TimelineMapping& mapping,
                   double scroll_y, const TimelineStyle& style, EventRef selected = {}) const;

  // The slice under a point of the data region (x in data pixels, y in layout coordinates).
  EventRef slice_at(const TrackLayout& layout, const TimelineMapping& mapping, double x, double layout_y) const;
  // First visible slice index of a track for time t (binary search using the longest slice).
  size_t first_visible(uint32_t track, TimeNs t) const;
  QColor slice_color(uint32_t track, uint32_t index, ColorMode mode) const;

 private:
  void paint_slices(QPainter& p, const TimelineRow& row, double top, double data_x0, double data_w,
                    const TimelineMapping& m, const TimelineStyle& style, EventRef selected, PaintStats& stats) const;
  void paint_counter(QPainter& p, const TimelineRow& row, double top, double data_x0, double data_w,
                     const TimelineMapping& m) const;

  const Trace& trace_;
  SliceClassifier classify_;
  std::vector<TimeNs> max_dur_;   // per track
  std::vector<double> counter_max_;
};

// The whole trace, or [start, end), rendered to an image of `size` (offscreen fallback, reports).
QImage render_timeline_image(const Trace& trace, QSize size, const TimelineStyle& style = {}, TimeNs start = 0,
                             TimeNs end = 0);

}  // namespace parascope::render
