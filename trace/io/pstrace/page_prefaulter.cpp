#include "trace/io/pstrace/page_prefaulter.h"

#include <algorithm>
#include <atomic>

#if defined(__linux__)
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cerrno>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14 (uapi/asm-generic/mman-common.h)
#endif
#endif

namespace parascope {

namespace {

constexpr uintptr_t kSlice = uintptr_t{256} << 10;  // per madvise call: 64 pages
std::atomic<bool> g_refused{false};                  // the kernel said EINVAL once: never again

uintptr_t page_size() {
#if defined(__linux__)
  static const uintptr_t p = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  return p;
#else
  return 4096;
#endif
}

// 0: mapped; 1: this range cannot be (unmapped, not writable): drop it; 2: refused (old kernel).
int populate(uintptr_t p, uintptr_t len) {
#if defined(__linux__)
  if (madvise(reinterpret_cast<void*>(p), len, MADV_POPULATE_WRITE) == 0) return 0;
  return errno == EINVAL ? 2 : 1;
#else
  (void)p;
  (void)len;
  return 2;
#endif
}

}  // namespace

bool PagePrefaulter::supported() {
#if defined(__linux__)
  return !g_refused.load(std::memory_order_relaxed);
#else
  return false;
#endif
}

void PagePrefaulter::add(const void* p, size_t bytes) {
  if (!supported() || bytes < min_bytes_) return;
  const uintptr_t ps = page_size();
  const uintptr_t b = (reinterpret_cast<uintptr_t>(p) + ps - 1) & ~(ps - 1);
  const uintptr_t e = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(ps - 1);
  if (e <= b) return;
  {
    std::lock_guard<std::mutex> lock(m_);
    if (stopping_) return;
    ranges_.push_back({b, e, b, b});
    if (runner_ == Runner::kOwnThread && !thread_.joinable()) thread_ = std::thread([this] { run(); });
  }
  cv_.notify_one();
}

void PagePrefaulter::stop() {
  {
    std::lock_guard<std::mutex> lock(m_);
    stopping_ = true;
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void PagePrefaulter::written(const void* end) {
  const uintptr_t p = reinterpret_cast<uintptr_t>(end);
  std::lock_guard<std::mutex> lock(m_);
  for (auto it = ranges_.begin(); it != ranges_.end(); ++it) {
    if (p < it->begin || p > it->end) continue;
    it->written = std::max(it->written, p);
    const uintptr_t ps = page_size();
    it->next = std::max(it->next, it->written & ~(ps - 1));  // the owner faulted those itself
    if (it->next >= it->end) ranges_.erase(it);
    return;
  }
}

bool PagePrefaulter::take(uintptr_t& at, uintptr_t& len) {
  if (stopping_ || ranges_.empty()) return false;
  // the range whose mapped part leads its owner's writes by the least next; of equal leads, one the
  // owner is writing in (it will need the pages first)
  auto it = std::min_element(ranges_.begin(), ranges_.end(), [](const Range& a, const Range& b) {
    const auto lead_a = static_cast<intptr_t>(a.next - a.written), lead_b = static_cast<intptr_t>(b.next - b.written);
    return lead_a != lead_b ? lead_a < lead_b : (a.written > a.begin) > (b.written > b.begin);
  });
  at = it->next;
  len = std::min(kSlice, it->end - at);
  it->next += len;
  if (it->next >= it->end) ranges_.erase(it);
  return true;
}

void PagePrefaulter::map(std::unique_lock<std::mutex>& lock, uintptr_t at, uintptr_t len) {
  lock.unlock();
  const int r = populate(at, len);
  lock.lock();
  if (r == 0) {
    populated_ += len;
  } else if (r == 2) {
    g_refused.store(true, std::memory_order_relaxed);
    ranges_.clear();
  }
  // r == 1: that slice could not be mapped (freed meanwhile?): the owner faults it if it needs it
}

bool PagePrefaulter::step() {
  std::unique_lock<std::mutex> lock(m_);
  uintptr_t at = 0, len = 0;
  if (!take(at, len)) return false;
  map(lock, at, len);
  return true;
}

void PagePrefaulter::run() {
#if defined(__linux__)
  pthread_setname_np(pthread_self(), "ps-prefault");  // as ps and perf show it
  // Normal priority on purpose. At SCHED_IDLE (tried: within the noise on an idle
  // machine) a busy machine starves the thread, and stop() then waits for its slice in progress:
  // a cancelled GUI load took up to 1 s to go idle while a build ran beside it.
#endif
  std::unique_lock<std::mutex> lock(m_);
  for (;;) {
    cv_.wait(lock, [this] { return stopping_ || !ranges_.empty(); });
    uintptr_t at = 0, len = 0;
    if (!take(at, len)) return;  // stopping
    map(lock, at, len);
  }
}

}  // namespace parascope
