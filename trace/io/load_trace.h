// The one entry point that turns user inputs into a Trace: files of any supported format, or
// directories of per-rank files (TensorBoard *.pt.trace.json(.gz) folders, `record` output).
// Formats are recognised by content first, name second. Several inputs merge into one trace on
// one clock; what was applied to each file is in LoadReport.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "trace/core/trace.h"
#include "trace/io/common/file_import.h"

namespace parascope {

enum class TraceFormat { kUnknown, kChromeJson, kPstrace, kNsysSqlite, kNsysRep };
std::string_view to_string(TraceFormat f);

// Sniffs the first bytes (and the name for .nsys-rep); InputError if the file cannot be read.
TraceFormat detect_format(const std::string& path);

// Expands directories into the trace files inside them (sorted by name); files pass through.
// InputError for a missing path or a directory with no trace files.
std::vector<std::string> expand_inputs(const std::vector<std::string>& inputs);

struct LoadOptions {
  bool lenient = false;
  std::function<void(const std::string& file, uint64_t done, uint64_t total)> progress;
  const std::atomic<bool>* cancel = nullptr;
};

// Files of one worker (TensorBoard's `<worker>.<time>.pt.trace.json[.gz]`, one per profiling
// cycle) load into one process; each such group is listed here.
struct WorkerMerge {
  std::string worker;              // directory + "/" + worker name
  std::vector<std::string> files;  // in time order
};

struct LoadReport {
  std::vector<FileImportReport> files;
  std::vector<WorkerMerge> merged;
};

// The worker a TensorBoard trace file belongs to ("dir/rank0" for dir/rank0.1796.pt.trace.json.gz),
// with its time stamp; empty when the name does not follow that pattern.
std::string tensorboard_worker(const std::string& path, uint64_t* stamp = nullptr);

// Loads and merges; throws InputError (file + place + problem) on bad input.
Trace load_trace(const std::vector<std::string>& inputs, const LoadOptions& options = {}, LoadReport* report = nullptr);

}  // namespace parascope
