// The report as ONE self-contained HTML file: styles inline, every figure inline as SVG (vector
// charts; timelines as a PNG data: URI, the SVG as a download link) with the other format as a
// data: download link, every table complete (numbers exact in data-value attributes, the unit and
// JSON key of each column in data-unit / data-key). Well-formed XML (XHTML syntax, no named
// entities), so tests and scripts can read it with any XML parser.
#pragma once

#include <string>

#include "report/report_document.h"

namespace parascope::report {

std::string report_html(const ReportDocument& doc);

}  // namespace parascope::report
