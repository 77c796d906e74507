// What every file importer shares: the options a caller passes (lenient, progress, cancel, the
// worker a file joins), the report one file's import returns, and the exception a cancelled import
// throws. The JSON, Nsight and native readers and load_trace include this, not each other.
// A WorkerJoin is opaque here; the JSON importer, which merges a worker's files, defines its state.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>

#include "trace/core/time.h"

namespace parascope {

// Thrown by an importer whose cancel flag was set (checked between blocks, chunks or row batches).
struct OperationCancelled : std::exception {
  const char* what() const noexcept override { return "cancelled"; }
};

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

}  // namespace parascope
