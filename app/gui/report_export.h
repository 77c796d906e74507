// File → Export report…: the report of the trace on screen, built by the report library
// (app/report: the same document `parascope-cli report` writes), with the box-selected range as an
// extra timeline range and optional what-if knobs, written atomically as .html or .pdf.
#pragma once

#include <QString>
#include <QStringList>
#include <memory>
#include <vector>

#include "trace/core/analysis/intervals.h"
#include "trace/core/trace.h"

class QWidget;

namespace parascope::gui {

struct ReportRequest {
  QString path;             // .html or .pdf
  QStringList inputs;       // named in the report's metadata
  std::vector<Interval> ranges;
  QStringList whatif;       // "knob=value"; empty: no what-if section
};

// Builds and writes the report; an empty string on success, else the message to show.
QString export_report(std::shared_ptr<const Trace> trace, const ReportRequest& request);
// The knobs the dialog offers: those of the what-if dock's last finished run when there is one (an
// empty list there: the plain replay, no knobs), else the ones the user typed last time.
QString offered_report_knobs(bool has_run, const QStringList& run_knobs, const QString& typed_last);
// Asks where to write and which knobs to compare (empty: none), starting from `offered` and saying
// where it came from; false when the user cancelled.
bool ask_report_request(QWidget* parent, ReportRequest& request, bool has_run = false, const QStringList& run_knobs = {});

}  // namespace parascope::gui
