#include "trace/io/load_trace.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>

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

std::string tensorboard_worker(const std::string& path, uint64_t* stamp) {
  const fs::path p(path);
  std::string name = p.filename().string();
  for (std::string_view suffix : {".pt.trace.json.gz", ".pt.trace.json"}) {
    if (!has_suffix(name, suffix)) continue;
    name.resize(name.size() - suffix.size());
    const size_t dot = name.rfind('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 == name.size()) return {};
    uint64_t t = 0;
    for (size_t i = dot + 1; i < name.size(); ++i) {
      if (name[i] < '0' || name[i] > '9') return {};
      t = t * 10 + static_cast<uint64_t>(name[i] - '0');
    }
    if (stamp) *stamp = t;
    return (p.parent_path() / name.substr(0, dot)).string();
  }
  return {};
}

Trace load_trace(const std::vector<std::string>& inputs, const LoadOptions& options, LoadReport* report) {
  const std::vector<std::string> inputs_expanded = expand_inputs(inputs);
  // Files of one worker load one after the other, in time order, into one process.
  std::map<std::string, std::vector<std::pair<uint64_t, std::string>>> workers;
  for (const std::string& f : inputs_expanded) {
    uint64_t stamp = 0;
    const std::string w = tensorboard_worker(f, &stamp);
    if (!w.empty()) workers[w].emplace_back(stamp, f);
  }
  std::map<std::string, std::string> worker_of;  // file → worker, for groups of two or more
  for (auto& [w, list] : workers) {
    if (list.size() < 2) continue;
    std::sort(list.begin(), list.end());
    for (const auto& entry : list) worker_of[entry.second] = w;
  }
  std::vector<std::string> files;
  for (const std::string& f : inputs_expanded) {
    auto w = worker_of.find(f);
    if (w == worker_of.end()) {
      files.push_back(f);
      continue;
    }
    const auto& list = workers[w->second];
    if (std::find(files.begin(), files.end(), list.front().second) != files.end()) continue;  // group placed already
    WorkerMerge m;
    m.worker = w->second;
    for (const auto& entry : list) {
      files.push_back(entry.second);
      m.files.push_back(entry.second);
    }
    if (report) report->merged.push_back(std::move(m));
  }
  std::map<std::string, std::unique_ptr<WorkerJoin>> joins;
  std::vector<std::string> json_based, json_unbased;  // JSON files with / without baseTimeNanoseconds
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
        if (auto w = worker_of.find(f); w != worker_of.end()) {
          auto& join = joins[w->second];
          if (!join) join = std::make_unique<WorkerJoin>();
          io.join = join.get();
        }
        FileImportReport r = import_chrome_json(f, builder, io);
        (r.clock_offset_reason == "baseTimeNanoseconds" ? json_based : json_unbased).push_back(f);
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
  // Files with and without baseTimeNanoseconds cannot be put on one clock with certainty.
  if (!json_based.empty())
    for (const auto& f : json_unbased)
      builder.warn(f + ": no baseTimeNanoseconds while " + json_based.front() +
                   " has one: its clock may not line up with the other files (no offset applied)");
  Trace t = builder.finish();
  std::sort(formats.begin(), formats.end());
  formats.erase(std::unique(formats.begin(), formats.end()), formats.end());
  for (size_t i = 0; i < formats.size(); ++i) t.source_format += (i ? "+" : "") + formats[i];
  return t;
}

}  // namespace parascope
