#include "sim/whatif/step_range.h"

namespace parascope::whatif {

namespace {

std::optional<StepAnchors> earliest_latest(const DepGraph& g, std::span<const uint32_t> nodes, int64_t thread) {
  std::optional<StepAnchors> a;
  for (uint32_t n : nodes) {
    const Node& node = g.nodes[n];
    if (thread >= 0) {
      const Lane& lane = g.lanes[node.lane];
      if (node.kind != NodeType::kHostCall || lane.kind != LaneKind::kThread || lane.id != thread) continue;
    }
    if (!a) {
      a = StepAnchors{n, n};
      continue;
    }
    if (node.start < g.nodes[a->first].start) a->first = n;
    if (node.start + node.dur > g.nodes[a->last].start + g.nodes[a->last].dur) a->last = n;
  }
  return a;
}

}  // namespace

std::optional<StepAnchors> step_anchors(const DepGraph& g, const StepRange& range, std::span<const uint32_t> nodes) {
  if (range.thread >= 0)
    if (auto a = earliest_latest(g, nodes, range.thread)) return a;
  return earliest_latest(g, nodes, -1);
}

ReplayedRange replayed_range(const DepGraph& g, const ReplayResult& r, const StepRange& range, const StepAnchors& a) {
  const Node& f = g.nodes[a.first];
  const Node& l = g.nodes[a.last];
  return {range.start + (r.start[a.first] - f.start), range.end + (r.end[a.last] - (l.start + l.dur))};
}

}  // namespace parascope::whatif
