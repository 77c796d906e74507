#include "trace/io/load_trace.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "trace/core/error.h"
#include "trace/core/trace_builder.h"
#include "trace/io/chunk_reader.h"

namespace parascope {

namespace fs = std::filesystem;

std::string_view to_string(TraceFormat f) {
  switch (f) {
    case TraceFormat::kUnknown: return "unknown";
    case TraceFormat::kChromeJson: return "chrome-json";
    case TraceFormat::kPstrace: return "pstrace";
    case TraceFormat::kNsysSqlite: return "nsys-sqlite";
    case TraceFormat::kNsysRep: return "nsys-rep";
  }
  return "?";
}

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
  InputLocation where;
  where.file = path;
  throw InputError(where, problem);
}

bool has_suffix(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_trace_file_name(const std::string& name) {
  return has_suffix(name, ".json") || has_suffix(name, ".json.gz") || has_suffix(name, ".pstrace") ||
         has_suffix(name, ".sqlite") || has_suffix(name, ".nsys-rep");
}

}  // namespace

TraceFormat detect_format(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) fail(path, "is a directory, expected a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, std::string("cannot open: ") + std::strerror(errno));
  char head[16] = {};
  in.read(head, sizeof head);
  const auto n = static_cast<size_t>(in.gcount());
  if (n >= 8 && std::memcmp(head, "PSTRACE", 8) == 0) return TraceFormat::kPstrace;
  if (n >= 16 && std::memcmp(head, "SQLite format 3", 16) == 0) return TraceFormat::kNsysSqlite;
  if (has_suffix(path, ".nsys-rep") || has_suffix(path, ".qdrep")) return TraceFormat::kNsysRep;
  if (n >= 2 && static_cast<unsigned char>(head[0]) == 0x1f && static_cast<unsigned char>(head[1]) == 0x8b)
    return TraceFormat::kChromeJson;  // gzip: the JSON reader decompresses
  for (size_t i = 0; i < n; ++i) {
    const char c = head[i];
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '{' || c == '[') return TraceFormat::kChromeJson;
    if (i == 0 && static_cast<unsigned char>(c) == 0xEF) continue;  // UTF-8 BOM
    break;
  }
  if (has_suffix(path, ".json") || has_suffix(path, ".json.gz")) return TraceFormat::kChromeJson;
  return TraceFormat::kUnknown;
}

std::vector<std::string> expand_inputs(const std::vector<std::string>& inputs) {
  std::vector<std::string> out;
  for (const std::string& in : inputs) {
    std::error_code ec;
    const auto st = fs::status(in, ec);
    if (ec || !fs::exists(st)) fail(in, "no such file or directory");
    if (!fs::is_directory(st)) {
      out.push_back(in);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(in, ec)) {
      if (!entry.is_regular_file()) continue;
      const std::string name = entry.path().filename().string();
      if (name == "manifest.json") continue;  // `record` output: the manifest describes the .pstrace files
      if (is_trace_file_name(name)) found.push_back(entry.path().string());
    }
    if (ec) fail(in, "cannot list directory: " + ec.message());
    if (found.empty()) fail(in, "directory holds no trace files (*.json, *.json.gz, *.pstrace, *.sqlite)");
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

Trace load_trace(const std::vector<std::string>& inputs, const LoadOptions& options, LoadReport* report) {
  const std::vector<std::string> files = expand_inputs(inputs);
  TraceBuilder builder;
  std::vector<std::string> formats;
  for (const std::string& f : files) {
    const TraceFormat fmt = detect_format(f);
    switch (fmt) {
      case TraceFormat::kChromeJson: {
        ImportOptions io;
        io.lenient = options.lenient;
        io.cancel = options.cancel;
        if (options.progress) io.progress = [&](uint64_t d, uint64_t t) { options.progress(f, d, t); };
        FileImportReport r = import_chrome_json(f, builder, io);
        if (report) report->files.push_back(std::move(r));
        formats.emplace_back("chrome-json");
        break;
      }
      case TraceFormat::kNsysRep:
        fail(f, "is an Nsight Systems report; export it first: nsys export --type sqlite -o trace.sqlite " + f);
      case TraceFormat::kPstrace:
        fail(f, "native .pstrace import is not available in this build yet");
      case TraceFormat::kNsysSqlite:
        fail(f, "Nsight Systems SQLite import is not available in this build yet");
      case TraceFormat::kUnknown: {
        std::error_code ec;
        if (fs::file_size(f, ec) == 0 && !ec) fail(f, "empty file");
        fail(f, "unrecognised format (expected Chrome/Kineto JSON, .json.gz, .pstrace or an Nsight Systems SQLite export)");
      }
    }
  }
  Trace t = builder.finish();
  std::sort(formats.begin(), formats.end());
  formats.erase(std::unique(formats.begin(), formats.end()), formats.end());
  for (size_t i = 0; i < formats.size(); ++i) t.source_format += (i ? "+" : "") + formats[i];
  return t;
}

}  // namespace parascope
