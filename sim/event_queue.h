// The simulator's event queue: integer picosecond timestamps, a binary heap, lazy deletion of
// cancelled events, and a total order (time, then scheduling sequence) so the same inputs always
// pop in the same order — simulations are deterministic bit for bit. Events are plain data: a
// kind and a payload the engine interprets; no callbacks are stored.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "trace/core/time.h"

namespace parascope::sim {

using EventId = uint64_t;

struct SimEvent {
  TimePs time = 0;
  EventId id = 0;        // also the tie-breaker: earlier scheduled pops first at equal time
  uint32_t kind = 0;
  uint64_t payload = 0;
};

class EventQueue {
 public:
  // Schedules at absolute time `t` (must not be before now()). Returns a handle for cancel().
  EventId schedule(TimePs t, uint32_t kind, uint64_t payload);
  // Marks an event dead; it is dropped when it reaches the top. False if unknown or already gone.
  bool cancel(EventId id);
  // Removes and returns the earliest live event, advancing now(); nullopt when empty.
  std::optional<SimEvent> pop();
  // Earliest live event's time without removing it.
  std::optional<TimePs> peek_time();
  TimePs now() const { return now_; }
  size_t live() const { return heap_.size() - dead_in_heap_; }
  bool empty() const { return live() == 0; }
  uint64_t popped() const { return popped_; }

 private:
  void drop_dead_top();
  static bool later(const SimEvent& a, const SimEvent& b) {
    return a.time != b.time ? a.time > b.time : a.id > b.id;
  }
  std::vector<SimEvent> heap_;
  std::vector<bool> done_{false};  // per id: popped or cancelled (1 bit per event ever scheduled)
  size_t dead_in_heap_ = 0;        // cancelled events not yet dropped from heap_
  EventId next_id_ = 1;
  TimePs now_ = 0;
  uint64_t popped_ = 0;
};

}  // namespace parascope::sim
