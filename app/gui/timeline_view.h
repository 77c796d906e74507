// TimelineView: the central timeline widget. It owns the view state (visible time range, vertical
// scroll, collapsed rows, selection) and delegates drawing and hit-testing to the render library's
// TimelinePainter, so what the GUI shows is what exports and reports show.
// Navigation as in Tracy/Perfetto: wheel zooms at the cursor, Shift+wheel scrolls, drag pans,
// W/S zoom, A/D pan, 0 fits the whole trace; click selects, clicking a header collapses it.
#pragma once

#include <QAbstractScrollArea>
#include <memory>

#include "render/timeline_painter.h"
#include "render/track_layout.h"

namespace parascope::gui {

class TimelineView : public QAbstractScrollArea {
  Q_OBJECT
 public:
  explicit TimelineView(QWidget* parent = nullptr);
  void set_trace(std::shared_ptr<const Trace> trace);
  const Trace* trace() const { return trace_.get(); }
  void fit_all();
  void set_color_mode(render::ColorMode mode);
  void set_view(TimeNs start, TimeNs end);
  const render::TimelineMapping& mapping() const { return mapping_; }
  const render::TrackLayout& layout() const { return layout_; }
  EventRef selected() const { return selected_; }
  void select(EventRef ref);
  // Kernels on the tracks the layout shows (all tracks unless hidden/collapsed).
  size_t kernel_count() const;
  QImage render_image(QSize size) const;

 signals:
  void selection_changed(parascope::EventRef ref);
  void view_changed();

 protected:
  void paintEvent(QPaintEvent* e) override;
  void resizeEvent(QResizeEvent* e) override;
  void wheelEvent(QWheelEvent* e) override;
  void mousePressEvent(QMouseEvent* e) override;
  void mouseMoveEvent(QMouseEvent* e) override;
  void mouseReleaseEvent(QMouseEvent* e) override;
  void keyPressEvent(QKeyEvent* e) override;
  void scrollContentsBy(int dx, int dy) override;

 private:
  void relayout();
  void update_scrollbars();
  double data_width() const;
  bool in_data(const QPoint& p) const;

  std::shared_ptr<const Trace> trace_;
  std::unique_ptr<render::TimelinePainter> painter_;
  render::TrackLayout layout_;
  render::LayoutOptions layout_options_;
  render::TimelineMapping mapping_;
  render::TimelineStyle style_;
  EventRef selected_;
  QPoint drag_from_;
  bool dragging_ = false;
  bool moved_ = false;
};

}  // namespace parascope::gui
