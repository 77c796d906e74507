// TimelinePainter: draws a trace's timeline (ruler, track tree labels, slices, SM heat strips,
// counters, folded rows' activity, flows, bookmarks, selection) with QPainter for the GUI, `--render-png` and reports —
// the same pixels everywhere. Two steps, as in Tracy: a preprocess that reads the TimelineIndex
// (coverage pyramids when a pixel holds more than a bucket of slices; otherwise a walk from the
// first visible slice that folds runs narrower than a pixel into one bar coloured by the category
// covering most of it) and fills bars straight into an RGB32 layer; then one blit and the text,
// lines and arrows on top. Work per paint is bounded by pixels, not by events.
#pragma once

#include <QColor>
#include <QElapsedTimer>
#include <QFont>
#include <QHash>
#include <QImage>
#include <QPainter>
#include <QRect>
#include <QString>
#include <map>
#include <vector>

#include "models/timeline_index.h"
#include "models/timeline_mapping.h"
#include "models/track_layout.h"

namespace parascope::render {

enum class ColorMode : uint8_t { kCategory, kName, kRank };

struct TimelineStyle {
  double label_width = 260;
  double ruler_height = 26;
  ColorMode color_mode = ColorMode::kCategory;
  bool relative_time = true;   // ruler labels relative to the trace start, else absolute
  bool use_lod = true;         // false: walk every visible slice (the first version; the benchmark's baseline)
  // Flows, as in Perfetto: only the selection's (TimelineDecorations::selected_flows) unless this
  // asks for all flows in view too (when few enough; the GUI's View → Show All Flows).
  bool show_flows = false;
  QFont font = QFont("DejaVu Sans", 8);
};

struct Bookmark {
  TimeNs time = 0;
  QString label;
};

// What the view adds on top of the trace.
// A track singled out by a comparison (trace diff, what-if): its label cell is tinted and shows
// `text` (e.g. "+46.5 %") at the right.
struct TrackMark {
  QColor color;
  QString text;
};

struct TimelineDecorations {
  std::map<int32_t, TrackMark> track_marks;  // by Trace::tracks index
  EventRef selected;
  std::vector<uint32_t> selected_flows;   // indices into Trace::flows touching the selection (flows_of)
  // The selected collective's matched instances on the other ranks (collective_peers.h): arrows from
  // the selected slice's start to each peer slice's start, so their distance is the arrival skew.
  std::vector<EventRef> collective_peers;
  bool has_range = false;
  TimeNs range_start = 0, range_end = 0;  // box selection
  std::vector<Bookmark> bookmarks;
};

QColor category_color(Category c);
QColor name_color(std::string_view name);
QColor rank_color(int32_t rank);
QColor flow_color(FlowKind k);
// The flows into and out of one slice (its launch, the kernel it launched, send/recv and the
// cross-rank collective pairings): the ones the timeline draws for a selection. Indices into Trace::flows.
std::vector<uint32_t> flows_of(const Trace& trace, EventRef slice);

struct PaintStats {
  size_t slices_visited = 0;   // slices the fine-detail walks looked at
  size_t cells_sampled = 0;    // pixels read from coverage pyramids
  size_t bars_drawn = 0;
  size_t labels_drawn = 0;
  size_t flows_drawn = 0;
  size_t rows_painted = 0;
  double layer_ms = 0, heat_ms = 0, blit_ms = 0, overlay_ms = 0, labels_ms = 0, flows_ms = 0;  // where the time went
  double activity_ms = 0;      // of layer_ms: the folded rows' activity strips
};

class TimelinePainter {
 public:
  explicit TimelinePainter(const models::TimelineIndex& index);
  const Trace& trace() const { return trace_; }
  const models::TimelineIndex& index() const { return index_; }
  const SliceClassifier& classifier() const { return index_.classifier(); }

