#include "sim/event_queue.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace parascope::sim {

EventId EventQueue::schedule(TimePs t, uint32_t kind, uint64_t payload) {
  if (t < now_)
    throw std::logic_error("event scheduled in the past: t=" + std::to_string(t) + " ps < now=" + std::to_string(now_) + " ps");
  const EventId id = next_id_++;
  done_.push_back(false);
  heap_.push_back(SimEvent{t, id, kind, payload});
  std::push_heap(heap_.begin(), heap_.end(), later);
  return id;
}

bool EventQueue::cancel(EventId id) {
  if (id == 0 || id >= next_id_ || done_[id]) return false;  // unknown, popped or already cancelled
  done_[id] = true;
  ++dead_in_heap_;
  return true;
}

void EventQueue::drop_dead_top() {
  while (!heap_.empty()) {
    if (!done_[heap_.front().id]) return;
    --dead_in_heap_;
    std::pop_heap(heap_.begin(), heap_.end(), later);
    heap_.pop_back();
  }
}

std::optional<SimEvent> EventQueue::pop() {
  drop_dead_top();
  if (heap_.empty()) return std::nullopt;
  std::pop_heap(heap_.begin(), heap_.end(), later);
  SimEvent e = heap_.back();
  heap_.pop_back();
  done_[e.id] = true;
  now_ = e.time;
  ++popped_;
  return e;
}

std::optional<TimePs> EventQueue::peek_time() {
  drop_dead_top();
  if (heap_.empty()) return std::nullopt;
  return heap_.front().time;
}

}  // namespace parascope::sim
