#include "gui/link_view.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <tuple>

#include "gui/data_table_model.h"
#include "gui/presets.h"
#include "trace/core/trace_machine.h"
#include "models/link_chart.h"

namespace parascope::gui {

LinkView::LinkView(QWidget* parent) : QWidget(parent) {
  auto* top = new QHBoxLayout;
  top->setContentsMargins(4, 2, 4, 2);
  top->addWidget(new QLabel(tr("Window:"), this));
  scope_ = new QComboBox(this);
  scope_->addItem(tr("Timeline view"), static_cast<int>(Scope::kView));
  scope_->addItem(tr("Selected range"), static_cast<int>(Scope::kRange));
  scope_->addItem(tr("Whole trace"), static_cast<int>(Scope::kTrace));
  top->addWidget(scope_);
  estimates_ = new QCheckBox(tr("Estimates"), this);
  estimates_->setChecked(true);
  estimates_->setToolTip(tr("Also show link traffic estimated from peer copies and collective sizes (dashed)"));
  top->addWidget(estimates_);
  status_ = new QLabel(this);
  status_->setStyleSheet("color: #666");
  top->addWidget(status_, 1);

  chart_ = render::make_chart_view(this);
  chart_->widget()->setMinimumHeight(90);  // the bottom dock fits under the timeline at 720 px (issue 18 item 9)
  chart_->on_click = [this](const render::ChartHit& h) {
    if (!trace_) return;
    emit time_clicked(trace_span_.start + static_cast<qint64>(std::llround(h.value.x * 1e6)));
  };
  model_ = new DataTableModel(this);
  table_ = make_data_table_view(model_, this, &proxy_);
  table_->setToolTip(tr("Select rows to chart only those links"));
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(chart_->widget());
  split->addWidget(table_);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(0, 0, 0, 0);
  v->addLayout(top);
  v->addWidget(split, 1);

  debounce_.setSingleShot(true);
  debounce_.setInterval(120);
  connect(&debounce_, &QTimer::timeout, this, &LinkView::recompute);
  connect(scope_, &QComboBox::activated, this, [this] { recompute(); });
  connect(estimates_, &QCheckBox::toggled, this, [this] { set_trace(trace_); });
  connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] { debounce_.start(); });
}

const std::vector<LinkCounter>& LinkView::counters() const {
  static const std::vector<LinkCounter> kNone;
  return counters_ ? *counters_ : kNone;
}

void LinkView::set_trace(std::shared_ptr<const Trace> trace) {
  trace_ = std::move(trace);
  counters_.reset();
  capacities_.reset();
  jobs_.drop();
  model_->set_table({});
  chart_->set_spec({});
  if (!trace_) return;
  const auto [s, e] = trace_->time_span();
  trace_span_ = {s, e};
  if (view_.end <= view_.start) view_ = trace_span_;
  status_->setText(tr("gathering link counters…"));
  auto trace_copy = trace_;
  const bool estimates = estimates_->isChecked();
  using Gathered = std::pair<std::shared_ptr<const std::vector<LinkCounter>>, std::shared_ptr<const std::vector<LinkCapacity>>>;
  jobs_.start(
      [trace_copy, estimates] {
        auto counters = std::make_shared<const std::vector<LinkCounter>>(link_counters(*trace_copy, estimates));
        const TraceMachine machine = trace_machine(*trace_copy, choose_machine(*trace_copy, topology_presets()));
        return Gathered{counters, std::make_shared<const std::vector<LinkCapacity>>(counter_capacities(machine, *counters))};
      },
      [this](Gathered g) {
        std::tie(counters_, capacities_) = std::move(g);
        recompute();
      });
}

void LinkView::set_windows(Interval view, std::optional<Interval> range) {
  view_ = view;
  range_ = range;
  debounce_.start();
}

void LinkView::set_scope(Scope s) {
  scope_->setCurrentIndex(scope_->findData(static_cast<int>(s)));
  recompute();
}

Interval LinkView::window() const {
  switch (static_cast<Scope>(scope_->currentData().toInt())) {
    case Scope::kView: return view_.end > view_.start ? view_ : trace_span_;
    case Scope::kRange: return range_ && range_->end > range_->start ? *range_ : (view_.end > view_.start ? view_ : trace_span_);
    case Scope::kTrace: return trace_span_;
  }
  return trace_span_;
}

std::vector<size_t> LinkView::shown_counters() const {
  std::vector<size_t> shown;
  for (const QModelIndex& i : table_->selectionModel()->selectedRows()) shown.push_back(static_cast<size_t>(proxy_->mapToSource(i).row()));
  std::sort(shown.begin(), shown.end());
  return shown;
}

void LinkView::recompute() {
  debounce_.stop();
  if (!trace_ || !counters_) return;
  const Interval w = window();
  auto counters = counters_;
  auto capacities = capacities_;
  models::LinkChartOptions o;
  o.window = w;
  o.origin = trace_span_.start;
  o.buckets = static_cast<size_t>(std::max(100, chart_->widget()->width()));
  o.shown = shown_counters();
  o.title.clear();  // the dock's title says it
  status_->setText(tr("%1 series · %2").arg(counters->size()).arg(QString::fromStdString(format_duration(w.end - w.start))));
  jobs_.start(
      [counters, capacities, o] {
        Result r;
        r.window = o.window;
        r.table = link_stats_table(*counters, link_stats(*counters, o.window, *capacities));
        r.spec = models::link_chart_spec(*counters, o);
        return r;
      },
      [this](Result r) {
        if (!model_->update_values(r.table)) {
          model_->set_table(std::move(r.table));
          table_->resizeColumnsToContents();
        }
        std::vector<QColor> colors;
        for (size_t i = 0; i < model_->table().rows.size(); ++i) colors.push_back(render::to_qcolor(models::series_color(i)));
        model_->set_row_colors(std::move(colors));
        chart_->set_spec(r.spec);
        shown_window_ = r.window;
        emit updated();
      });
}

bool LinkView::busy() const { return jobs_.busy() || debounce_.isActive(); }

void LinkView::wait() {
  while (busy()) {
    if (debounce_.isActive()) recompute();
    QApplication::processEvents(QEventLoop::AllEvents, 20);
  }
}

}  // namespace parascope::gui
