// sim headers first: sim/workload.h names a member `slots`, which Qt's headers make a keyword
#include "sim/knobs.h"

#include "gui/report_export.h"

#include <QApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QSettings>

#include "gui/presets.h"
#include "report/report_builder.h"
#include "report/report_files.h"

namespace parascope::gui {

QString export_report(std::shared_ptr<const Trace> trace, const ReportRequest& request) {
  if (!trace) return QObject::tr("No trace loaded");
  try {
    report::ReportOptions o;
    for (const QString& i : request.inputs) o.inputs.push_back(i.toStdString());
    o.ranges = request.ranges;
    o.presets = topology_presets();
    for (const QString& kv : request.whatif) {
      const qsizetype eq = kv.indexOf('=');
      if (eq <= 0) return QObject::tr("What-if knobs are KNOB=VALUE, not '%1'").arg(kv);
      o.whatif.set(kv.left(eq).trimmed().toStdString(), kv.mid(eq + 1).trimmed().toStdString());
    }
    report::report_format_for(request.path.toStdString());
    const report::ReportDocument doc = report::build_report(std::move(trace), o);
    report::write_report(doc, request.path.toStdString());
    return {};
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
}

QString offered_report_knobs(bool has_run, const QStringList& run_knobs, const QString& typed_last) {
  return has_run ? run_knobs.join(' ') : typed_last;
}

bool ask_report_request(QWidget* parent, ReportRequest& request, bool has_run, const QStringList& run_knobs) {
  QSettings settings;
  const QString start = settings.value("report/last_path", "report.html").toString();
  const QString path = QFileDialog::getSaveFileName(parent, QObject::tr("Export report"), start,
                                                    QObject::tr("HTML report, one file (*.html);;PDF report (*.pdf)"));
  if (path.isEmpty()) return false;
  bool ok = false;
  const QString from = has_run ? QObject::tr("Offered: the what-if dock's last run (%1).")
                                     .arg(run_knobs.isEmpty() ? QObject::tr("the plain replay, no knobs") : run_knobs.join(' '))
                               : QObject::tr("No what-if run yet: offered are the knobs typed last time.");
  const QString knobs = QInputDialog::getText(
      parent, QObject::tr("Export report"),
      QObject::tr("What-if knobs to compare, KNOB=VALUE separated by spaces (empty: no what-if section),\n"
                  "e.g. comm_stream=side or fabric=pcie. %1").arg(from),
      QLineEdit::Normal, offered_report_knobs(has_run, run_knobs, settings.value("report/last_whatif").toString()), &ok);
  if (!ok) return false;
  settings.setValue("report/last_path", path);
  settings.setValue("report/last_whatif", knobs);
  request.path = QFileInfo(path).suffix().isEmpty() ? path + ".html" : path;
  request.whatif = knobs.split(' ', Qt::SkipEmptyParts);
  return true;
}

}  // namespace parascope::gui
