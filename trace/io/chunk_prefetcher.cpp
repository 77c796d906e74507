#include "trace/io/chunk_prefetcher.h"

#include <utility>

#if defined(__linux__)
#include <pthread.h>
#endif

namespace parascope {

ChunkPrefetcher::ChunkPrefetcher(const ChunkReader& reader, std::vector<const ChunkInfo*> order, size_t ahead)
    : reader_(reader), order_(std::move(order)), ahead_(ahead < 1 ? 1 : ahead) {
  if (!order_.empty()) thread_ = std::thread([this] { run(); });
}

ChunkPrefetcher::~ChunkPrefetcher() {
  {
    std::lock_guard<std::mutex> lock(m_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ChunkPrefetcher::run() {
#if defined(__linux__)
  pthread_setname_np(pthread_self(), "ps-prefetch");  // as ps and perf show it
#endif
  for (const ChunkInfo* c : order_) {
    Slot s;
    {
      std::unique_lock<std::mutex> lock(m_);
      cv_.wait(lock, [this] { return stopping_ || ready_.size() < ahead_; });
      if (stopping_) return;
      if (!spare_.empty()) {
        s.payload = std::move(spare_.back());
        spare_.pop_back();
      }
    }
    try {
      reader_.payload(*c, s.payload);
    } catch (...) {
      s.error = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(m_);
      ready_.push_back(std::move(s));
    }
    cv_.notify_all();
  }
}

void ChunkPrefetcher::next(std::vector<uint8_t>& out) {
  Slot s;
  {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [this] { return !ready_.empty(); });
    s = std::move(ready_.front());
    ready_.pop_front();
    if (out.capacity()) spare_.push_back(std::move(out));
  }
  cv_.notify_all();
  out = std::move(s.payload);
  if (s.error) std::rethrow_exception(s.error);
}

}  // namespace parascope
