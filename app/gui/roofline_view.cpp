#include "gui/roofline_view.h"

#include <QApplication>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "gui/data_table_model.h"
#include "gui/message_label.h"
#include "gui/presets.h"
#include "models/link_chart.h"
#include "models/roofline_chart.h"
#include "trace/core/trace_machine.h"

namespace parascope::gui {

RooflineView::RooflineView(QWidget* parent) : QWidget(parent) {
  status_ = new MessageLabel(this);  // the FLOP-source note of a trace without FLOPs is a paragraph
  status_->setStyleSheet("color: #666");
  status_->setContentsMargins(4, 2, 4, 2);
  chart_ = render::make_chart_view(this);
  chart_->widget()->setMinimumHeight(90);  // the bottom dock fits under the timeline at 720 px (issue 18 item 9)
  chart_->on_click = [this](const render::ChartHit& h) {
    if (h.series < 0 || static_cast<size_t>(h.series) >= point_of_series_.size()) return;
    const int p = point_of_series_[static_cast<size_t>(h.series)];
    if (p >= 0 && static_cast<size_t>(p) < roofline_.points.size()) emit kernel_activated(roofline_.points[static_cast<size_t>(p)].example);
  };
  model_ = new DataTableModel(this);
  table_ = make_data_table_view(model_, this, &proxy_);
  table_->setToolTip(tr("Double-click a row to select that kernel's first instance in the timeline"));
  connect(table_, &QTableView::doubleClicked, this, [this](const QModelIndex& i) {
    const int row = proxy_->mapToSource(i).row();
    if (row >= 0 && static_cast<size_t>(row) < roofline_.points.size()) emit kernel_activated(roofline_.points[static_cast<size_t>(row)].example);
  });
  // the note wraps above the table, not above the chart: a chart a line or two shorter cuts its
  // axis labels to "…" at the bottom dock's default height
  auto* right = new QWidget(this);
  auto* rv = new QVBoxLayout(right);
  rv->setContentsMargins(0, 0, 0, 0);
  rv->setSpacing(0);
  rv->addWidget(status_);
  rv->addWidget(table_, 1);
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(chart_->widget());
  split->addWidget(right);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  split->setSizes({500, 780});  // the legend's two roofs fit beside each other at 1280 px
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(0, 0, 0, 0);
  v->addWidget(split, 1);
}

void RooflineView::set_trace(std::shared_ptr<const Trace> trace) {
  trace_ = std::move(trace);
  jobs_.drop();
  roofline_ = {};
  model_->set_table({});
  chart_->set_spec({});
  if (!trace_) return;
  status_->set_message(tr("placing kernels…"));
  auto t = trace_;
  std::vector<Topology> presets;
  for (const Preset& p : topology_presets()) presets.push_back(p.topology);
  const MachineChoice machine = choose_machine(*t, topology_presets());
  jobs_.start(
      [t, presets, machine] {
        Result r;
        const TraceMachine m = trace_machine(*t, machine);
        const RooflineCeilings c = ceilings_with_datasheet(m.topology, presets);
        r.roofline = compute_roofline(*t, c);
        r.table = roofline_table(*t, r.roofline);
        r.spec = models::roofline_chart_spec(*t, r.roofline, &r.point_of_series);
        r.machine = QString::fromStdString(r.table.note);
        return r;
      },
      [this](Result r) {
        roofline_ = std::move(r.roofline);
        point_of_series_ = std::move(r.point_of_series);
        model_->set_table(std::move(r.table));
        std::vector<QColor> colors;
        for (size_t i = 0; i < roofline_.points.size(); ++i) colors.push_back(roofline_.points[i].with_flops ? render::to_qcolor(models::series_color(i)) : QColor(0xdd, 0xdd, 0xdd));
        model_->set_row_colors(std::move(colors));
        table_->resizeColumnsToContents();
        table_->setColumnWidth(0, std::min(table_->columnWidth(0), 360));
        table_->sortByColumn(3, Qt::DescendingOrder);  // by time
        r.spec.title.clear();  // the line above the chart says it
        chart_->set_spec(r.spec);
        status_->set_message(r.machine);
        emit updated();
      });
}

void RooflineView::wait() {
  while (busy()) QApplication::processEvents(QEventLoop::AllEvents, 20);
}

}  // namespace parascope::gui
