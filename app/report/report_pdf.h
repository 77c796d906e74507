// The report as a PDF (QPdfWriter + QPainter, A4 landscape): headings, facts, tables paginated
// with their header repeated, and every figure drawn by its own paint function (vector where the
// render library draws vectors) and kept whole on one page — moved to the next page when it does
// not fit, scaled down only when it is taller than a page. Long tables show their first
// `shown_rows` rows and say how many more the HTML and CSV hold.
#pragma once

#include <QByteArray>

#include "report/report_document.h"

namespace parascope::report {

QByteArray report_pdf(const ReportDocument& doc);

}  // namespace parascope::report