  // Paints into `area`; the data region is area minus the label column and the ruler.
  // `mapping` must have width = area.width() - label_width. `scroll_y` is the layout y at the top
  // of the data region.
  PaintStats paint(QPainter& p, const QRect& area, const models::TrackLayout& layout, const models::TimelineMapping& mapping,
                   double scroll_y, const TimelineStyle& style, const TimelineDecorations& deco = {}) const;

  // The slice under a point of the data region (x in data pixels, y in layout coordinates); on a
  // heat strip, the SM span under it.
  EventRef slice_at(const models::TrackLayout& layout, const models::TimelineMapping& mapping, double x, double layout_y) const;
  // The SM lane track under a heat-strip point, or -1.
  int32_t sm_lane_at(const models::TimelineRow& row, double layout_y) const;
  QColor slice_color(uint32_t track, uint32_t index, ColorMode mode) const;

 private:
  struct Frame;
  struct Viewport;
  struct Label {
    QRectF rect;
    StringId name;
    QRgb color;
  };
  // paint()'s steps, in order
  void prepare_layer(Frame& f, const Viewport& v) const;
  void paint_rows(Frame& f, const std::vector<const models::TimelineRow*>& visible, const QElapsedTimer& clock) const;
  void paint_slice_labels(QPainter& p, const Viewport& v, const QFontMetrics& fm, const TimelineStyle& style, PaintStats& stats) const;
  void paint_selection(QPainter& p, const Viewport& v, const models::TrackLayout& layout, const models::TimelineMapping& m,
                       const TimelineDecorations& deco) const;
  void paint_range_and_bookmarks(QPainter& p, const Viewport& v, const models::TimelineMapping& m, const TimelineDecorations& deco) const;
  void paint_label_column(QPainter& p, const Viewport& v, const std::vector<const models::TimelineRow*>& visible, const QFontMetrics& fm,
                          const TimelineStyle& style, const TimelineDecorations& deco) const;
  void paint_ruler(QPainter& p, const Viewport& v, const models::TimelineMapping& m, const QFontMetrics& fm, const TimelineStyle& style,
                   const TimelineDecorations& deco) const;
  // a track row's bars
  void paint_track(Frame& f, const models::TimelineRow& row, double top) const;
  void walk_fine(Frame& f, const models::TimelineRow& row, double top, unsigned lane_mask) const;
  void paint_coverage(Frame& f, const models::TimelineRow& row, double top, int sub, int level) const;
  void paint_wide(Frame& f, const models::TimelineRow& row, double top, int sub, int level) const;
  void paint_heat_strip(Frame& f, const models::TimelineRow& row, double top) const;
  void paint_activity(Frame& f, const models::TimelineRow& row, double top) const;
  void paint_counter(Frame& f, const models::TimelineRow& row, double top) const;
  void paint_flows(QPainter& p, const models::TrackLayout& layout, const models::TimelineMapping& m, double data_x0, double data_y0,
                   double scroll_y, const TimelineStyle& style, const TimelineDecorations& deco, PaintStats& stats) const;
  QPointF anchor(const models::TrackLayout& layout, const models::TimelineMapping& m, EventRef r, bool at_end, double data_x0,
                 double data_y0, double scroll_y, bool* ok) const;
  const QString& elided(StringId name, int width, const QFontMetrics& fm) const;

  const models::TimelineIndex& index_;
  const Trace& trace_;
  mutable QImage layer_;
  mutable std::vector<Label> labels_;
  mutable QHash<quint64, QString> elided_;
  mutable QFont elided_font_;
  mutable QHash<QString, QString> label_text_;  // elided track labels, by width and text
  mutable std::vector<TimeNs> max_dur_;  // per track, for the use_lod = false baseline
};

// The whole trace, or [start, end), rendered to an image of `size` (offscreen, reports).
QImage render_timeline_image(const Trace& trace, QSize size, const TimelineStyle& style = {}, TimeNs start = 0,
                             TimeNs end = 0);

}  // namespace parascope::render
