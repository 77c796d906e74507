// DiffView: the "Diff" dock — the loaded trace (A) against a second one (B: another run, or a
// what-if prediction) aligned by step (trace_diff.h): B's timeline under a splitter, following the
// main timeline shifted by the step offset, its GPU streams marked where their kernel time changed,
// and the steps, kernels, collectives, streams and links tables `parascope-cli diff A B` prints. Selecting
// a step row shows that step in both timelines; a kernel or collective row selects its first
// instance. B is picked and loaded as File → Open does (files or a folder, open_dialogs.h,
// TraceLoader), then diffed on a worker thread; when A and B differ in their ranks the dock says
// so above the tables (TraceDiff::rank_mismatch).
#pragma once

#include <QWidget>
#include <map>
#include <memory>

#include "gui/job_tracker.h"
#include "gui/trace_loader.h"
#include "render/timeline_painter.h"
#include "trace/core/analysis/trace_diff.h"

class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;

namespace parascope::render {
class TimelineIndex;
}

namespace parascope::gui {

class DataTableModel;
class MessageLabel;
class TimelineView;

// The streams of one side whose kernel time changed by more than `threshold` (a fraction; a stream
// only one side has always counts): red when B is busier, green when less busy, "+12.3 %" as text.
std::map<int32_t, render::TrackMark> diff_track_marks(const TraceDiff& d, bool side_b, double threshold = 0.02);

class DiffView : public QWidget {
  Q_OBJECT
 public:
  enum Table { kSteps = 0, kKernels, kCollectives, kStreams, kLinks, kTableCount };
  explicit DiffView(QWidget* parent = nullptr);
  void set_trace(std::shared_ptr<const Trace> a);
  // Loads B (a file, several per-rank files, or a directory of them) as File → Open does, then diffs.
  void open_b(const QStringList& inputs);
  // B already in memory (a what-if prediction); `label` names it.
  void set_b(std::shared_ptr<const Trace> b, const QString& label);
  // Step ranges for traces without ProfilerStep#N (a regular expression, as `diff --step`); the
  // current pair is diffed again.
  void set_step_pattern(const QString& pattern);
  // The main timeline shows [start, end] of A: B's timeline shows the same stretch of its steps.
  void follow(TimeNs start, TimeNs end);
  // As a click on `source_row` of `table` (rows in TraceDiff order).
  void activate(int table, int source_row);

  const TraceDiff& diff() const { return diff_; }
  const Trace* trace_b() const { return b_.get(); }
  DataTableModel* model(int table) const { return models_[table]; }
  QTableView* table(int table) const { return tables_[table]; }
  QTabWidget* tabs() const { return tabs_; }
  TimelineView* timeline_b() const { return timeline_b_; }
  TimeNs offset() const { return offset_; }
  QString status() const;
  // The rank-count statement shown above the tables; empty when A and B have as many ranks.
  QString rank_warning() const;
  bool busy() const { return loading_ || jobs_.busy(); }
  void wait();

 signals:
  void range_activated(qint64 start, qint64 end);  // a step of A
  void event_activated(parascope::EventRef ref);   // a kernel's or collective's first instance in A
  void updated();

 private:
  struct Result {
    std::shared_ptr<const Trace> b;
    std::shared_ptr<const models::TimelineIndex> index;
    TraceDiff diff;
    DataTable tables[kTableCount];
    QString label, error;
  };
  void start(std::function<Result()> work);
  void diff_with(std::shared_ptr<const Trace> b, std::shared_ptr<const models::TimelineIndex> index, const QString& label);

  std::shared_ptr<const Trace> a_, b_;
  std::shared_ptr<const models::TimelineIndex> b_index_;
  QString b_label_;
  QLineEdit* step_ = nullptr;
  TraceDiff diff_;
  TimeNs offset_ = 0;
  MessageLabel* status_ = nullptr;
  MessageLabel* mismatch_ = nullptr;
  TraceLoader* loader_ = nullptr;
  bool loading_ = false;
  QString loading_label_;
  QPushButton* open_ = nullptr;
  TimelineView* timeline_b_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  DataTableModel* models_[kTableCount] = {};
  QSortFilterProxyModel* proxies_[kTableCount] = {};
  QTableView* tables_[kTableCount] = {};
  JobTracker jobs_;  // last: waited for before the members above go
};

}  // namespace parascope::gui
