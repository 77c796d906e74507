// TimelineView: the central timeline widget. It owns the view state (visible time range, vertical
// scroll, the track tree's collapse/hide/order choices, selection, box-selected range, bookmarks)
// and delegates drawing and hit-testing to the render library's TimelinePainter, so what the GUI
// shows is what exports and reports show. Navigation as in Tracy/Perfetto: wheel or pinch zooms at
// the cursor, Shift+wheel scrolls, drag pans, W/S zoom, A/D pan, 0 fits the trace, F fits the
// selection, M bookmarks; Shift+drag (or a drag on the ruler) selects a range; click selects;
// clicking a header collapses it; a right click on a label hides or moves its track.
#pragma once

#include <QAbstractScrollArea>
#include <memory>

#include "render/timeline_painter.h"
#include "models/track_layout.h"
#include "trace/core/analysis/collective_peers.h"

class QMenu;

namespace parascope::gui {

class TimelineView : public QAbstractScrollArea {
  Q_OBJECT
 public:
  explicit TimelineView(QWidget* parent = nullptr);
  ~TimelineView() override;
  // `index` may be null: it is then built here (tests, small traces); the loader builds it on its thread.
  void set_trace(std::shared_ptr<const Trace> trace, std::shared_ptr<const models::TimelineIndex> index = nullptr);
  const Trace* trace() const { return trace_.get(); }
  // What the empty view says (the main window's: how to open a trace; the diff dock's B and the
  // what-if prediction say what fills them, since a trace is open there).
  void set_empty_text(const QString& text);
  QString empty_text() const { return empty_text_; }
  const models::TimelineIndex* index() const { return index_.get(); }
  const render::TimelinePainter* painter() const { return painter_.get(); }

  void fit_all();
  void set_view(TimeNs start, TimeNs end);
  void zoom_to(EventRef ref);  // shows the slice with a margin and scrolls its row into view
  void zoom_by(double factor, double x);  // > 1 zooms in, anchored at data x
  void set_color_mode(render::ColorMode mode);
  render::ColorMode color_mode() const { return style_.color_mode; }
  void set_relative_time(bool on);
  bool relative_time() const { return style_.relative_time; }
  void set_show_flows(bool on);
  bool show_flows() const { return style_.show_flows; }
  void set_use_lod(bool on);

  const models::TimelineMapping& mapping() const { return mapping_; }
  const models::TrackLayout& layout() const { return layout_; }
  const render::TimelineStyle& style() const { return style_; }
  models::LayoutOptions& layout_options() { return layout_options_; }
  void apply_layout_options(const models::LayoutOptions& o);  // e.g. restored from the settings
  void set_sm_expanded(int32_t device, bool expanded);
  void hide_track(int32_t track);
  void show_all_tracks();
  bool move_track(int32_t track, int delta);

  EventRef selected() const { return deco_.selected; }
  void select(EventRef ref);
  // The trace's matched collectives (the loader's, collective_peers.h): selecting a collective's
  // kernel or CPU op then draws arrows to its matched instances on the other ranks. Cleared by set_trace.
  void set_collective_peers(std::shared_ptr<const CollectivePeerIndex> peers);
  const CollectivePeerIndex* collective_peer_index() const { return peers_.get(); }
  // The selection's matched instance (not found when the selection is no matched collective).
  const CollectivePeers& selected_peers() const { return selected_peers_; }
  bool has_range() const { return deco_.has_range; }
  std::pair<TimeNs, TimeNs> range() const { return {deco_.range_start, deco_.range_end}; }
  void set_range(TimeNs start, TimeNs end);
  void clear_range();
  const std::vector<render::Bookmark>& bookmarks() const { return deco_.bookmarks; }
  void set_bookmarks(std::vector<render::Bookmark> b);
  void add_bookmark(TimeNs t, const QString& label);
  // Tracks a comparison singled out (trace diff, what-if): tinted labels with a short text.
  void set_track_marks(std::map<int32_t, render::TrackMark> marks);
  const std::map<int32_t, render::TrackMark>& track_marks() const { return deco_.track_marks; }

  // Kernels on the tracks the layout shows (all tracks unless hidden/collapsed).
  size_t kernel_count() const;
  // Text of the tooltip at a viewport point (empty when nothing is there).
  QString tooltip_at(const QPoint& pos) const;
  // Layout y of a viewport point.
  double layout_y(const QPoint& pos) const;
  QImage render_image(QSize size) const;
  render::PaintStats last_paint_stats() const { return last_stats_; }

 signals:
  void selection_changed(parascope::EventRef ref);
  void range_changed(bool has_range, qint64 start, qint64 end);
  void view_changed();
  void bookmarks_changed();
  void layout_changed();

 protected:
  void paintEvent(QPaintEvent* e) override;
  void resizeEvent(QResizeEvent* e) override;
  void wheelEvent(QWheelEvent* e) override;
  void mousePressEvent(QMouseEvent* e) override;
  void mouseMoveEvent(QMouseEvent* e) override;
  void mouseReleaseEvent(QMouseEvent* e) override;
  void mouseDoubleClickEvent(QMouseEvent* e) override;
  void keyPressEvent(QKeyEvent* e) override;
  double key_anchor() const;  // where W/S zoom: the cursor's x in the data area, else its middle
  void contextMenuEvent(QContextMenuEvent* e) override;
  void scrollContentsBy(int dx, int dy) override;
  bool viewportEvent(QEvent* e) override;
  bool event(QEvent* e) override;

 private:
  void relayout();
  void update_scrollbars();
  void changed_view();
  double data_width() const;
  bool in_data(const QPoint& p) const;
  bool in_ruler(const QPoint& p) const;
  void click_header(const models::TimelineRow& row);
  void update_selected_flows();

  std::shared_ptr<const Trace> trace_;
  std::shared_ptr<const models::TimelineIndex> index_;
  std::unique_ptr<render::TimelinePainter> painter_;
  std::shared_ptr<const CollectivePeerIndex> peers_;
  CollectivePeers selected_peers_;
  models::TrackLayout layout_;
  models::LayoutOptions layout_options_;
  models::TimelineMapping mapping_;
  render::TimelineStyle style_;
  render::TimelineDecorations deco_;
  render::PaintStats last_stats_;
  QString empty_text_;
  enum class Drag { kNone, kPan, kRange } drag_ = Drag::kNone;
  QPoint drag_from_;
  QPoint press_pos_;
  TimeNs range_anchor_ = 0;
  bool moved_ = false;
};

}  // namespace parascope::gui
