// The critical path of a replay across ranks: from the operation that ended last, back through
// whatever decided each time — a lane predecessor, a launch or event edge, the last member of a
// collective to arrive (which may sit on another rank), the GPU work a blocking host call waited
// for. Every nanosecond of the path's span is either an operation on it or a wait between two of
// them, so the category totals add up to the span.
#pragma once

#include <string>
#include <vector>

#include "sim/whatif/replay.h"

namespace parascope::whatif {

struct CriticalSegment {
  uint32_t node = 0;
  TimeNs start = 0, end = 0;     // the part of the node on the path
};

struct CriticalPath {
  TimeNs start = 0, end = 0;
  TimeNs compute_ns = 0, communication_ns = 0, host_ns = 0, memory_ns = 0, wait_ns = 0;
  std::vector<CriticalSegment> segments;  // in time order
  std::vector<int32_t> processes;         // processes the path visits, in first-visit order
};

CriticalPath critical_path(const DepGraph& g, const ReplayResult& r);

}  // namespace parascope::whatif
