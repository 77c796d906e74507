#include "gui/pkb_suite_view.h"

#include <QApplication>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "gui/data_table_model.h"
#include "gui/message_label.h"
#include "gui/presets.h"
#include "trace/core/time.h"

namespace parascope::gui {

namespace {
struct Outcome {
  std::shared_ptr<const pkb::SuiteReport> report;
  DataTable table;
  QString error;
};
}  // namespace

PkbSuiteView::PkbSuiteView(QWidget* parent) : QWidget(parent) {
  status_ = new MessageLabel(this);  // "analysing DIR…" and errors name the suite's folder, any length
  status_->set_message(tr("No suite open (File > Open PKB suite…, or parascope --pkb-suite DIR)"));
  status_->setStyleSheet("color: #666");
  status_->setContentsMargins(4, 2, 4, 2);
  suite_model_ = new DataTableModel(this);
  suite_table_ = make_data_table_view(suite_model_, this, nullptr, true);  // the library's order: by gap
  suite_table_->setTextElideMode(Qt::ElideRight);
  suite_table_->setToolTip(tr("Click a task: its trace opens in the timeline and the roofline; below, where its time "
                              "goes, its operations and the alternatives"));
  connect(suite_table_, &QTableView::clicked, this, [this](const QModelIndex& i) { select_task(i.row()); });
  breakdown_model_ = new DataTableModel(this);
  ops_model_ = new DataTableModel(this);
  designs_model_ = new DataTableModel(this);
  tabs_ = new QTabWidget(this);
  tabs_->addTab(make_data_table_view(designs_model_, tabs_, nullptr, true), tr("Alternatives"));
  tabs_->addTab(make_data_table_view(breakdown_model_, tabs_, nullptr, true), tr("Where the time goes"));
  tabs_->addTab(make_data_table_view(ops_model_, tabs_, nullptr, true), tr("Operations"));
  task_status_ = new QLabel(this);
  task_status_->setWordWrap(true);
  task_status_->setContentsMargins(4, 2, 4, 2);
  auto* lower = new QWidget(this);
  auto* lv = new QVBoxLayout(lower);
  lv->setContentsMargins(0, 0, 0, 0);
  lv->addWidget(task_status_);
  lv->addWidget(tabs_, 1);
  // two tables in a splitter added up to 240 px, more than a bottom dock at 720 px can have
  suite_table_->setMinimumHeight(60);
  for (int i = 0; i < tabs_->count(); ++i) tabs_->widget(i)->setMinimumHeight(50);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(suite_table_);
  split->addWidget(lower);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(0, 0, 0, 0);
  v->addWidget(status_);
  v->addWidget(split, 1);
}

QString PkbSuiteView::status_text() const { return status_->message(); }
QString PkbSuiteView::task_text() const { return task_status_->text(); }
QString PkbSuiteView::task_tooltip() const { return task_status_->toolTip(); }

void PkbSuiteView::open_suite(const QString& dir, const QString& machine) {
  report_.reset();
  suite_model_->set_table({});
  status_->set_message(tr("analysing %1…").arg(dir));
  const std::string d = dir.toStdString(), m = machine.toStdString(), presets = topology_preset_dir();
  jobs_.start(
      [d, m, presets] {
        Outcome o;
        try {
          pkb::ReportOptions ro;
          ro.machine = m;
          ro.preset_dir = presets;
          auto r = std::make_shared<pkb::SuiteReport>(pkb::build_suite_report(d, ro));
          o.table = pkb::suite_table(*r);
          o.report = std::move(r);
        } catch (const std::exception& e) {
          o.error = QString::fromStdString(e.what());
        }
        return o;
      },
      [this](Outcome o) {
        if (!o.error.isEmpty()) {
          status_->set_message(o.error);
        } else {
          report_ = o.report;
          suite_model_->set_table(std::move(o.table));
          suite_table_->resizeColumnsToContents();
          for (int c = 0; c < suite_model_->columnCount(); ++c)
            suite_table_->setColumnWidth(c, std::min(suite_table_->columnWidth(c), 320));
          status_->set_message(tr("%1: world %2, %3 ok, %4 failed, on %5 (%6); tasks by gap = PKB's time / bound")
                               .arg(QString::fromStdString(report_->suite_dir))
                               .arg(report_->suite.world)
                               .arg(report_->ok)
                               .arg(report_->failed)
                               .arg(QString::fromStdString(report_->machine))
                               .arg(QString::fromStdString(report_->ceilings.gpu)));
        }
        emit updated();
      });
}

void PkbSuiteView::wait() {
  while (busy()) QApplication::processEvents(QEventLoop::AllEvents, 20);
}

void PkbSuiteView::select_task(int row) {
  if (!report_ || row < 0 || static_cast<size_t>(row) >= report_->tasks.size()) return;
  const pkb::TaskReport& t = report_->tasks[static_cast<size_t>(row)];
  suite_table_->selectRow(row);
  show_task(t);
  if (!t.trace_path.empty()) emit open_trace(QString::fromStdString(t.trace_path));
}

void PkbSuiteView::show_task(const pkb::TaskReport& t) {
  breakdown_model_->set_table(t.analyzed ? pkb::breakdown_table(t) : DataTable{});
  ops_model_->set_table(t.analyzed ? pkb::operations_table(t) : DataTable{});
  designs_model_->set_table(t.analyzed ? pkb::designs_table(t) : DataTable{});
  task_status_->setToolTip({});
  QString text = QString::fromStdString(t.record.stem);
  if (t.record.status != pkb::TaskStatus::kOk) {
    text += tr(": failed: %1").arg(QString::fromStdString(t.record.reason));
  } else if (!t.analyzed) {
    text += tr(": PKB %1 ms; %2").arg(t.perf.wall_time_ms_max, 0, 'f', 4).arg(QString::fromStdString(t.analysis_note));
  } else {
    const auto dur = [](double s) { return QString::fromStdString(format_duration(static_cast<TimeNs>(s * 1e9))); };
    const std::string why = t.designs.reason + (t.designs.reason.empty() || t.designs.note.empty() ? "" : "; ") + t.designs.note;
    text += tr(": PKB %1, bound %2 (%3), gap %4x. ")
                .arg(dur(t.reference_s), dur(t.bound.bound_s), QString::fromStdString(std::string(pkb::to_string(t.bound.binds))))
                .arg(t.bound.gap, 0, 'g', 4);
    // the line keeps to the figures; the reasons (one per design target, long on tasks with many
    // collectives) are the tooltip, and each target's note is in the Alternatives table
    QString tip = text;
    if (t.designs.best_label.empty()) {
      text += tr("No design to explore: %1").arg(QString::fromStdString(why));
      tip = text;
    } else {
      const QString best = QString::fromStdString(t.designs.best_label);
      const QString tail = tr(", %1 (%2x)").arg(dur(t.designs.best_task_s)).arg(t.designs.best_speedup, 0, 'f', 2);
      text += tr("Best: %1%2").arg(best.size() > 160 ? best.left(159) + QChar(0x2026) : best, tail);
      tip += tr("Best: %1%2: %3").arg(best, tail, QString::fromStdString(why));
    }
    if (!t.bound.note.empty()) tip += tr(". Bound: %1").arg(QString::fromStdString(t.bound.note));
    task_status_->setToolTip(tip);
  }
  task_status_->setText(text);
  for (QTableView* v : tabs_->findChildren<QTableView*>()) v->resizeColumnsToContents();
  tabs_->setCurrentIndex(0);
}

}  // namespace parascope::gui
