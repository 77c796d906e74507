#include "trace/io/export/trace_writer.h"

#include <stdexcept>

#include "trace/core/analysis/kernel_stats.h"
#include "trace/io/export/csv_writer.h"
#include "trace/io/export/perfetto_writer.h"
#include "trace/io/export/sqlite_writer.h"
#include "trace/io/json/chrome_json_writer.h"
#include "trace/io/pstrace/pstrace_writer.h"

namespace parascope {

namespace {
bool ends_with(const std::string& s, std::string_view suffix) {
  if (s.size() < suffix.size()) return false;
  for (size_t i = 0; i < suffix.size(); ++i) {
    char c = s[s.size() - suffix.size() + i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != suffix[i]) return false;
  }
  return true;
}
}  // namespace

std::string_view to_string(ExportFormat f) {
  switch (f) {
    case ExportFormat::kUnknown: return "unknown";
    case ExportFormat::kChromeJson: return "chrome-json";
    case ExportFormat::kPerfetto: return "perfetto";
    case ExportFormat::kSqlite: return "sqlite";
    case ExportFormat::kCsv: return "csv";
    case ExportFormat::kPstrace: return "pstrace";
  }
  return "?";
}

ExportFormat export_format_from_path(const std::string& path) {
  if (ends_with(path, ".json") || ends_with(path, ".json.gz")) return ExportFormat::kChromeJson;
  if (ends_with(path, ".pftrace") || ends_with(path, ".perfetto-trace")) return ExportFormat::kPerfetto;
  if (ends_with(path, ".sqlite") || ends_with(path, ".db") || ends_with(path, ".sqlite3")) return ExportFormat::kSqlite;
  if (ends_with(path, ".csv")) return ExportFormat::kCsv;
  if (ends_with(path, ".pstrace")) return ExportFormat::kPstrace;
  return ExportFormat::kUnknown;
}

bool export_available(ExportFormat f, std::string* why) {
  switch (f) {
    case ExportFormat::kChromeJson:
    case ExportFormat::kPerfetto:
    case ExportFormat::kCsv:
    case ExportFormat::kPstrace: return true;
    case ExportFormat::kSqlite:
      if (sqlite_export_available()) return true;
      if (why) *why = "SQLite export needs a build with SQLite (PARASCOPE_SQLITE=ON and sqlite3 installed)";
      return false;
    case ExportFormat::kUnknown:
      if (why) *why = "unknown output format; use .pstrace, .json, .json.gz, .pftrace, .sqlite or .csv";
      return false;
  }
  return false;
}

ExportResult write_trace(const Trace& trace, const std::string& path, const ExportOptions& options) {
  ExportResult r;
  r.format = export_format_from_path(path);
  std::string why;
  if (!export_available(r.format, &why)) throw std::runtime_error(path + ": " + why);
  switch (r.format) {
    case ExportFormat::kChromeJson: {
      ChromeJsonWriteOptions o;
      o.merged = options.merged_json;
      o.progress = options.progress;
      ChromeJsonWriteResult w = write_chrome_json(trace, path, o);
      r.files = std::move(w.files);
      r.warnings = std::move(w.warnings);
      break;
    }
    case ExportFormat::kPerfetto: {
      PerfettoWriteOptions o;
      o.progress = options.progress;
      PerfettoWriteResult w = write_perfetto(trace, path, o);
      r.files = std::move(w.files);
      r.warnings = std::move(w.warnings);
      break;
    }
    case ExportFormat::kSqlite:
      write_sqlite(trace, path, options.progress);
      r.files.push_back(path);
      break;
    case ExportFormat::kCsv:
      if (options.csv_table == CsvTable::kKernelStats) write_kernel_stats_csv(trace, kernel_stats(trace), path);
      else write_slices_csv(trace, path, options.progress);
      r.files.push_back(path);
      break;
    case ExportFormat::kPstrace:
      write_pstrace(trace, path);  // atomic: a temporary file renamed on success
      r.files.push_back(path);
      break;
    case ExportFormat::kUnknown: break;
  }
  return r;
}

}  // namespace parascope
