// Writing a report to disk: the document as .html or .pdf (format from the extension), every table
// as DIR/<id>.csv and every figure as DIR/<id>.png + DIR/<id>.svg. Every file is atomic
// (trace/io/common/atomic_file.h: temp file + rename), so a failed export never leaves a half-written
// file under the user's name. Writers need a QGuiApplication (fonts): command-line callers make
// one with offscreen_application().
#pragma once

#include <QApplication>
#include <memory>
#include <string>
#include <vector>

#include "report/report_document.h"

namespace parascope::report {

enum class ReportFormat : uint8_t { kHtml, kPdf };
// From the extension (.html, .htm, .pdf; any case); std::invalid_argument naming the path otherwise.
ReportFormat report_format_for(const std::string& path);

// Throws std::runtime_error naming the file on write errors. Returns the bytes written.
size_t write_report(const ReportDocument& doc, const std::string& path);
// Creates `dir` when missing; returns the files written, in document order.
std::vector<std::string> write_report_csv(const ReportDocument& doc, const std::string& dir);
std::vector<std::string> write_report_figures(const ReportDocument& doc, const std::string& dir);

// A QApplication on the offscreen platform (unless QT_QPA_PLATFORM names one) when none exists
// yet; nullptr when one does. Charts need a QApplication, not just a QGuiApplication.
std::unique_ptr<QApplication> offscreen_application();

}  // namespace parascope::report
