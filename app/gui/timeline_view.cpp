#include "gui/timeline_view.h"

#include "render/qstr.h"

#include <QAction>
#include <QContextMenuEvent>
#include <QGestureEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QNativeGestureEvent>
#include <QPainter>
#include <QPinchGesture>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "trace/core/counter_unit.h"

namespace parascope::gui {

namespace {
constexpr TimeNs kMinVisibleNs = 100;
}  // namespace

TimelineView::TimelineView(QWidget* parent) : QAbstractScrollArea(parent) {
  setFocusPolicy(Qt::StrongFocus);
  viewport()->setMouseTracking(true);
  viewport()->setAttribute(Qt::WA_OpaquePaintEvent);
  viewport()->setAttribute(Qt::WA_AcceptTouchEvents);
  grabGesture(Qt::PinchGesture);
  setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setMinimumSize(400, 200);
  empty_text_ = tr("Open a trace: File → Open, drag and drop, or `parascope FILE...`");
  // the keys are actions, so Help → Keyboard Shortcuts lists them; they act while the timeline has focus
  auto key = [this](const QString& text, QKeySequence keys, auto&& f) {
    auto* a = new QAction(text, this);
    a->setShortcut(keys);
    a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(a, &QAction::triggered, this, f);
    addAction(a);
  };
  key(tr("Zoom In at the Cursor"), Qt::Key_W, [this] { zoom_by(1.5, key_anchor()); });
  key(tr("Zoom Out at the Cursor"), Qt::Key_S, [this] { zoom_by(1 / 1.5, key_anchor()); });
  key(tr("Pan Left"), Qt::Key_A, [this] {
    mapping_.pan_px(data_width() / 8);
    changed_view();
  });
  key(tr("Pan Right"), Qt::Key_D, [this] {
    mapping_.pan_px(-data_width() / 8);
    changed_view();
  });
  key(tr("Add a Bookmark at the Selection or Cursor"), Qt::Key_M, [this] {
    add_bookmark(deco_.selected.valid() && trace_ ? trace_->tracks[deco_.selected.track].slices.start[deco_.selected.index]
                                                  : mapping_.time_at(key_anchor()),
                 QString());
  });
  key(tr("Clear the Selection and the Range"), Qt::Key_Escape, [this] {
    clear_range();
    select({});
  });
}

double TimelineView::key_anchor() const {
  const QPoint cursor = viewport()->mapFromGlobal(QCursor::pos());
  return viewport()->rect().contains(cursor) && cursor.x() > style_.label_width ? cursor.x() - style_.label_width : data_width() / 2;
}

TimelineView::~TimelineView() = default;

void TimelineView::set_empty_text(const QString& text) {
  empty_text_ = text;
  viewport()->update();
}

void TimelineView::set_trace(std::shared_ptr<const Trace> trace, std::shared_ptr<const models::TimelineIndex> index) {
  painter_.reset();
  trace_ = std::move(trace);
  index_ = trace_ ? (index ? std::move(index) : std::make_shared<const models::TimelineIndex>(*trace_)) : nullptr;
  deco_ = {};
  peers_.reset();
  selected_peers_ = {};
  layout_options_ = {};
  painter_ = index_ ? std::make_unique<render::TimelinePainter>(*index_) : nullptr;
  relayout();
  fit_all();
}

double TimelineView::data_width() const { return std::max(1.0, viewport()->width() - style_.label_width); }

bool TimelineView::in_data(const QPoint& p) const { return p.x() >= style_.label_width && p.y() >= style_.ruler_height; }
bool TimelineView::in_ruler(const QPoint& p) const { return p.x() >= style_.label_width && p.y() < style_.ruler_height; }
double TimelineView::layout_y(const QPoint& pos) const {
  return pos.y() - style_.ruler_height + verticalScrollBar()->value();
}

void TimelineView::relayout() {
  layout_ = trace_ ? models::TrackLayout(*trace_, layout_options_) : models::TrackLayout();
  update_scrollbars();
  viewport()->update();
  emit layout_changed();
}

void TimelineView::apply_layout_options(const models::LayoutOptions& o) {
  layout_options_ = o;
  relayout();
}

void TimelineView::update_scrollbars() {
  const int visible = std::max(0, viewport()->height() - static_cast<int>(style_.ruler_height));
  verticalScrollBar()->setRange(0, std::max(0, static_cast<int>(std::ceil(layout_.total_height())) - visible));
  verticalScrollBar()->setPageStep(visible);
  verticalScrollBar()->setSingleStep(18);
}

void TimelineView::changed_view() {
  viewport()->update();
  emit view_changed();
}

void TimelineView::fit_all() {
  if (!index_) return;
  const TimeNs s = index_->start(), e = index_->end();
  const TimeNs pad = std::max<TimeNs>((e - s) / 100, 1);
  mapping_.set(s - pad, e + pad, data_width());
  changed_view();
}

void TimelineView::set_view(TimeNs start, TimeNs end) {
  mapping_.set(start, std::max(end, start + kMinVisibleNs), data_width());
  changed_view();
}

void TimelineView::zoom_by(double factor, double x) {
  mapping_.zoom(factor, std::clamp(x, 0.0, data_width()), kMinVisibleNs);
  changed_view();
}

void TimelineView::zoom_to(EventRef ref) {
  if (!trace_ || !ref.valid() || ref.track >= trace_->tracks.size()) return;
  const auto& s = trace_->tracks[ref.track].slices;
  if (ref.index >= s.size()) return;
  const TimeNs d = std::max<TimeNs>(s.dur[ref.index], kMinVisibleNs);
  set_view(s.start[ref.index] - d / 4, s.start[ref.index] + d + d / 4);
  int ri = layout_.row_of_track(static_cast<int32_t>(ref.track));
  if (ri < 0) {
    // reveal it: expand its rank, GPU and SM lanes, show the track
    const Track& tr = trace_->tracks[ref.track];
    layout_options_.collapsed.erase(models::process_key(tr.key.process));
    if (tr.key.device >= 0) layout_options_.collapsed.erase(models::device_key(tr.key.device));
    if (tr.key.kind == TrackKind::kSmLane) layout_options_.expanded_sm.insert(tr.key.device);
    layout_options_.hidden_tracks.erase(static_cast<int32_t>(ref.track));
    if (tr.parent >= 0) layout_options_.hidden_tracks.erase(tr.parent);
    relayout();
    ri = layout_.row_of_track(static_cast<int32_t>(ref.track));
  }
  if (ri >= 0) {
    const auto& row = layout_.rows()[static_cast<size_t>(ri)];
    const int view_h = viewport()->height() - static_cast<int>(style_.ruler_height);
    const int y = static_cast<int>(row.y);
    if (y < verticalScrollBar()->value() || y + row.height > verticalScrollBar()->value() + view_h)
      verticalScrollBar()->setValue(std::max(0, y - view_h / 3));
  }
}

void TimelineView::set_color_mode(render::ColorMode mode) {
  style_.color_mode = mode;
  viewport()->update();
}

void TimelineView::set_relative_time(bool on) {
  style_.relative_time = on;
  viewport()->update();
}

void TimelineView::set_show_flows(bool on) {
  style_.show_flows = on;
  viewport()->update();
}

void TimelineView::set_use_lod(bool on) {
  style_.use_lod = on;
  viewport()->update();
}

void TimelineView::set_sm_expanded(int32_t device, bool expanded) {
  if (expanded) layout_options_.expanded_sm.insert(device);
  else layout_options_.expanded_sm.erase(device);
  relayout();
}

void TimelineView::hide_track(int32_t track) {
  layout_options_.hidden_tracks.insert(track);
  relayout();
}

void TimelineView::show_all_tracks() {
  layout_options_.hidden_tracks.clear();
  relayout();
}

bool TimelineView::move_track(int32_t track, int delta) {
  if (!trace_ || !models::TrackLayout::move_track(*trace_, layout_options_, track, delta)) return false;
  relayout();
  return true;
}

void TimelineView::update_selected_flows() {
  deco_.selected_flows.clear();
  deco_.collective_peers.clear();
  selected_peers_ = {};
  if (!trace_) return;
  deco_.selected_flows = render::flows_of(*trace_, deco_.selected);
  if (peers_) selected_peers_ = peers_->peers_of(*trace_, deco_.selected);
  for (const CollectivePeer& p : selected_peers_.members)
    if (!p.selected) deco_.collective_peers.push_back(p.slice);
  // a collective flow the file states between the same two slices is drawn once, as a peer
  const auto& peers = deco_.collective_peers;
  std::erase_if(deco_.selected_flows, [&](uint32_t fi) {
    const Flow& f = trace_->flows[fi];
    const EventRef other = f.from == deco_.selected ? f.to : f.from;
    return f.kind == FlowKind::kCollective && std::find(peers.begin(), peers.end(), other) != peers.end();
  });
}

void TimelineView::set_collective_peers(std::shared_ptr<const CollectivePeerIndex> peers) {
  peers_ = std::move(peers);
  update_selected_flows();
  viewport()->update();
}

void TimelineView::select(EventRef ref) {
  deco_.selected = ref;
  update_selected_flows();
  viewport()->update();
  emit selection_changed(ref);
}

void TimelineView::set_range(TimeNs start, TimeNs end) {
  deco_.has_range = true;
  deco_.range_start = std::min(start, end);
  deco_.range_end = std::max(start, end);
  viewport()->update();
  emit range_changed(true, deco_.range_start, deco_.range_end);
}

void TimelineView::clear_range() {
  if (!deco_.has_range) return;
  deco_.has_range = false;
  viewport()->update();
  emit range_changed(false, 0, 0);
}

void TimelineView::set_bookmarks(std::vector<render::Bookmark> b) {
  deco_.bookmarks = std::move(b);
  std::sort(deco_.bookmarks.begin(), deco_.bookmarks.end(), [](const auto& x, const auto& y) { return x.time < y.time; });
  viewport()->update();
  emit bookmarks_changed();
}

void TimelineView::add_bookmark(TimeNs t, const QString& label) {
  auto b = deco_.bookmarks;
  b.push_back({t, label});
  set_bookmarks(std::move(b));
}

void TimelineView::set_track_marks(std::map<int32_t, render::TrackMark> marks) {
  deco_.track_marks = std::move(marks);
  viewport()->update();
}

size_t TimelineView::kernel_count() const {
  if (!trace_) return 0;
  size_t n = 0;
  for (const auto& row : layout_.rows()) {
    if (row.kind != models::TimelineRow::Kind::kTrack) continue;
    for (SliceRef r : trace_->tracks[static_cast<size_t>(row.track)].slices.ref) n += r.kind() == SliceKind::kKernel;
  }
  return n;
}

QImage TimelineView::render_image(QSize size) const {
  QImage img(size, QImage::Format_ARGB32_Premultiplied);
  img.fill(Qt::white);
  if (!painter_) return img;
  QPainter p(&img);
  models::TimelineMapping m(mapping_.start(), mapping_.end(), size.width() - style_.label_width);
  painter_->paint(p, QRect(QPoint(0, 0), size), layout_, m, verticalScrollBar()->value(), style_, deco_);
  return img;
}

void TimelineView::paintEvent(QPaintEvent*) {
  QPainter p(viewport());
  if (!painter_) {
    p.fillRect(viewport()->rect(), QColor(0xfb, 0xfb, 0xf9));
    p.setPen(QColor(0x60, 0x60, 0x60));
    p.drawText(viewport()->rect().adjusted(8, 8, -8, -8), Qt::AlignCenter | Qt::TextWordWrap, empty_text_);
    return;
  }
  mapping_.set(mapping_.start(), mapping_.end(), data_width());
  last_stats_ = painter_->paint(p, viewport()->rect(), layout_, mapping_, verticalScrollBar()->value(), style_, deco_);
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
  if (e->angleDelta().x() != 0 && e->angleDelta().y() == 0) {  // horizontal wheel / touchpad swipe pans
    mapping_.pan_px(e->angleDelta().x() / 2.0);
    changed_view();
    return;
  }
  const double steps = e->angleDelta().y() / 120.0;
  if (steps == 0) return;
  zoom_by(std::pow(1.25, steps), e->position().x() - style_.label_width);
}

bool TimelineView::event(QEvent* e) {
  if (e->type() == QEvent::NativeGesture && trace_) {
    auto* g = static_cast<QNativeGestureEvent*>(e);
    if (g->gestureType() == Qt::ZoomNativeGesture) {
      const QPoint local = viewport()->mapFromGlobal(g->globalPosition().toPoint());
      zoom_by(1.0 + g->value(), local.x() - style_.label_width);
      return true;
    }
  }
  if (e->type() == QEvent::Gesture && trace_) {
    auto* ge = static_cast<QGestureEvent*>(e);
    if (auto* pinch = static_cast<QPinchGesture*>(ge->gesture(Qt::PinchGesture))) {
      if (pinch->changeFlags() & QPinchGesture::ScaleFactorChanged) {
        const QPoint local = viewport()->mapFromGlobal(pinch->centerPoint().toPoint());
        zoom_by(pinch->scaleFactor(), local.x() - style_.label_width);
      }
      ge->accept(pinch);
      return true;
    }
  }
  return QAbstractScrollArea::event(e);
}

bool TimelineView::viewportEvent(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* he = static_cast<QHelpEvent*>(e);
    const QString text = tooltip_at(he->pos());
    if (text.isEmpty()) QToolTip::hideText();
    else QToolTip::showText(he->globalPos(), text, viewport());
    return true;
  }
  return QAbstractScrollArea::viewportEvent(e);
}

