// The other ranks' parts of one selected collective, for the timeline's cross-rank arrows and the
// Details pane. Which annotations are one operation is decided by the matcher alone
// (collective_matcher.h); this only looks a slice up in its result: a collective's kernel, or the
// CPU op that issued it, gives the matched instance's members by rank, each with the slice of the
// same side (kernel for a kernel, CPU op for a CPU op, the other when a member lacks it) and how
// late it arrived. Arrival times are the matcher's (kernel start, else CPU op start).
#pragma once

#include <cstddef>
#include <limits>
#include <utility>
#include <vector>

#include "trace/core/analysis/collective_matcher.h"
#include "trace/core/trace.h"

namespace parascope {

struct CollectivePeer {
  int32_t rank = -1;
  int32_t device = -1;        // trace device of its kernel, -1 without one
  uint32_t collective = 0;    // index into Trace::collectives
  EventRef slice;             // what the timeline points at on that rank
  TimeNs start = 0;           // its arrival, as the matcher timed it
  TimeNs after_first_ns = 0;  // start − the matched instance's first start: how late it arrived
  bool selected = false;      // the member the slice belongs to
};

struct CollectivePeers {
  static constexpr size_t kNone = std::numeric_limits<size_t>::max();
  size_t match = kNone;                 // index into CollectiveMatch::collectives
  std::vector<CollectivePeer> members;  // every member, by rank (the matcher's order)
  bool found() const { return match != kNone; }
  const CollectivePeer* selected() const;
};

// The matcher's result with a lookup from slices to matched instances, built once per trace.
class CollectivePeerIndex {
 public:
  CollectivePeerIndex() = default;
  CollectivePeerIndex(const Trace& trace, CollectiveMatch match);
  const CollectiveMatch& match() const { return match_; }
  // The matched instance `slice` (a collective's kernel or CPU op) belongs to; not found for any
  // other slice and for a collective the matcher could not time.
  CollectivePeers peers_of(const Trace& trace, EventRef slice) const;

 private:
  CollectiveMatch match_;
  std::vector<size_t> match_of_;                        // per Trace::collectives index; kNone when untimed
  std::vector<std::pair<EventRef, uint32_t>> by_slice_;  // (kernel or CPU op, collective), sorted
};

}  // namespace parascope
