#include "trace/io/load_trace.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>

#include "trace/core/error.h"
#include "trace/core/trace_builder.h"
#include "trace/io/collector/record_manifest.h"
#include "trace/io/json/kineto_importer.h"
#include "trace/io/pstrace/chunk_reader.h"
#include "trace/io/pstrace/pstrace_reader.h"
#ifdef PARASCOPE_HAVE_SQLITE
#include "trace/io/nsys/nsys_sqlite_reader.h"
#endif

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

namespace {

struct InputFile {
  std::string path;
  std::optional<Process> identity;  // from a record manifest
};

// A `record` directory: the manifest's files in its order, then any .pstrace it does not list
// (other_files, which belong to other runs in the same directory, are left out). What the manifest
// says about how the run ended becomes warnings: the command's exit status, a process ended by a
// signal, a status other than "recording" (the reader says itself when a file has no index).
void expand_record_dir(const std::string& dir, std::vector<InputFile>& out, std::vector<std::string>& warnings) {
  const std::string manifest_path = (fs::path(dir) / kRecordManifestName).string();
  const RecordManifest m = load_record_manifest(manifest_path);
  if (!m.exit_signal.empty())
    warnings.push_back(manifest_path + ": the recorded command was killed by " + m.exit_signal);
  else if (m.exit_code && *m.exit_code != 0)
    warnings.push_back(manifest_path + ": the recorded command exited with status " + std::to_string(*m.exit_code));
  std::vector<std::string> listed;
  for (const RecordFile& f : m.files) {
    const std::string p = (fs::path(dir) / f.path).string();
    listed.push_back(f.path);
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) {
      warnings.push_back(manifest_path + ": lists " + f.path + " (rank " + std::to_string(f.rank) +
                         "), which is missing; that process wrote nothing");
      continue;
    }
    // a file without index is said by the reader ("has no end index"); here: how the process ended
    if (f.complete && !f.end_reason.empty() && f.end_reason != "exit")
      warnings.push_back(manifest_path + ": " + f.path + ": its process ended by " + f.end_reason +
                         " (the collector closed the file)");
    else if (f.status == "blocked")
      warnings.push_back(manifest_path + ": " + f.path + ": another tool held CUPTI; this process is NOT traced");
    else if (!f.status.empty() && f.status != "recording" && f.status != "unfinished")
      warnings.push_back(manifest_path + ": " + f.path + " has status \"" + f.status + "\"");
    Process id;
    id.host = f.host;
    id.pid = f.pid;
    id.rank = f.rank;
    // without a rank the reader names the process after its program (the file's metadata)
    id.name = !f.rank_name.empty() ? f.rank_name : f.rank >= 0 ? "rank " + std::to_string(f.rank) : "";
    out.push_back({p, id});
  }
  listed.insert(listed.end(), m.other_files.begin(), m.other_files.end());
  std::vector<std::string> extra;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && has_suffix(name, ".pstrace") &&
        std::find(listed.begin(), listed.end(), name) == listed.end())
      extra.push_back(name);
  }
  std::sort(extra.begin(), extra.end());
  for (const std::string& name : extra) {
    warnings.push_back(manifest_path + ": does not list " + name + "; loaded it as well");
    out.push_back({(fs::path(dir) / name).string(), std::nullopt});
  }
  if (!m.other_files.empty())
    warnings.push_back(manifest_path + ": " + std::to_string(m.other_files.size()) +
                       " older trace file(s) in the directory belong to other runs (other_files); not loaded");
  if (out.empty()) fail(dir, "record directory holds none of the files its manifest.json lists");
}

std::vector<InputFile> expand_input_files(const std::vector<std::string>& inputs, std::vector<std::string>& warnings) {
  std::vector<InputFile> out;
  for (const std::string& in : inputs) {
    std::error_code ec;
    const auto st = fs::status(in, ec);
    if (ec || !fs::exists(st)) fail(in, "no such file or directory");
    if (!fs::is_directory(st)) {
      out.push_back({in, std::nullopt});
      continue;
    }
    if (fs::is_regular_file(fs::path(in) / kRecordManifestName, ec)) {
      expand_record_dir(in, out, warnings);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(in, ec)) {
      if (!entry.is_regular_file()) continue;
      const std::string name = entry.path().filename().string();
      if (is_trace_file_name(name)) found.push_back(entry.path().string());
    }
    if (ec) fail(in, "cannot list directory: " + ec.message());
    if (found.empty()) fail(in, "directory holds no trace files (*.json, *.json.gz, *.pstrace, *.sqlite)");
    std::sort(found.begin(), found.end());
    for (std::string& f : found) out.push_back({std::move(f), std::nullopt});
  }
  return out;
}

}  // namespace