QString TimelineView::tooltip_at(const QPoint& pos) const {
  // the label column: the whole label, which the column may cut, and what it leaves out (a rank:
  // how its clock was put on the common timeline)
  if (painter_ && pos.x() < style_.label_width && pos.y() >= style_.ruler_height) {
    const int ri = layout_.row_at(layout_y(pos));
    if (ri < 0) return {};
    const models::TimelineRow& row = layout_.rows()[static_cast<size_t>(ri)];
    QString text = qstr(row.label).toHtmlEscaped();
    if (!row.details.empty())
      text = "<p style=\"white-space:nowrap\"><b>" + text + "</b><br>" + qstr(row.details).toHtmlEscaped() + "</p>";
    return text;
  }
  if (!painter_ || !in_data(pos)) return {};
  const double x = pos.x() - style_.label_width;
  const double ly = layout_y(pos);
  const int ri = layout_.row_at(ly);
  if (ri < 0) return {};
  const auto& row = layout_.rows()[static_cast<size_t>(ri)];
  const Trace& t = *trace_;
  if (row.collapsed && (row.kind == models::TimelineRow::Kind::kProcess || row.kind == models::TimelineRow::Kind::kDevice)) {
    // a folded row's activity strip: how busy each of its GPUs was under the cursor
    const std::vector<int32_t> devices =
        row.kind == models::TimelineRow::Kind::kProcess ? index_->active_devices(row.process) : std::vector<int32_t>{row.device};
    QString text = "<p style=\"white-space:nowrap\"><b>" + qstr(row.label).toHtmlEscaped() + "</b> (folded)";
    for (int32_t d : devices) {
      models::Coverage c;
      index_->sample_activity(d, static_cast<double>(mapping_.time_at(x)), mapping_.ns_per_px(), 1, &c);
      text += QString("<br>GPU %1: ").arg(t.devices[static_cast<size_t>(d)].ordinal) +
              (c.share > 0 ? QString("busy %1 %, mostly %2").arg(std::lround(c.share * 100)).arg(qstr(to_string(c.category)))
                           : QString("idle"));
    }
    return text + "<br>Click to unfold</p>";
  }
  if (row.kind == models::TimelineRow::Kind::kTrack) {
    const Track& tr = t.tracks[static_cast<size_t>(row.track)];
    if (tr.slices.empty() && tr.counter.size()) {
      const TimeNs at = mapping_.time_at(x);
      const auto& c = tr.counter;
      const auto it = std::upper_bound(c.time.begin(), c.time.end(), at);
      if (it == c.time.begin()) return {};
      const double v = c.value[static_cast<size_t>(it - c.time.begin() - 1)];
      return QString("<b>%1</b><br>%2 (%3)")
          .arg(qstr(t.str(tr.name)).toHtmlEscaped(), qstr(format_counter_value(t, tr, v)).toHtmlEscaped(),
               qstr(to_string(tr.counter_source)));
    }
  }
  const EventRef r = painter_->slice_at(layout_, mapping_, x, ly);
  if (!r.valid()) return {};
  const Track& tr = t.tracks[r.track];
  const auto& s = tr.slices;
  QString text = "<b>" + qstr(t.str(s.name[r.index])).toHtmlEscaped() + "</b><br>" +
                 qstr(format_duration(s.dur[r.index])) + " · " +
                 qstr(to_string(painter_->classifier().category(r))) + "<br>" + qstr(t.str(tr.name)).toHtmlEscaped();
  if (row.kind == models::TimelineRow::Kind::kSmGroup) text += " — click to expand the SM lanes";
  return text;
}

