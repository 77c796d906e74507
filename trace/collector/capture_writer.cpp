#include "trace/collector/capture_writer.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <cstring>

#include "trace/collector/chunk_payloads.h"

namespace parascope::collector {

namespace {

pid_t current_tid() noexcept { return static_cast<pid_t>(::syscall(SYS_gettid)); }

const char* signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGTERM: return "SIGTERM";
    default: return "signal";
  }
}

uint64_t now_unix_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

CaptureWriter::CaptureWriter(const std::string& path, Options options, Converter converter)
    : path_(path), options_(options), converter_(std::move(converter)), owner_pid_(::getpid()) {
  ChunkWriter::Options co;
  co.zstd_level = options_.zstd_level;
  file_ = std::make_unique<ChunkWriter>(path_, co);  // throws with the path on failure
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

CaptureWriter::~CaptureWriter() {
  if (state_.load() == kRunning && ::getpid() == owner_pid_) finish({});
  if (thread_.joinable()) thread_.detach();
  if (wake_fd_ >= 0) ::close(wake_fd_);
  std::lock_guard lock(pool_mutex_);
  for (uint8_t* b : pool_) std::free(b);
  pool_.clear();
}

void CaptureWriter::set_periodic_hook(PeriodicHook hook) { hook_ = std::move(hook); }

void CaptureWriter::start() {
  int expected = kCreated;
  if (!state_.compare_exchange_strong(expected, kRunning)) return;
  // The writer thread never takes process-directed signals: a SIGTERM handler that waits for the
  // writer must not run on the writer itself. Block them while the thread is created (it inherits
  // the mask), then restore ours. SIGXFSZ too: a write past RLIMIT_FSIZE then fails with EFBIG
  // (reported once, the file keeps every complete chunk) instead of killing the traced program
  // without a word; the signal is sent to the writing thread only, so the program's own writes
  // keep the disposition it chose.
  sigset_t block, old;
  sigemptyset(&block);
  for (int s : {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGPIPE, SIGCHLD, SIGXFSZ}) sigaddset(&block, s);
  ::pthread_sigmask(SIG_BLOCK, &block, &old);
  thread_ = std::thread([this] { run(); });
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

bool CaptureWriter::rename_to(const std::string& path) {
  std::lock_guard lock(file_mutex_);
  if (path == path_) return true;
  if (std::rename(path_.c_str(), path.c_str()) != 0) return false;
  path_ = path;
  return true;
}

bool CaptureWriter::reserve_buffer(size_t bytes) {
  uint64_t cur = buffered_bytes_.load();
  do {
    if (cur + bytes > options_.max_buffered_bytes) {
      ++refused_;
      return false;
    }
  } while (!buffered_bytes_.compare_exchange_weak(cur, cur + bytes));
  return true;
}

void CaptureWriter::wake() noexcept {
  if (wake_fd_ < 0) return;
  const uint64_t one = 1;
  // write() is async-signal-safe; EAGAIN (counter saturated) still leaves the fd readable
  [[maybe_unused]] ssize_t n = ::write(wake_fd_, &one, sizeof one);
}

uint8_t* CaptureWriter::take_buffer(size_t bytes) {
  if (!reserve_buffer(bytes)) return nullptr;
  if (options_.pool_buffers && bytes == options_.pool_buffer_bytes) {
    std::lock_guard lock(pool_mutex_);
    if (!pool_.empty()) {
      uint8_t* b = pool_.back();
      pool_.pop_back();
      ++pool_hits_;
      wake();  // the writer refills the pool
      return b;
    }
  }
  if (options_.pool_buffers) ++pool_misses_;
  void* p = std::aligned_alloc(8, (bytes + 7) / 8 * 8);
  if (!p) {
    buffered_bytes_ -= bytes;
    return nullptr;
  }
  std::memset(p, 0, bytes);
  return static_cast<uint8_t*>(p);
}

void CaptureWriter::release_buffer(uint8_t* buffer, size_t capacity, size_t valid) {
  buffered_bytes_ -= capacity;
  if (!buffer) return;
  if (options_.pool_buffers && capacity == options_.pool_buffer_bytes && state_.load() == kRunning) {
    std::memset(buffer, 0, std::min(valid, capacity));  // the rest was never written: still zero
    std::lock_guard lock(pool_mutex_);
    if (pool_.size() < options_.pool_buffers) {
      pool_.push_back(buffer);
      return;
    }
  }
  std::free(buffer);
}

void CaptureWriter::fill_pool() {
  if (!options_.pool_buffers || !options_.pool_buffer_bytes) return;
  for (;;) {
    {
      std::lock_guard lock(pool_mutex_);
      if (pool_.size() >= options_.pool_buffers) return;
    }
    void* p = std::aligned_alloc(8, (options_.pool_buffer_bytes + 7) / 8 * 8);
    if (!p) return;
    std::memset(p, 0, options_.pool_buffer_bytes);  // faults every page in, here
    std::lock_guard lock(pool_mutex_);
    pool_.push_back(static_cast<uint8_t*>(p));
  }
}

void CaptureWriter::submit_buffer(uint8_t* buffer, size_t capacity, size_t valid) {
  if (valid == 0 || state_.load() != kRunning) {
    std::free(buffer);
    buffered_bytes_ -= capacity;
    return;
  }
  Job j{Job::Type::kBuffer};
  j.buffer = buffer;
  j.capacity = capacity;
  j.valid = valid;
  {
    std::lock_guard lock(queue_mutex_);
    queue_.push_back(std::move(j));
    ++submitted_seq_;
  }
  wake();
}

void CaptureWriter::submit_chunk(ChunkType type, std::vector<uint8_t> payload) {
  if (state_.load() != kRunning) return;
  Job j{Job::Type::kChunk};
  j.chunk_type = type;
  j.payload = std::move(payload);
  {
    std::lock_guard lock(queue_mutex_);
    queue_.push_back(std::move(j));
    ++submitted_seq_;
  }
  wake();
}

void CaptureWriter::add_warning(const std::string& warning) { submit_chunk(ChunkType::kWarnings, encode_lines({warning})); }
void CaptureWriter::add_note(const std::string& note) { submit_chunk(ChunkType::kNotes, encode_lines({note})); }

bool CaptureWriter::sync(std::chrono::milliseconds timeout) {
  if (state_.load() != kRunning || ::getpid() != owner_pid_) return false;
  if (current_tid() == writer_tid_.load()) return true;  // the writer drains after its hook anyway
  uint64_t target;
  {
    std::lock_guard lock(queue_mutex_);
    target = submitted_seq_;
  }
  wake();
  std::unique_lock lock(written_mutex_);
  return written_cv_.wait_for(lock, timeout, [&] { return written_seq_.load() >= target || state_.load() != kRunning; });
}

void CaptureWriter::finish(const std::vector<std::pair<std::string, std::string>>& final_metadata) {
  if (::getpid() != owner_pid_) return;  // a forked child never touches its parent's file
  const int st = state_.load();
  if (st == kFinished) return;
  if (st == kCreated || !thread_.joinable() || std::this_thread::get_id() == thread_.get_id()) {
    if (hook_) hook_(HookReason::kFinal);
    drain();
    write_final(final_metadata, "exit");
    state_ = kFinished;
    if (thread_.joinable()) thread_.detach();
    return;
  }
  {
    std::lock_guard lock(file_mutex_);
    final_metadata_ = final_metadata;
  }
  final_requested_ = true;
  wake();
  thread_.join();
  state_ = kFinished;
  written_cv_.notify_all();
}

bool CaptureWriter::crash_flush(int signal_number, int timeout_ms) noexcept {
  if (state_.load() != kRunning || ::getpid() != owner_pid_) return false;
  if (current_tid() == writer_tid_.load()) return false;  // cannot wait for ourselves
  int expected = 0;
  crash_signal_.compare_exchange_strong(expected, signal_number);  // a second crash waits too
  wake();
  timespec one_ms{0, 1'000'000};
  for (int waited = 0; waited < timeout_ms && !crash_done_.load(); ++waited) ::nanosleep(&one_ms, nullptr);
  return crash_done_.load();
}

CaptureWriter::Stats CaptureWriter::stats() const {
  std::lock_guard lock(const_cast<std::mutex&>(file_mutex_));
  Stats s = stats_;
  s.dropped = dropped_.load();
  s.refused_buffers = refused_.load();
  s.pool_hits = pool_hits_.load();
  s.pool_misses = pool_misses_.load();
  return s;
}

void CaptureWriter::append(ChunkType type, std::span<const uint8_t> payload) {
  std::lock_guard lock(file_mutex_);
  if (!file_ || !file_->is_open()) return;
  try {
    file_->append(type, payload);
    ++stats_.chunks;
    stats_.bytes = file_->bytes_written();
  } catch (const std::exception& e) {
    if (stats_.write_errors++ == 0)
      std::fprintf(stderr, "parascope collector: %s; the trace keeps every chunk written before, later ones are lost\n", e.what());
  }
}

void CaptureWriter::write_job(Job& job) {
  if (job.type == Job::Type::kChunk) {
    append(job.chunk_type, job.payload);
    return;
  }
  ByteWriter out;
  uint64_t n = 0;
  try {
    n = converter_ ? converter_(job.buffer, job.valid, out) : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "parascope collector: converting a CUPTI buffer failed: %s\n", e.what());
  }
  release_buffer(job.buffer, job.capacity, job.valid);
  {
    std::lock_guard lock(file_mutex_);
    stats_.records += n;
  }
  if (out.size()) append(ChunkType::kCuptiRecords, out.bytes());
}

void CaptureWriter::drain() {
  for (;;) {
    std::deque<Job> batch;
    uint64_t seq;
    {
      std::lock_guard lock(queue_mutex_);
      batch.swap(queue_);
      seq = submitted_seq_;
    }
    for (Job& j : batch) write_job(j);
    {
      std::lock_guard lock(written_mutex_);
      written_seq_ = seq;
    }
    written_cv_.notify_all();
    if (batch.empty()) return;
  }
}

void CaptureWriter::write_final(const std::vector<std::pair<std::string, std::string>>& final_metadata,
                                const char* reason) {
  Stats s = stats();
  Metadata kv = final_metadata;
  kv.emplace_back("final", "1");
  kv.emplace_back("end_reason", reason);
  kv.emplace_back("end_time_unix_ns", std::to_string(now_unix_ns()));
  kv.emplace_back("records", std::to_string(s.records));
  kv.emplace_back("dropped_records", std::to_string(s.dropped));
  kv.emplace_back("refused_buffers", std::to_string(s.refused_buffers));
  kv.emplace_back("flush_periods", std::to_string(s.periods));
  append(ChunkType::kMetadata, encode_metadata(kv));
  std::vector<std::string> summary = {"collector: " + std::to_string(s.records) + " CUPTI records, " +
                                      std::to_string(s.dropped) + " dropped by CUPTI, " +
                                      std::to_string(s.refused_buffers) + " buffer requests refused (" + reason + ")"};
  // a note when nothing was lost and the process exited (collector_notes.h reads older files so)
  const bool clean = !s.dropped && !s.refused_buffers && std::string_view(reason) == "exit";
  append(clean ? ChunkType::kNotes : ChunkType::kWarnings, encode_lines(summary));
  std::lock_guard lock(file_mutex_);
  try {
    if (file_) file_->close();
  } catch (const std::exception& e) {
    if (stats_.write_errors++ == 0) std::fprintf(stderr, "parascope collector: %s\n", e.what());  // said once
  }
}

void CaptureWriter::run() {
  writer_tid_ = current_tid();
  fill_pool();
  using Clock = std::chrono::steady_clock;
  const auto period = std::chrono::milliseconds(options_.flush_ms);
  auto next = Clock::now() + period;
  for (;;) {
    const auto now = Clock::now();
    const int timeout_ms =
        now >= next ? 0 : static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count()) + 1;
    pollfd p{wake_fd_, POLLIN, 0};
    if (wake_fd_ >= 0) ::poll(&p, 1, timeout_ms);
    else std::this_thread::sleep_for(std::chrono::milliseconds(timeout_ms));
    if (wake_fd_ >= 0) {
      uint64_t counter;
      [[maybe_unused]] ssize_t n = ::read(wake_fd_, &counter, sizeof counter);
    }

    if (const int sig = crash_signal_.load()) {
      // 1. what CUPTI and the plugin already delivered goes to disk first
      drain();
      // 2. best effort: ask CUPTI for what it still holds (the handler's timeout bounds a hang)
      if (hook_) {
        try {
          hook_(HookReason::kCrash);
        } catch (...) {
        }
      }
      drain();
      write_final(final_metadata_, signal_name(sig));
      state_ = kFinished;
      crash_done_ = true;
      written_cv_.notify_all();
      return;
    }
    const bool final = final_requested_.load();
    if (final || Clock::now() >= next || period_requested_.exchange(false)) {
      if (hook_) {
        try {
          hook_(final ? HookReason::kFinal : HookReason::kPeriod);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "parascope collector: periodic flush failed: %s\n", e.what());
        }
      }
      {
        std::lock_guard lock(file_mutex_);
        ++stats_.periods;
      }
      next = Clock::now() + period;
    }
    drain();
    if (!final) fill_pool();
    if (final) {
      std::vector<std::pair<std::string, std::string>> md;
      {
        std::lock_guard lock(file_mutex_);
        md = final_metadata_;
      }
      write_final(md, "exit");
      return;
    }
  }
}

}  // namespace parascope::collector
