// RooflineView: the "Roofline" dock — every kernel name against the compute, HBM and link
// ceilings of the machine (roofline.h; ceilings from the trace's topology or the preset matching
// its GPUs, peaks raised to the datasheet's) as a chart through render::ChartView, with the table
// `parascope-cli roofline` prints. Clicking a point or double-clicking a row selects the kernel's
// first instance in the timeline. Computed on a worker thread.
#pragma once

#include <QWidget>
#include <memory>

#include "gui/job_tracker.h"
#include "render/chart_view.h"
#include "trace/core/analysis/roofline.h"

class QSortFilterProxyModel;
class QTableView;

namespace parascope::gui {

class DataTableModel;
class MessageLabel;

class RooflineView : public QWidget {
  Q_OBJECT
 public:
  explicit RooflineView(QWidget* parent = nullptr);
  void set_trace(std::shared_ptr<const Trace> trace);
  const Roofline& roofline() const { return roofline_; }
  const models::ChartSpec& chart_spec() const { return chart_->spec(); }
  render::ChartView* chart() const { return chart_.get(); }
  DataTableModel* model() const { return model_; }
  QTableView* table() const { return table_; }
  bool busy() const { return jobs_.busy(); }
  void wait();

 signals:
  void kernel_activated(parascope::EventRef ref);
  void updated();

 private:
  struct Result {
    Roofline roofline;
    DataTable table;
    models::ChartSpec spec;
    std::vector<int> point_of_series;
    QString machine;
  };
  std::shared_ptr<const Trace> trace_;
  std::unique_ptr<render::ChartView> chart_;
  DataTableModel* model_ = nullptr;
  QSortFilterProxyModel* proxy_ = nullptr;
  QTableView* table_ = nullptr;
  MessageLabel* status_ = nullptr;
  Roofline roofline_;
  std::vector<int> point_of_series_;
  JobTracker jobs_;  // last: waited for before the members above go
};

}  // namespace parascope::gui