void TimelineView::mousePressEvent(QMouseEvent* e) {
  if (e->button() != Qt::LeftButton) return;
  drag_from_ = press_pos_ = e->pos();
  moved_ = false;
  const bool range = (e->modifiers() & Qt::ShiftModifier) || in_ruler(e->pos());
  drag_ = range && trace_ ? Drag::kRange : Drag::kPan;
  if (drag_ == Drag::kRange) range_anchor_ = mapping_.time_at(e->pos().x() - style_.label_width);
}

void TimelineView::mouseMoveEvent(QMouseEvent* e) {
  if (drag_ == Drag::kNone) return;
  const QPoint d = e->pos() - drag_from_;
  if (!moved_ && (e->pos() - press_pos_).manhattanLength() < 3) return;
  moved_ = true;
  if (drag_ == Drag::kRange) {
    const TimeNs t = mapping_.time_at(std::clamp(e->pos().x() - style_.label_width, 0.0, data_width()));
    deco_.has_range = true;
    deco_.range_start = std::min(range_anchor_, t);
    deco_.range_end = std::max(range_anchor_, t);
    viewport()->update();
    return;
  }
  mapping_.pan_px(d.x());
  verticalScrollBar()->setValue(verticalScrollBar()->value() - d.y());
  drag_from_ = e->pos();
  changed_view();
}

