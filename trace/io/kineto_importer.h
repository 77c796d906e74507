// Kineto / Chrome JSON → trace model. Understands the PyTorch profiler's flavour (GPU events keyed
// by args.device/stream, deviceProperties, distributedInfo, baseTimeNanoseconds, NCCL args on
// kernels, correlation ids linking launches to kernels, [memory] instants) and plain Chrome trace
// events (X, B/E, i/I/R, C, M, async b/e/n, flows s/t/f and bind_id). One file is one process/rank
// unless several files of one worker share a WorkerJoin (TensorBoard folders hold one file per
// profiling cycle): then they become one process. Ids (flows, async, correlation) are namespaced per
// file. Each file's clock offset is recorded in its Process (clock_offset_ns + reason).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "trace/core/trace_builder.h"
#include "trace/io/byte_source.h"

namespace parascope {

// State shared by the files of one worker so they land in one process with the same devices and
// tracks. Create one per worker and pass it to every import_chrome_json of that worker.
class WorkerJoin {
 public:
  WorkerJoin();
  ~WorkerJoin();
  WorkerJoin(const WorkerJoin&) = delete;
  WorkerJoin& operator=(const WorkerJoin&) = delete;
  struct State;
  State& state() { return *state_; }

 private:
  std::unique_ptr<State> state_;
};

struct ImportOptions {
  bool lenient = false;  // skip malformed events (counted in warnings) instead of failing
  std::function<void(uint64_t done, uint64_t total)> progress;
  const std::atomic<bool>* cancel = nullptr;
  WorkerJoin* join = nullptr;  // files of one worker: one process
  size_t block_bytes = 0;      // parser block size; 0: the parser's default (tests and fuzzing shrink it)
};

struct FileImportReport {
  std::string file;
  int64_t events = 0;
  int64_t skipped = 0;          // malformed events skipped (--lenient)
  int64_t unknown_phases = 0;
  uint64_t json_bytes = 0;
  int32_t rank = -1;
  TimeNs clock_offset_ns = 0;
  std::string clock_offset_reason;
  int64_t flows = 0;            // Flows added: launch (correlation) + bound flow events
  int64_t unbound_flow_events = 0;
  int64_t async_slices = 0;
  std::string joined_with;      // first file of the same worker, when this one was merged into it
};

// Imports one JSON file (plain or gzip) into `builder`. Throws InputError naming the file and the
// place on malformed input.
FileImportReport import_chrome_json(const std::string& path, TraceBuilder& builder, const ImportOptions& options = {});
// The same over an open source (memory, tests, fuzzing); errors name source.path().
FileImportReport import_chrome_json(ByteSource& source, TraceBuilder& builder, const ImportOptions& options = {});

}  // namespace parascope
