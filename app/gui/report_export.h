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
// Asks where to write and which knobs to compare (empty: none); false when the user cancelled.
bool ask_report_request(QWidget* parent, ReportRequest& request);

}  // namespace parascope::gui
