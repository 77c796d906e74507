#include "gui/overlap_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QVBoxLayout>

namespace parascope::gui {

OverlapView::OverlapView(QWidget* parent) : QWidget(parent) {
  auto* top = new QHBoxLayout;
  top->setContentsMargins(4, 2, 4, 2);
  top->addWidget(new QLabel(tr("Device:"), this));
  devices_ = new QComboBox(this);
  top->addWidget(devices_, 1);
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(0, 0, 0, 0);
  v->addLayout(top);
  v->addStretch(1);
  connect(devices_, &QComboBox::activated, this, [this](int i) {
    if (has_data_ || last_window_.length() > 0) show_window(static_cast<uint32_t>(devices_->itemData(i).toInt()), last_window_, last_title_);
  });
  setMinimumHeight(200);
}

void OverlapView::set_trace(std::shared_ptr<const Trace> trace) {
  wait();
  trace_ = std::move(trace);
  devices_->clear();
  if (trace_)
    for (uint32_t d = 0; d < trace_->devices.size(); ++d) {
      const Device& dev = trace_->devices[d];
      const Process& proc = trace_->processes[dev.process];
      const QString who = proc.rank >= 0 ? QString("rank %1").arg(proc.rank) : QString("pid %1").arg(proc.pid);
      devices_->addItem(QString("%1 · GPU %2").arg(who).arg(dev.ordinal), static_cast<int>(d));
    }
  clear();
}

void OverlapView::clear() {
  jobs_.drop();
  has_data_ = false;
  data_ = {};
  update();
}

void OverlapView::show_window(uint32_t device, Interval window, const QString& title) {
  if (!trace_ || device >= trace_->devices.size() || window.length() <= 0) return;
  device_ = static_cast<int32_t>(device);
  last_window_ = window;
  last_title_ = title;
  devices_->setCurrentIndex(devices_->findData(static_cast<int>(device)));
  auto trace = trace_;
  // an older computation still running finishes on its own; its result is dropped
  jobs_.start(
      [trace, device, window, title] {
        const SliceClassifier classify(*trace);  // its own: the classifier's name cache is not shared across threads
        return render::overlap_chart_data(*trace, classify, device, window, title);
      },
      [this](render::OverlapChartData chart) {
        data_ = std::move(chart);
        has_data_ = true;
        update();
        emit updated();
      });
}

void OverlapView::wait() { jobs_.wait(); }

void OverlapView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const QRectF area(0, devices_->geometry().bottom() + 4, width(), height() - devices_->geometry().bottom() - 4);
  if (!has_data_) {
    p.fillRect(area, QColor(0xfb, 0xfb, 0xf9));
    p.setPen(QColor(0x70, 0x70, 0x70));
    p.drawText(area.adjusted(8, 8, -8, -8), Qt::AlignTop | Qt::AlignLeft | Qt::TextWordWrap,
               tr("Select a kernel, or Shift+drag a range in the timeline, to see how each SM spent it and how much "
                  "communication was exposed."));
    return;
  }
  render::paint_overlap_chart(p, area, data_, font());
}

}  // namespace parascope::gui
