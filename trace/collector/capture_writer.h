// CaptureWriter: the collector's only path to disk. Producers (CUPTI buffer callbacks, the NCCL
// plugin, probe submissions) only queue work; one writer thread converts CUPTI buffers, appends
// chunks through ChunkWriter and runs a periodic hook (CUPTI's default flush, PM-sampling decode)
// every flush period. What stays true:
//   - a chunk is on disk (in the kernel's page cache, so it survives SIGKILL) once the writer has
//     taken it from the queue; SIGKILL loses at most what arrived since the last period;
//   - crash_flush() is async-signal-safe: it only stores an atomic, write()s an eventfd and
//     nanosleep()s while the writer thread (a normal thread) writes what was delivered, then
//     closes the file; it never waits longer than its timeout;
//   - finish() writes final counters, the index and the trailer; after it every call is a no-op;
//   - with a buffer pool, take_buffer() hands out zero-filled buffers whose pages are already
//     mapped: the writer thread faults them in and re-zeroes the used part of each returned
//     buffer, so CUPTI's request (on the program's launching thread) neither faults nor zeroes.
// CUDA-free: the conversion of a CUPTI buffer is a hook the collector supplies.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <sys/types.h>

#include "trace/io/common/byte_io.h"
#include "trace/io/pstrace/chunk_writer.h"

namespace parascope::collector {

class CaptureWriter {
 public:
  struct Options {
    uint32_t flush_ms = 1000;
    uint64_t max_buffered_bytes = 1ull << 30;  // raw buffers queued + lent to CUPTI
    int zstd_level = 3;
    uint32_t pool_buffers = 0;    // zero-filled buffers kept ready (0: malloc/free per buffer)
    size_t pool_buffer_bytes = 0;  // the size of a pooled buffer (other sizes are not pooled)
  };
  // Converts one raw CUPTI buffer (valid bytes) into encoded records; returns the record count.
  using Converter = std::function<uint64_t(const uint8_t* data, size_t valid, ByteWriter& out)>;
  // Runs on the writer thread once per period before the queue is drained, once more at the end
  // (kFinal) and, after a crash, once after what was queued is written (kCrash: best effort, the
  // signal handler stops waiting after its timeout).
  enum class HookReason { kPeriod, kFinal, kCrash };
  using PeriodicHook = std::function<void(HookReason)>;

  struct Stats {
    uint64_t records = 0;        // CUPTI records converted
    uint64_t chunks = 0;         // chunks appended (all types)
    uint64_t bytes = 0;          // file size so far
    uint64_t dropped = 0;        // records CUPTI dropped (note_dropped)
    uint64_t refused_buffers = 0;  // buffer requests refused because max_buffered_bytes was reached
    uint64_t periods = 0;
    uint64_t write_errors = 0;
    uint64_t pool_hits = 0;      // take_buffer() served from the pool
    uint64_t pool_misses = 0;    // take_buffer() had to allocate and zero on the caller's thread
  };

  CaptureWriter(const std::string& path, Options options, Converter converter);
  ~CaptureWriter();
  CaptureWriter(const CaptureWriter&) = delete;
  CaptureWriter& operator=(const CaptureWriter&) = delete;

  void set_periodic_hook(PeriodicHook hook);  // before start()
  void start();
  const std::string& path() const { return path_; }
  // Renames the file (rank learned after start); false if the rename failed (the old name stays).
  bool rename_to(const std::string& path);
  pid_t writer_tid() const { return writer_tid_.load(); }

