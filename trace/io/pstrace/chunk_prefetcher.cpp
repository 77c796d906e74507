#include "trace/io/pstrace/chunk_prefetcher.h"

#include <utility>

#if defined(__linux__)
#include <pthread.h>
#endif

namespace parascope {

ChunkPrefetcher::ChunkPrefetcher(const ChunkReader& reader, std::vector<const ChunkInfo*> order, size_t ahead, Parse parse)
    : reader_(reader), order_(std::move(order)), ahead_(ahead < 1 ? 1 : ahead), parse_(std::move(parse)) {
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
  size_t next_chunk = 0;
  for (;;) {
    Slot* to_parse = nullptr;
    Slot s;
    {
      std::unique_lock<std::mutex> lock(m_);
      // Decompress while fewer than `ahead` chunks wait; when enough do, parse the newest unclaimed
      // one (the reader takes the oldest, parsing it itself when nobody has started it).
      auto waiting = [this]() -> Slot* {
        for (auto it = ready_.rbegin(); it != ready_.rend(); ++it)
          if (it->state == ParseState::kWaiting) return &*it;
        return nullptr;
      };
      auto work = [&] {
        return stopping_ || (next_chunk < order_.size() && ready_.size() < ahead_) || waiting() != nullptr;
      };
      bool idle_has_more = static_cast<bool>(parse_.idle);
      while (!work()) {
        if (idle_has_more) {  // nothing of ours to do: the idle hook's work, a piece at a time
          lock.unlock();
          idle_has_more = parse_.idle();
          lock.lock();
          continue;
        }
        if (next_chunk == order_.size()) return;  // every chunk read and parsed, no idle work left
        cv_.wait(lock);
        idle_has_more = static_cast<bool>(parse_.idle);
      }
      if (stopping_) return;
      if (next_chunk < order_.size() && ready_.size() < ahead_) {
        if (!spare_.empty()) {
          s.payload = std::move(spare_.back());
          spare_.pop_back();
        }
        s.chunk = order_[next_chunk++];
      } else {
        to_parse = waiting();
        to_parse->state = ParseState::kParsing;
        if (!to_parse->parsed && !spare_parsed_.empty()) {
          to_parse->parsed = std::move(spare_parsed_.back());
          spare_parsed_.pop_back();
        }
      }
    }
    if (to_parse) {
      parse_slot(*to_parse);
      continue;
    }
    try {
      reader_.payload(*s.chunk, s.payload);
    } catch (...) {
      s.error = std::current_exception();
    }
    if (!s.error && parse_.wants && parse_.wants(*s.chunk)) s.state = ParseState::kWaiting;
    {
      std::lock_guard<std::mutex> lock(m_);
      ready_.push_back(std::move(s));
    }
    cv_.notify_all();
  }
}

void ChunkPrefetcher::parse_slot(Slot& s) {
  parse_.parse(*s.chunk, s.payload, s.parsed);
  {
    std::lock_guard<std::mutex> lock(m_);
    s.state = ParseState::kDone;
  }
  cv_.notify_all();
}

void ChunkPrefetcher::next(std::vector<uint8_t>& out) {
  std::unique_ptr<ParsedChunk> parsed;
  next(out, parsed);
}

void ChunkPrefetcher::next(std::vector<uint8_t>& out, std::unique_ptr<ParsedChunk>& parsed) {
  Slot s;
  {
    std::unique_lock<std::mutex> lock(m_);
    if (out.capacity()) spare_.push_back(std::move(out));
    if (parsed) spare_parsed_.push_back(std::move(parsed));
    cv_.wait(lock, [this] { return !ready_.empty(); });
    Slot& front = ready_.front();
    if (front.state == ParseState::kWaiting) {  // not started by the prefetch thread: parse it here
      front.state = ParseState::kParsing;
      if (!front.parsed && !spare_parsed_.empty()) {
        front.parsed = std::move(spare_parsed_.back());
        spare_parsed_.pop_back();
      }
      lock.unlock();
      parse_slot(front);
      lock.lock();
    }
    cv_.wait(lock, [this] { return ready_.front().state != ParseState::kParsing; });
    s = std::move(ready_.front());
    ready_.pop_front();
  }
  cv_.notify_all();
  out = std::move(s.payload);
  parsed = std::move(s.parsed);
  if (s.error) std::rethrow_exception(s.error);
}

}  // namespace parascope
