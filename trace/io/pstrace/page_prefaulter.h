// Touches memory a reader has reserved but not written yet on a second thread, so the first-touch
// page faults (the kernel zeroing and mapping each 4 KiB page) run beside the decoding instead of
// inside it. Loading a large .pstrace is mostly writing fresh memory: on the 2-core VM here the
// faults were 45 % of a load's time (docs/benchmarks.md). Linux 5.14+ MADV_POPULATE_WRITE maps the
// pages without writing to them, so the data is never touched: racing the owner's own writes, a
// freed or reused range, or a range the owner never fills are all harmless (at worst wasted work).
// Elsewhere, or when the kernel refuses, it does nothing. The range whose mapped part leads its
// owner's writes by the least goes next: the owner reports how far it has written (written()), and
// a range it has not reported on counts as written up to its start. The work runs on the prefaulter's own
// thread, or (kCaller) in slices on a thread that calls step() when it would otherwise wait: the
// .pstrace reader's prefetch thread, between chunks, where a third thread would compete with the
// two that decode (docs/benchmarks.md, "Native format").
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace parascope {

class PagePrefaulter {
 public:
  enum class Runner : uint8_t { kOwnThread, kCaller };
  // `min_bytes`: ranges smaller than this are left to the owner (not worth a wake-up).
  explicit PagePrefaulter(Runner runner = Runner::kOwnThread, size_t min_bytes = size_t{1} << 20)
      : runner_(runner), min_bytes_(min_bytes) {}
  ~PagePrefaulter() { stop(); }
  PagePrefaulter(const PagePrefaulter&) = delete;
  PagePrefaulter& operator=(const PagePrefaulter&) = delete;

  // Whether this build and kernel can prefault (false after the first refusal).
  static bool supported();

  // Queues [p, p + bytes) (page-aligned inward); kOwnThread: starts the thread on first use.
  void add(const void* p, size_t bytes);
  // The unused capacity of a vector: where its next elements will be written.
  template <typename V>
  void add_capacity(const V& v) {
    if (v.capacity() > v.size()) add(v.data() + v.size(), (v.capacity() - v.size()) * sizeof(*v.data()));
  }
  // The owner has written up to `end` (exclusive) in the range holding it: pages before it need no
  // mapping, and the range's lead is measured from there.
  void written(const void* end);
  template <typename V>
  void written_of(const V& v) {
    written(v.data() + v.size());
  }
  // kCaller: maps one slice (at most 256 KiB) of the queued ranges on the calling thread; false when
  // nothing is queued (or after stop()). Any thread.
  bool step();
  // Stops after the slice in progress and joins the thread. Safe to call more than once.
  void stop();

  uint64_t populated_bytes() const { return populated_; }  // after stop(): what the thread mapped

 private:
  struct Range {
    uintptr_t begin, end, next;  // page-aligned; [begin, next) is mapped or written
    uintptr_t written;            // the owner's last report (begin until one comes)
  };
  void run();
  // Takes the next slice of the least advanced range (lock held): false when none is queued.
  bool take(uintptr_t& at, uintptr_t& len);
  // Maps [at, at + len) without the lock, then books it (lock held again on return).
  void map(std::unique_lock<std::mutex>& lock, uintptr_t at, uintptr_t len);
  Runner runner_;
  size_t min_bytes_;
  std::mutex m_;
  std::condition_variable cv_;
  std::vector<Range> ranges_;
  bool stopping_ = false;
  uint64_t populated_ = 0;
  std::thread thread_;
};

}  // namespace parascope
