// PkbSuiteView: the "PKB suite" dock — a ParallelKernelBench suite folder (`parascope-cli pkb
// run`) as the pkb library reports it (app/pkb/report/suite_report.h): the tasks by gap (PKB's
// time ÷ the machine's bound) with the binding resource and the best design, and for the selected
// task where its iteration goes, its operations and the alternatives the simulator predicted.
// Clicking a task asks the window to open its trace (timeline, roofline); the view only shows what
// the library computed, on a worker thread.
#pragma once

#include <QString>
#include <QWidget>
#include <memory>

#include "gui/job_tracker.h"
#include "pkb/report/suite_report.h"

class QLabel;
class QTabWidget;
class QTableView;

namespace parascope::gui {

class DataTableModel;
class MessageLabel;

class PkbSuiteView : public QWidget {
  Q_OBJECT
 public:
  explicit PkbSuiteView(QWidget* parent = nullptr);
  // Analyses `dir` on `machine` (a preset, a file, or "auto") in the background.
  void open_suite(const QString& dir, const QString& machine = "auto");
  bool busy() const { return jobs_.busy(); }
  void wait();
  const pkb::SuiteReport* report() const { return report_.get(); }
  // Shows task `row` of the suite table (its order: by gap) and asks for its trace.
  void select_task(int row);
  DataTableModel* suite_model() const { return suite_model_; }
  DataTableModel* designs_model() const { return designs_model_; }
  QTableView* suite_table() const { return suite_table_; }
  QTabWidget* tabs() const { return tabs_; }
  QString status_text() const;
  QString task_text() const;     // the selected task's line: its figures and best design
  QString task_tooltip() const;  // the same with the reasons of every design target and the bound's note

 signals:
  void open_trace(QString path);
  void updated();

 private:
  void show_task(const pkb::TaskReport& t);
  std::shared_ptr<const pkb::SuiteReport> report_;
  DataTableModel* suite_model_ = nullptr;
  DataTableModel* breakdown_model_ = nullptr;
  DataTableModel* ops_model_ = nullptr;
  DataTableModel* designs_model_ = nullptr;
  QTableView* suite_table_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  MessageLabel* status_ = nullptr;
  QLabel* task_status_ = nullptr;
  JobTracker jobs_;  // last: waited for before the members above go
};

}  // namespace parascope::gui
