// WhatIfView: the "What-if" dock — the knob registry as a form (each knob's range, default and the
// value the trace already has, trace_knobs.h), the machine to replay on, Run (one prediction) and
// Sweep (a grid, `--sweep` syntax) on a worker thread with progress and a Cancel that stops the
// library's work (WhatIfInput::cancel). Results: the predicted timeline, following the main one
// (the replay runs on the trace's clock) with its GPU streams marked where kernel time changed;
// the predicted-vs-measured table (whatif_tables.h) and link load measured against predicted
// (trace_diff.h: diff_links_table); the sweep's chart
// (models::sweep_chart_spec) and table. Everything shown comes from the library, as `whatif`.
// The dependency graph is built on a worker the first time the dock is shown with a trace.
#pragma once

#include <QStringList>
#include <QWidget>
#include <map>
#include <memory>

#include "gui/job_tracker.h"
#include "render/chart_view.h"
#include "sim/knobs.h"
#include "sim/whatif/sweep.h"
#include "trace/core/analysis/trace_diff.h"

class QComboBox;
class QGridLayout;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QTableView;

namespace parascope::render {
class TimelineIndex;
}

namespace parascope::gui {

class DataTableModel;
class MessageLabel;
class TimelineView;

class WhatIfView : public QWidget {
  Q_OBJECT
 public:
  enum Tab { kTimelineTab = 0, kComparisonTab, kSweepTab };
  explicit WhatIfView(QWidget* parent = nullptr);
  void set_trace(std::shared_ptr<const Trace> trace);
  // The step ranges' pattern (an ECMAScript regex, as `parascope-cli whatif --step`), used when the
  // trace has no ProfilerStep#N: "^step " makes each NVTX "step <i>" a step. Rebuilds the graph.
  void set_step_pattern(const QString& pattern);
  QString step_pattern() const;

  // The form: "" restores the default. Unknown knob names return false.
  bool set_knob(const QString& name, const QString& text);
  QWidget* knob_editor(const QString& name) const;
  QString trace_value(const QString& name) const;  // what the trace has ("" when it says nothing)
  std::vector<std::pair<std::string, std::string>> overrides() const;  // the knobs the form sets
  void set_sweep_spec(const QString& spec);  // "channels=2,4,8 comm_stream=trace,side"
  QString machine() const;
  bool set_machine(const QString& preset);  // a preset's name (resources/topologies); false: no such preset

  void run();        // one prediction with the form's knobs (the plain replay when none is set)
  void run_sweep();  // the sweep field's grid, the form's knobs applied to every variant
  void cancel();
  void follow(TimeNs start, TimeNs end);  // the main timeline's visible range

  bool busy() const { return jobs_.busy(); }
  void wait();
  QString status() const;
  QProgressBar* progress() const { return progress_; }
  QPushButton* cancel_button() const { return cancel_; }
  QTabWidget* tabs() const { return tabs_; }
  TimelineView* predicted_timeline() const { return predicted_; }
  std::shared_ptr<const Trace> predicted_trace() const { return predicted_trace_; }
  // "knob=value" of the last finished prediction (empty for a plain replay); has_run: one finished
  QStringList last_run_knobs() const { return last_run_knobs_; }
  bool has_run() const { return predicted_trace_ != nullptr; }
  const TraceDiff& diff() const { return diff_; }
  // The tables as DataTables (reports include them): whatif_comparison_table, diff_links_table
  // (A measured, B predicted), sweep_table of the last finished run and sweep.
  const DataTable& comparison_table() const;
  const DataTable& links_table() const;
  const DataTable& sweep_table() const;
  const std::vector<whatif::SweepRow>& sweep_rows() const { return sweep_rows_; }
  const models::ChartSpec& sweep_chart() const { return chart_->spec(); }
  render::ChartView* chart() const { return chart_.get(); }

 signals:
  void finished();  // a run or sweep ended: done, cancelled or failed (status() says which)
  void compare_requested(std::shared_ptr<const parascope::Trace> predicted, QString label);

 private:
  struct Prepared;
  struct RunResult;
  struct SweepResult;
  void build_form();
  // The "default …" text of a knob's empty editor: the registry's default, or the trace's value.
  void set_default_text(const std::string& knob, const QString& text);
  void prepare();  // the dependency graph, on a worker: when the dock is first shown with a trace
  void showEvent(QShowEvent* e) override;
  void set_running(bool on, bool determinate);
  bool topology(Topology& out, QString& why) const;
  QString automatic_machine_text(int32_t gpus) const;
  bool knobs(sim::KnobSettings& out) const;  // the form's knobs, parsed; false (and the status says why) when one is bad

  std::shared_ptr<const Trace> trace_;
  std::shared_ptr<const Prepared> prepared_;  // the dependency graph (built once per trace)
  std::shared_ptr<const Trace> predicted_trace_;
  TraceDiff diff_;
  std::vector<whatif::SweepRow> sweep_rows_;
  std::map<std::string, QWidget*> editors_;
  std::map<std::string, QLabel*> trace_labels_;
  std::map<std::string, std::string> trace_values_;
  QGridLayout* form_ = nullptr;
  QComboBox* machine_ = nullptr;
  QLineEdit* sweep_spec_ = nullptr;
  QLineEdit* steps_ = nullptr;  // the step pattern; the graph was built with prepared_'s copy of it
  QPushButton* run_ = nullptr;
  QPushButton* sweep_ = nullptr;
  QPushButton* compare_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QProgressBar* progress_ = nullptr;
  MessageLabel* status_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  TimelineView* predicted_ = nullptr;
  DataTableModel* comparison_ = nullptr;
  DataTableModel* links_ = nullptr;
  DataTableModel* sweep_model_ = nullptr;
  std::unique_ptr<render::ChartView> chart_;
  QString label_;
  QStringList last_run_knobs_;
  bool preparing_ = false;
  JobTracker jobs_;  // last: cancelled and waited for before the members above go
};

}  // namespace parascope::gui
