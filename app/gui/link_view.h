// LinkView: the "Links" dock — bytes/s per link and direction over the timeline's visible window
// (or the box-selected range, or the whole trace) as a chart drawn through render::ChartView, and
// the per-link statistics table (link_stats.h: the numbers `parascope-cli links` prints). Measured
// series are solid, estimated dashed, simulated hatched. Clicking the chart moves the timeline to
// that time. Series are gathered and every window's statistics and envelopes computed on worker
// threads (JobTracker jobs); a newer request supersedes older results.
#pragma once

#include <QTimer>
#include <QWidget>
#include <memory>
#include <optional>

#include "gui/job_tracker.h"
#include "render/chart_view.h"
#include "trace/core/analysis/link_stats.h"

class QComboBox;
class QCheckBox;
class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace parascope::gui {

class DataTableModel;

class LinkView : public QWidget {
  Q_OBJECT
 public:
  enum class Scope { kView, kRange, kTrace };
  explicit LinkView(QWidget* parent = nullptr);
  void set_trace(std::shared_ptr<const Trace> trace);
  // The timeline's visible window and box selection; recomputed shortly after the last change.
  void set_windows(Interval view, std::optional<Interval> range);
  void set_scope(Scope s);
  Interval window() const;
  const std::vector<LinkCounter>& counters() const;
  const models::ChartSpec& chart_spec() const { return chart_->spec(); }
  render::ChartView* chart() const { return chart_.get(); }
  DataTableModel* model() const { return model_; }
  QTableView* table() const { return table_; }
  bool busy() const;
  void wait();  // tests: until every pending computation has landed

 signals:
  void time_clicked(qint64 t);
  void updated();

 private:
  struct Result {
    DataTable table;
    models::ChartSpec spec;
    Interval window;
  };
  void recompute();
  std::vector<size_t> shown_counters() const;

  std::shared_ptr<const Trace> trace_;
  std::shared_ptr<const std::vector<LinkCounter>> counters_;
  std::shared_ptr<const std::vector<LinkCapacity>> capacities_;  // per counter, on the matched machine
  std::unique_ptr<render::ChartView> chart_;
  DataTableModel* model_ = nullptr;
  QSortFilterProxyModel* proxy_ = nullptr;
  QTableView* table_ = nullptr;
  QComboBox* scope_ = nullptr;
  QCheckBox* estimates_ = nullptr;
  QLabel* status_ = nullptr;
  QTimer debounce_;
  Interval view_{}, trace_span_{};
  std::optional<Interval> range_;
  Interval shown_window_{};
  JobTracker jobs_;  // last: waited for before the members above go
};

}  // namespace parascope::gui
