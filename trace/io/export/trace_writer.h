// The one entry point for exports: picks the writer from the output name's extension —
// .json / .json.gz (Chrome/Kineto JSON), .pftrace (Perfetto protobuf), .sqlite / .db (SQLite),
// .csv (a table), .pstrace (native) — and reports what was
// written. Every writer is atomic: the destination appears only when the export completed.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "trace/core/trace.h"

namespace parascope {

enum class ExportFormat { kUnknown, kChromeJson, kPerfetto, kSqlite, kCsv, kPstrace };
std::string_view to_string(ExportFormat f);
ExportFormat export_format_from_path(const std::string& path);

enum class CsvTable { kSlices, kKernelStats };

struct ExportOptions {
  bool merged_json = false;            // JSON: one file for every rank (viewers) instead of one per rank
  CsvTable csv_table = CsvTable::kSlices;
  std::function<void(uint64_t done, uint64_t total)> progress;
};

struct ExportResult {
  ExportFormat format = ExportFormat::kUnknown;
  std::vector<std::string> files;
  std::vector<std::string> warnings;
};

// Whether this build can write the format (SQLite needs PARASCOPE_HAVE_SQLITE; the native
// .pstrace writer is not merged yet). `why` says what is missing.
bool export_available(ExportFormat f, std::string* why = nullptr);

// Throws std::runtime_error for an unknown or unavailable format and for write errors.
ExportResult write_trace(const Trace& trace, const std::string& path, const ExportOptions& options = {});

}  // namespace parascope