  // --- producers (any thread except signal handlers) ---
  // Lends `bytes` of buffer budget to CUPTI; false when the budget is spent (CUPTI then drops).
  bool reserve_buffer(size_t bytes);
  // A zero-filled buffer of `bytes` (budget reserved as by reserve_buffer), from the pool when it
  // has one; nullptr when the budget is spent or memory is short. Give it back by submit_buffer.
  uint8_t* take_buffer(size_t bytes);
  // Takes ownership of a CUPTI buffer (malloc'ed, `capacity` bytes reserved, `valid` used).
  void submit_buffer(uint8_t* buffer, size_t capacity, size_t valid);
  void submit_chunk(ChunkType type, std::vector<uint8_t> payload);
  void note_dropped(uint64_t records) { dropped_ += records; }
  // From inside the periodic hook only: converts and writes what is queued now (e.g. the buffers
  // the hook's CUPTI flush just delivered) instead of after the hook.
  void drain_from_hook() { drain(); }
  // Runs the periodic hook (kPeriod) as soon as the writer wakes, without waiting for the period.
  void request_period() noexcept {
    period_requested_ = true;
    wake();
  }
  // Written at once: a warning (something may be wrong with the trace) in a warnings chunk, a note
  // (how the trace was made: sampling setup, clock syncs) in a notes chunk.
  void add_warning(const std::string& warning);
  void add_note(const std::string& note);
  // Blocks until everything submitted before the call is written; false on timeout or when closed.
  bool sync(std::chrono::milliseconds timeout);
  // Ends the capture: one last period (hook with final = true), final metadata, the run summary
  // (a note; a warning when CUPTI dropped records, buffer requests were refused or a signal ended
  // the process), index.
  void finish(const std::vector<std::pair<std::string, std::string>>& final_metadata);
  bool finished() const { return state_.load() >= kFinished; }

  // --- signal handlers ---
  // Async-signal-safe. Asks the writer to write everything delivered so far and close the file,
  // waiting at most `timeout_ms`. Returns true if the writer reported completion in time.
  bool crash_flush(int signal_number, int timeout_ms) noexcept;

  Stats stats() const;

 private:
  enum State : int { kCreated, kRunning, kFinished };
  struct Job {
    enum class Type { kBuffer, kChunk } type;
    ChunkType chunk_type = ChunkType::kCuptiRecords;
    uint8_t* buffer = nullptr;
    size_t capacity = 0, valid = 0;
    std::vector<uint8_t> payload;
  };
  void run();
  void wake() noexcept;
  void drain();
  void write_job(Job& job);
  void append(ChunkType type, std::span<const uint8_t> payload);
  void release_buffer(uint8_t* buffer, size_t capacity, size_t valid);  // to the pool or free()
  void fill_pool();                                                      // writer thread
  void write_final(const std::vector<std::pair<std::string, std::string>>& final_metadata, const char* reason);

  std::string path_;
  Options options_;
  Converter converter_;
  PeriodicHook hook_;
  std::unique_ptr<ChunkWriter> file_;
  std::mutex file_mutex_;  // file_ + stats_ writes (writer thread, finish, rename)

  std::mutex queue_mutex_;
  std::deque<Job> queue_;
  uint64_t submitted_seq_ = 0;          // under queue_mutex_
  std::atomic<uint64_t> written_seq_{0};
  std::condition_variable written_cv_;
  std::mutex written_mutex_;

  std::atomic<uint64_t> buffered_bytes_{0};
  std::mutex pool_mutex_;
  std::vector<uint8_t*> pool_;  // zero-filled, pages touched
  std::atomic<uint64_t> pool_hits_{0}, pool_misses_{0};
  std::atomic<uint64_t> dropped_{0};
  std::atomic<uint64_t> refused_{0};
  Stats stats_;

  int wake_fd_ = -1;
  std::thread thread_;
  std::atomic<pid_t> writer_tid_{0};
  std::atomic<int> state_{kCreated};
  std::atomic<bool> stop_{false};
  std::atomic<bool> final_requested_{false};
  std::atomic<bool> period_requested_{false};
  std::vector<std::pair<std::string, std::string>> final_metadata_;  // set before final_requested_
  std::atomic<int> crash_signal_{0};
  std::atomic<bool> crash_done_{false};
  pid_t owner_pid_ = 0;
};

}  // namespace parascope::collector
