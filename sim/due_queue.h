// The flow model's queue of class completions: a radix heap on integer picoseconds. Every key is at
// or after the last popped time (simulated time never goes back), so an entry sits in bucket
// bit_width(time ^ last) and only ever moves to lower buckets: pushes are an append, pops amortise
// to a few moves per entry. Rescheduling a class pushes a new (time, id, version) entry; entries
// whose version is no longer current are dropped when met (lazy deletion). Deterministic: entries
// due at the same time come out in push order.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <vector>

#include "sim/bandwidth_model.h"

namespace parascope::sim {

class DueQueue {
 public:
  // t must be >= the last popped time.
  void push(TimePs t, uint32_t id, uint32_t version) {
    b_[bucket(t)].push_back(Entry{t, id, version});
    if (cache_valid_ && t < cache_) cache_ = t;
  }

  // Earliest time of a live entry (`live(id, version)`), kNever when none. May be early if an entry
  // went stale after it was computed: then pop() returns nothing for that time.
  template <class Live>
  TimePs next(Live live) {
    if (cache_valid_) return cache_;
    cache_valid_ = true;
    cache_ = kNever;
    for (const Entry& e : b_[0])
      if (live(e.id, e.version)) return cache_ = last_;
    b_[0].clear();
    for (size_t i = 1; i < b_.size(); ++i) {
      auto& b = b_[i];
      size_t keep = 0;
      for (const Entry& e : b)
        if (live(e.id, e.version)) {
          b[keep++] = e;
          if (e.time < cache_) cache_ = e.time;
        }
      b.resize(keep);
      if (keep) return cache_;
    }
    return cache_;
  }

  // The ids of the live entries due at t (t == next()), in push order.
  template <class Live>
  void pop(TimePs t, Live live, std::vector<uint32_t>& ids) {
    if (t != last_) {
      size_t i = 1;
      while (i < b_.size() && b_[i].empty()) ++i;
      last_ = t;
      if (i < b_.size()) {
        std::vector<Entry> moving;
        moving.swap(b_[i]);
        for (const Entry& e : moving)
          if (live(e.id, e.version)) b_[bucket(e.time)].push_back(e);
        moving.clear();
        if (b_[i].empty()) b_[i].swap(moving);  // keep the capacity
      }
    }
    for (const Entry& e : b_[0])
      if (live(e.id, e.version)) ids.push_back(e.id);
    b_[0].clear();
    cache_valid_ = false;
  }

 private:
  struct Entry {
    TimePs time;
    uint32_t id;
    uint32_t version;
  };
  size_t bucket(TimePs t) const {
    return t == last_ ? 0 : static_cast<size_t>(std::bit_width(static_cast<uint64_t>(t ^ last_)));
  }
  std::array<std::vector<Entry>, 65> b_;
  TimePs last_ = 0;
  TimePs cache_ = kNever;
  bool cache_valid_ = false;
};

}  // namespace parascope::sim