void TimelineView::mouseReleaseEvent(QMouseEvent* e) {
  if (e->button() != Qt::LeftButton || drag_ == Drag::kNone) return;
  const Drag was = drag_;
  drag_ = Drag::kNone;
  if (was == Drag::kRange && moved_) {
    if (deco_.range_end > deco_.range_start) emit range_changed(true, deco_.range_start, deco_.range_end);
    return;
  }
  if (moved_ || !trace_) return;
  const double ly = layout_y(e->pos());
  const int ri = layout_.row_at(ly);
  if (ri >= 0) {
    const auto& row = layout_.rows()[static_cast<size_t>(ri)];
    const bool header = row.kind == models::TimelineRow::Kind::kProcess || row.kind == models::TimelineRow::Kind::kDevice;
    if (header || (row.kind == models::TimelineRow::Kind::kSmGroup && e->pos().x() < style_.label_width)) {
      click_header(row);
      return;
    }
  }
  if (!in_data(e->pos())) return;
  clear_range();
  select(painter_->slice_at(layout_, mapping_, e->pos().x() - style_.label_width, ly));
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent* e) {
  if (!trace_ || e->button() != Qt::LeftButton || !in_data(e->pos())) return;
  const EventRef r = painter_->slice_at(layout_, mapping_, e->pos().x() - style_.label_width, layout_y(e->pos()));
  if (r.valid()) zoom_to(r);
}

