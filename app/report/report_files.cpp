#include "report/report_files.h"

#include <QCoreApplication>
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "report/report_html.h"
#include "report/report_pdf.h"
#include "trace/io/common/atomic_file.h"

namespace parascope::report {

namespace {

void write_atomic(const std::string& path, std::string_view bytes) {
  AtomicFile f(path);
  f.write(bytes);
  f.commit();
}

std::string join(const std::string& dir, const std::string& name) { return (std::filesystem::path(dir) / name).string(); }

void make_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error(dir + ": cannot create the directory: " + ec.message());
}

}  // namespace

ReportFormat report_format_for(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".html" || ext == ".htm") return ReportFormat::kHtml;
  if (ext == ".pdf") return ReportFormat::kPdf;
  throw std::invalid_argument(path + ": a report is .html or .pdf");
}

size_t write_report(const ReportDocument& doc, const std::string& path) {
  if (report_format_for(path) == ReportFormat::kHtml) {
    const std::string html = report_html(doc);
    write_atomic(path, html);
    return html.size();
  }
  const QByteArray pdf = report_pdf(doc);
  write_atomic(path, std::string_view(pdf.constData(), static_cast<size_t>(pdf.size())));
  return static_cast<size_t>(pdf.size());
}

std::vector<std::string> write_report_csv(const ReportDocument& doc, const std::string& dir) {
  make_dir(dir);
  std::vector<std::string> out;
  for (const DataTable* t : doc.tables()) {
    const std::string path = join(dir, t->id + ".csv");
    write_atomic(path, t->to_csv());
    out.push_back(path);
  }
  return out;
}

std::vector<std::string> write_report_figures(const ReportDocument& doc, const std::string& dir) {
  make_dir(dir);
  std::vector<std::string> out;
  for (const Figure* f : doc.figures()) {
    const QByteArray png = figure_png(*f);
    const QByteArray svg = figure_svg(*f);
    const std::string base = join(dir, f->id.toStdString());
    write_atomic(base + ".png", std::string_view(png.constData(), static_cast<size_t>(png.size())));
    write_atomic(base + ".svg", std::string_view(svg.constData(), static_cast<size_t>(svg.size())));
    out.push_back(base + ".png");
    out.push_back(base + ".svg");
  }
  return out;
}

std::unique_ptr<QApplication> offscreen_application() {
  if (QCoreApplication::instance()) return nullptr;
  if (!std::getenv("QT_QPA_PLATFORM")) ::setenv("QT_QPA_PLATFORM", "offscreen", 1);
  // Qt's note that it picked a runtime directory itself is noise on a command line
  static QtMessageHandler previous = qInstallMessageHandler([](QtMsgType type, const QMessageLogContext& ctx, const QString& msg) {
    if (msg.startsWith("QStandardPaths: XDG_RUNTIME_DIR not set")) return;
    if (previous) previous(type, ctx, msg);
  });
  static int argc = 1;
  static char name[] = "parascope-cli";
  static char* argv[] = {name, nullptr};
  return std::make_unique<QApplication>(argc, argv);
}

}  // namespace parascope::report
