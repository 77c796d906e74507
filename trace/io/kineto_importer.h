// Kineto / Chrome JSON → trace model. Understands the PyTorch profiler's flavour (GPU events keyed
// by args.device/stream, deviceProperties, distributedInfo, baseTimeNanoseconds, NCCL args on
// kernels, correlation ids linking launches to kernels) and plain Chrome trace events (X, B/E, i,
// C, M). One file is one process/rank; several files merge into one trace on one clock, the
// offset applied to each file recorded in its Process (clock_offset_ns + reason).
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include "trace/core/trace_builder.h"

namespace parascope {

struct ImportOptions {
  bool lenient = false;  // skip malformed events (counted in warnings) instead of failing
  std::function<void(uint64_t done, uint64_t total)> progress;
  const std::atomic<bool>* cancel = nullptr;
};

struct FileImportReport {
  std::string file;
  int64_t events = 0;
  int64_t skipped = 0;
  int64_t unknown_phases = 0;
  uint64_t json_bytes = 0;
  int32_t rank = -1;
  TimeNs clock_offset_ns = 0;
  std::string clock_offset_reason;
};

// Imports one JSON file (plain or gzip) into `builder`. Throws InputError naming the file and the
// place on malformed input.
FileImportReport import_chrome_json(const std::string& path, TraceBuilder& builder, const ImportOptions& options = {});

}  // namespace parascope