void TimelineView::click_header(const models::TimelineRow& row) {
  switch (row.kind) {
    case models::TimelineRow::Kind::kProcess: {
      const uint64_t key = models::process_key(row.process);
      if (!layout_options_.collapsed.erase(key)) layout_options_.collapsed.insert(key);
      break;
    }
    case models::TimelineRow::Kind::kDevice: {
      const uint64_t key = models::device_key(row.device);
      if (!layout_options_.collapsed.erase(key)) layout_options_.collapsed.insert(key);
      break;
    }
    case models::TimelineRow::Kind::kSmGroup:
      if (!layout_options_.expanded_sm.erase(row.device)) layout_options_.expanded_sm.insert(row.device);
      break;
    case models::TimelineRow::Kind::kTrack: return;
  }
  relayout();
}

void TimelineView::contextMenuEvent(QContextMenuEvent* e) {
  if (!trace_) return;
  const QPoint pos = viewport()->mapFrom(this, e->pos());
  const int ri = layout_.row_at(layout_y(pos));
  QMenu menu(this);
  if (ri >= 0) {
    const auto row = layout_.rows()[static_cast<size_t>(ri)];
    if (row.kind == models::TimelineRow::Kind::kTrack) {
      menu.addAction(tr("Hide “%1”").arg(QString::fromStdString(row.label)), this, [this, row] { hide_track(row.track); });
      menu.addAction(tr("Move Up"), this, [this, row] { move_track(row.track, -1); });
      menu.addAction(tr("Move Down"), this, [this, row] { move_track(row.track, +1); });
    } else if (row.kind == models::TimelineRow::Kind::kProcess) {
      menu.addAction(tr("Move Rank Up"), this, [this, row] {
        if (models::TrackLayout::move_process(*trace_, layout_options_, row.process, -1)) relayout();
      });
      menu.addAction(tr("Move Rank Down"), this, [this, row] {
        if (models::TrackLayout::move_process(*trace_, layout_options_, row.process, +1)) relayout();
      });
    } else if (row.kind == models::TimelineRow::Kind::kSmGroup) {
      menu.addAction(row.collapsed ? tr("Show One Row per SM") : tr("Fold SM Lanes into the Heat Strip"), this,
                     [this, row] { set_sm_expanded(row.device, row.collapsed); });
    }
  }
  if (!layout_options_.hidden_tracks.empty())
    menu.addAction(tr("Show All Hidden Tracks (%1)").arg(layout_options_.hidden_tracks.size()), this, &TimelineView::show_all_tracks);
  if (in_data(pos))
    menu.addAction(tr("Add Bookmark Here"), this,
                   [this, pos] { add_bookmark(mapping_.time_at(pos.x() - style_.label_width), QString()); });
  if (!menu.isEmpty()) menu.exec(e->globalPos());
}

void TimelineView::keyPressEvent(QKeyEvent* e) {
  // W/A/S/D, M and Esc are the actions made in the constructor; 0 and F also have View menu
  // actions (window-wide), kept here for a timeline outside the main window (the diff dock's B)
  switch (e->key()) {
    case Qt::Key_0: fit_all(); return;
    case Qt::Key_F:
      if (deco_.selected.valid()) zoom_to(deco_.selected);
      else if (deco_.has_range) set_view(deco_.range_start, deco_.range_end);
      return;
    default: QAbstractScrollArea::keyPressEvent(e); return;
  }
}

}  // namespace parascope::gui
