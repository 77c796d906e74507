#include "gui/timeline_view.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QWheelEvent>

namespace parascope::gui {

TimelineView::TimelineView(QWidget* parent) : QAbstractScrollArea(parent) {
  setFocusPolicy(Qt::StrongFocus);
  viewport()->setMouseTracking(true);
  setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setMinimumSize(400, 200);
}

void TimelineView::set_trace(std::shared_ptr<const Trace> trace) {
  trace_ = std::move(trace);
  selected_ = {};
  painter_ = trace_ ? std::make_unique<render::TimelinePainter>(*trace_) : nullptr;
  relayout();
  fit_all();
}

double TimelineView::data_width() const { return std::max(1.0, viewport()->width() - style_.label_width); }

bool TimelineView::in_data(const QPoint& p) const { return p.x() >= style_.label_width && p.y() >= style_.ruler_height; }

void TimelineView::relayout() {
  layout_ = trace_ ? render::TrackLayout(*trace_, layout_options_) : render::TrackLayout();
  update_scrollbars();
  viewport()->update();
}

void TimelineView::update_scrollbars() {
  const int visible = std::max(0, viewport()->height() - static_cast<int>(style_.ruler_height));
  verticalScrollBar()->setRange(0, std::max(0, static_cast<int>(layout_.total_height()) - visible));
  verticalScrollBar()->setPageStep(visible);
  verticalScrollBar()->setSingleStep(18);
}

void TimelineView::fit_all() {
  if (!trace_) return;
  auto [s, e] = trace_->time_span();
  const TimeNs pad = std::max<TimeNs>((e - s) / 100, 1);
  mapping_.set(s - pad, e + pad, data_width());
  viewport()->update();
  emit view_changed();
}

void TimelineView::set_view(TimeNs start, TimeNs end) {
  mapping_.set(start, end, data_width());
  viewport()->update();
  emit view_changed();
}

void TimelineView::set_color_mode(render::ColorMode mode) {
  style_.color_mode = mode;
  viewport()->update();
}

void TimelineView::select(EventRef ref) {
  selected_ = ref;
  viewport()->update();
  emit selection_changed(ref);
}

size_t TimelineView::kernel_count() const {
  if (!trace_) return 0;
  size_t n = 0;
  for (const auto& row : layout_.rows()) {
    if (row.kind != render::TimelineRow::Kind::kTrack) continue;
    for (SliceRef r : trace_->tracks[static_cast<size_t>(row.track)].slices.ref) n += r.kind() == SliceKind::kKernel;
  }
  return n;
}

QImage TimelineView::render_image(QSize size) const {
  QImage img(size, QImage::Format_ARGB32_Premultiplied);
  img.fill(Qt::white);
  if (!painter_) return img;
  QPainter p(&img);
  render::TimelineMapping m(mapping_.start(), mapping_.end(), size.width() - style_.label_width);
  painter_->paint(p, QRect(QPoint(0, 0), size), layout_, m, verticalScrollBar()->value(), style_, selected_);
  return img;
}

void TimelineView::paintEvent(QPaintEvent*) {
  QPainter p(viewport());
  if (!painter_) {
    p.fillRect(viewport()->rect(), QColor(0xfb, 0xfb, 0xf9));
    p.setPen(QColor(0x60, 0x60, 0x60));
    p.drawText(viewport()->rect(), Qt::AlignCenter, tr("Open a trace: File → Open, drag and drop, or `parascope FILE...`"));
    return;
  }
  mapping_.set(mapping_.start(), mapping_.end(), data_width());
  painter_->paint(p, viewport()->rect(), layout_, mapping_, verticalScrollBar()->value(), style_, selected_);
}

void TimelineView::resizeEvent(QResizeEvent* e) {
  QAbstractScrollArea::resizeEvent(e);
  mapping_.set(mapping_.start(), mapping_.end(), data_width());
  update_scrollbars();
}

void TimelineView::scrollContentsBy(int, int) { viewport()->update(); }

void TimelineView::wheelEvent(QWheelEvent* e) {
  if (!trace_) return;
  if (e->modifiers() & Qt::ShiftModifier) {
    verticalScrollBar()->setValue(verticalScrollBar()->value() - e->angleDelta().y() / 2);
    return;
  }
  const double steps = e->angleDelta().y() / 120.0;
  if (steps == 0) return;
  const double x = e->position().x() - style_.label_width;
  mapping_.zoom(std::pow(1.25, steps), std::clamp(x, 0.0, data_width()));
  viewport()->update();
  emit view_changed();
}

void TimelineView::mousePressEvent(QMouseEvent* e) {
  if (e->button() != Qt::LeftButton) return;
  drag_from_ = e->pos();
  dragging_ = true;
  moved_ = false;
}

void TimelineView::mouseMoveEvent(QMouseEvent* e) {
  if (!dragging_) return;
  const QPoint d = e->pos() - drag_from_;
  if (!moved_ && d.manhattanLength() < 3) return;
  moved_ = true;
  mapping_.pan_px(d.x());
  verticalScrollBar()->setValue(verticalScrollBar()->value() - d.y());
  drag_from_ = e->pos();
  viewport()->update();
  emit view_changed();
}

void TimelineView::mouseReleaseEvent(QMouseEvent* e) {
  if (e->button() != Qt::LeftButton || !dragging_) return;
  dragging_ = false;
  if (moved_ || !trace_) return;
  const double layout_y = e->pos().y() - style_.ruler_height + verticalScrollBar()->value();
  const int ri = layout_.row_at(layout_y);
  if (ri >= 0 && layout_.rows()[static_cast<size_t>(ri)].kind != render::TimelineRow::Kind::kTrack) {
    const auto& row = layout_.rows()[static_cast<size_t>(ri)];
    const uint64_t key = row.kind == render::TimelineRow::Kind::kProcess ? render::process_key(row.process)
                                                                         : render::device_key(row.device);
    if (!layout_options_.collapsed.erase(key)) layout_options_.collapsed.insert(key);
    relayout();
    return;
  }
  if (!in_data(e->pos())) return;
  select(painter_->slice_at(layout_, mapping_, e->pos().x() - style_.label_width, layout_y));
}

void TimelineView::keyPressEvent(QKeyEvent* e) {
  const double w = data_width();
  switch (e->key()) {
    case Qt::Key_W: mapping_.zoom(1.5, w / 2); break;
    case Qt::Key_S: mapping_.zoom(1 / 1.5, w / 2); break;
    case Qt::Key_A: mapping_.pan_px(w / 8); break;
    case Qt::Key_D: mapping_.pan_px(-w / 8); break;
    case Qt::Key_0: fit_all(); return;
    default: QAbstractScrollArea::keyPressEvent(e); return;
  }
  viewport()->update();
  emit view_changed();
}

}  // namespace parascope::gui
