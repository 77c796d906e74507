#include "gui/topology_view.h"

#include <QApplication>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QVBoxLayout>

#include "gui/presets.h"
#include "render/topology_painter.h"

namespace parascope::gui {

TopologyView::TopologyView(QWidget* parent) : QWidget(parent) {
  auto* top = new QHBoxLayout;
  top->setContentsMargins(4, 2, 4, 2);
  top->addWidget(new QLabel(tr("Machine:"), this));
  source_ = new QComboBox(this);
  source_->addItem(tr("From the trace"), -1);
  const auto& presets = topology_presets();
  for (size_t i = 0; i < presets.size(); ++i)
    source_->addItem(tr("Preset: %1").arg(QString::fromStdString(presets[i].name)), static_cast<int>(i));
  top->addWidget(source_, 1);
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(0, 0, 0, 0);
  v->addLayout(top);
  v->addStretch(1);
  setMouseTracking(true);
  setMinimumHeight(200);
  debounce_.setSingleShot(true);
  debounce_.setInterval(150);
  connect(&debounce_, &QTimer::timeout, this, &TopologyView::recompute);
  connect(source_, &QComboBox::activated, this, [this] { recompute(); });
}

void TopologyView::set_trace(std::shared_ptr<const Trace> trace) {
  trace_ = std::move(trace);
  counters_.reset();
  machine_ = {};
  layout_ = {};
  loads_.clear();
  if (!trace_) return;
  const auto [s, e] = trace_->time_span();
  view_ = {s, e};
  range_.reset();
  source_->setCurrentIndex(std::max(0, source_->findData(preset_index(choose_machine(*trace_, topology_presets())))));
  recompute();
}

void TopologyView::set_windows(Interval view, std::optional<Interval> range) {
  view_ = view;
  range_ = range;
  debounce_.start();
}

void TopologyView::set_source(int preset) {
  source_->setCurrentIndex(std::max(0, source_->findData(preset)));
  recompute();
}

int TopologyView::source() const { return source_->currentData().toInt(); }

QString TopologyView::title() const {
  if (!trace_) return tr("No trace");
  const QString what = machine_.origin == TraceMachine::Origin::kInferred ? tr("inferred from the trace")
                       : machine_.origin == TraceMachine::Origin::kPreset  ? tr("preset %1").arg(QString::fromStdString(machine_.topology.name))
                                                                           : QString::fromStdString(machine_.topology.name);
  const Interval w = window();
  return tr("%1 · %2 GPUs · %3 %4").arg(what).arg(machine_.topology.gpu_count())
      .arg(range_ ? tr("range") : tr("view"), QString::fromStdString(format_duration(w.end - w.start)));
}

void TopologyView::recompute() {
  debounce_.stop();
  if (!trace_) return;
  const int preset = source();
  std::optional<Topology> topo;
  if (preset >= 0 && static_cast<size_t>(preset) < topology_presets().size()) topo = topology_presets()[static_cast<size_t>(preset)].topology;
  auto trace = trace_;
  auto counters = counters_;
  const Interval w = window();
  jobs_.start(
      [trace, counters, topo, w] {
        Result r;
        r.counters = counters ? counters : std::make_shared<const std::vector<LinkCounter>>(link_counters(*trace, true));
        r.machine = trace_machine(*trace, topo ? &*topo : nullptr);
        r.layout = models::layout_topology(r.machine.topology);
        r.loads = topology_link_loads(r.machine, *r.counters, w);
        return r;
      },
      [this](Result r) {
        machine_ = std::move(r.machine);
        layout_ = std::move(r.layout);
        loads_ = std::move(r.loads);
        counters_ = r.counters;
        hover_link_ = -1;
        update();
        emit updated();
      });
}

QRectF TopologyView::area() const {
  const int top = source_->geometry().bottom() + 4;
  return QRectF(0, top, width(), height() - top);
}

void TopologyView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  if (!trace_ || machine_.topology.nodes.empty()) {
    p.fillRect(area(), QColor(0xfb, 0xfb, 0xf9));
    p.setPen(QColor(0x70, 0x70, 0x70));
    p.drawText(area().adjusted(8, 8, -8, -8), Qt::AlignTop | Qt::AlignLeft | Qt::TextWordWrap,
               trace_ ? tr("The trace does not say which GPUs it ran on; pick a preset above.") : tr("Open a trace to see its machine."));
    return;
  }
  render::paint_topology(p, area(), machine_.topology, layout_, loads_, title(), hover_link_);
}

QString TopologyView::tooltip_at(const QPoint& pos) const {
  const render::TopologyTransform tf = render::fit_topology(layout_, area());
  const int node = render::topology_node_at(layout_, tf, pos);
  if (node >= 0) return render::topology_node_tooltip(machine_.topology, node);
  const int link = render::topology_link_at(layout_, tf, pos);
  return link >= 0 ? render::topology_link_tooltip(machine_.topology, loads_, link) : QString();
}

void TopologyView::mouseMoveEvent(QMouseEvent* e) {
  const render::TopologyTransform tf = render::fit_topology(layout_, area());
  const int link = render::topology_link_at(layout_, tf, e->position());
  if (link != hover_link_) {
    hover_link_ = link;
    update();
  }
  const QString tip = tooltip_at(e->pos());
  if (tip.isEmpty()) QToolTip::hideText();
  else QToolTip::showText(e->globalPosition().toPoint(), tip, this);
}

QImage TopologyView::render_image(QSize size) const {
  QImage img(size, QImage::Format_ARGB32_Premultiplied);
  img.fill(Qt::white);
  QPainter p(&img);
  render::paint_topology(p, QRectF(QPointF(0, 0), QSizeF(size)), machine_.topology, layout_, loads_, title());
  return img;
}

bool TopologyView::busy() const { return jobs_.busy() || debounce_.isActive(); }

void TopologyView::wait() {
  while (busy()) {
    if (debounce_.isActive()) recompute();
    QApplication::processEvents(QEventLoop::AllEvents, 20);
  }
}

}  // namespace parascope::gui
