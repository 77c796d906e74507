#include "trace/io/json/kineto_importer.h"

#include "trace/core/error.h"
#include "trace/io/json/byte_source.h"
#include "trace/io/json/chrome_json_parser.h"
#include "trace/io/json/importer.h"

namespace parascope {

WorkerJoin::WorkerJoin() : state_(std::make_unique<State>()) {}
WorkerJoin::~WorkerJoin() = default;

FileImportReport import_chrome_json(const std::string& path, TraceBuilder& builder, const ImportOptions& options) {
  auto src = open_byte_source(path);
  return import_chrome_json(*src, builder, options);
}

FileImportReport import_chrome_json(ByteSource& source, TraceBuilder& builder, const ImportOptions& options) {
  const std::string& path = source.path();
  FileImportReport report;
  report.file = path;
  WorkerJoin local;
  WorkerJoin::State& w = options.join ? options.join->state() : local.state();
  if (w.files++ == 0) w.first_file = path;
  else report.joined_with = w.first_file;
  kineto::Importer importer(path, builder, report, w);
  ChromeJsonOptions jo;
  jo.lenient = options.lenient;
  jo.progress = options.progress;
  jo.cancel = options.cancel;
  if (options.block_bytes) jo.block_bytes = options.block_bytes;
  const ChromeJsonStats stats = parse_chrome_json(source, importer, jo);
  if (stats.events == 0 && stats.json_bytes == 0) {
    InputLocation where;
    where.file = path;
    throw InputError(where, "empty file");
  }
  importer.finish(stats);
  builder.trace().source_files.push_back(path);
  return report;
}

}  // namespace parascope
