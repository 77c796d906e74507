// Where a measured step range (ProfilerStep#N, a --step match) lies in a replay: the range moves
// with its anchors, the first call of the step to start and the last to end, both taken on the
// thread whose range it is. A call of another thread inside the range (a helper thread's call at
// the start of the last step) moves on its own, so anchoring on it would stretch the step by the
// whole drift between the two threads. One rule for the step times and the predicted trace.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "sim/whatif/dep_graph.h"
#include "sim/whatif/replay.h"

namespace parascope::whatif {

struct StepAnchors {
  uint32_t first = 0, last = 0;  // nodes: earliest measured start, latest measured end
};

// Of `nodes` (the step's nodes on range.process), the anchors among the host calls of the range's
// thread; among all of `nodes` where that thread has none there (or the range has no one thread);
// nullopt when `nodes` is empty.
std::optional<StepAnchors> step_anchors(const DepGraph& g, const StepRange& range, std::span<const uint32_t> nodes);

struct ReplayedRange {
  TimeNs start = 0, end = 0;
};

// The measured range shifted by how far its first anchor's start and its last anchor's end moved.
ReplayedRange replayed_range(const DepGraph& g, const ReplayResult& r, const StepRange& range, const StepAnchors& a);

}  // namespace parascope::whatif