std::vector<std::string> expand_inputs(const std::vector<std::string>& inputs) {
  std::vector<std::string> warnings, out;
  for (InputFile& f : expand_input_files(inputs, warnings)) out.push_back(std::move(f.path));
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
  std::vector<std::string> expand_warnings;
  const std::vector<InputFile> expanded = expand_input_files(inputs, expand_warnings);
  // Files of one TensorBoard worker load one after the other, in time order, into one process.
  std::map<std::string, std::vector<std::pair<uint64_t, std::string>>> workers;
  for (const InputFile& f : expanded) {
    uint64_t stamp = 0;
    const std::string w = tensorboard_worker(f.path, &stamp);
    if (!w.empty()) workers[w].emplace_back(stamp, f.path);
  }
  std::map<std::string, std::string> worker_of;  // file → worker, for groups of two or more
  for (auto& [w, list] : workers) {
    if (list.size() < 2) continue;
    std::sort(list.begin(), list.end());
    for (const auto& entry : list) worker_of[entry.second] = w;
  }
  std::vector<InputFile> files;
  for (const InputFile& f : expanded) {
    auto w = worker_of.find(f.path);
    if (w == worker_of.end()) {
      files.push_back(f);
      continue;
    }
    const auto& list = workers[w->second];
    const bool placed = std::any_of(files.begin(), files.end(), [&](const InputFile& x) { return x.path == list.front().second; });
    if (placed) continue;
    WorkerMerge m;
    m.worker = w->second;
    for (const auto& entry : list) {
      files.push_back({entry.second, std::nullopt});
      m.files.push_back(entry.second);
    }
    if (report) report->merged.push_back(std::move(m));
  }
  std::map<std::string, std::unique_ptr<WorkerJoin>> joins;
  std::vector<std::string> json_based, json_unbased;  // JSON files with / without baseTimeNanoseconds
  TraceBuilder builder;
  for (std::string& w : expand_warnings) builder.warn(std::move(w));
  std::vector<std::string> formats;
  for (const InputFile& input : files) {
    const std::string& f = input.path;
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
      case TraceFormat::kPstrace: {
        PstraceReadOptions po;
        po.cancel = options.cancel;
        po.default_process = input.identity;
        if (options.progress) po.progress = [&](uint64_t d, uint64_t t) { options.progress(f, d, t); };
        const size_t first_process = builder.trace().processes.size();
        const PstraceFileReport r = import_pstrace(f, builder, po);
        if (report) {
          FileImportReport fr;
          fr.file = f;
          fr.events = r.slices + r.counter_samples + r.cupti_records + r.probe_records;
          const auto& procs = builder.trace().processes;
          if (procs.size() > first_process) {
            fr.rank = procs[first_process].rank;
            fr.clock_offset_ns = procs[first_process].clock_offset_ns;
            fr.clock_offset_reason = procs[first_process].clock_offset_reason;
          }
          report->files.push_back(std::move(fr));
        }
        formats.emplace_back("pstrace");
        break;
      }
      case TraceFormat::kNsysSqlite: {
#ifdef PARASCOPE_HAVE_SQLITE
        NsysImportOptions no;
        no.cancel = options.cancel;
        if (options.progress) no.progress = [&](uint64_t d, uint64_t t) { options.progress(f, d, t); };
        FileImportReport r = import_nsys_sqlite(f, builder, no);
        if (report) report->files.push_back(std::move(r));
        formats.emplace_back("nsys-sqlite");
        break;
#else
        fail(f, "is an Nsight Systems SQLite export, and this build has no SQLite support (configure with PARASCOPE_SQLITE=ON)");
#endif
      }
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
