#include "sim/whatif/critical_path.h"

#include <algorithm>

namespace parascope::whatif {

CriticalPath critical_path(const DepGraph& g, const ReplayResult& r) {
  CriticalPath p;
  int32_t n = -1;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (!g.nodes[i].removed && r.end[i] >= 0 && (n < 0 || r.end[i] > r.end[static_cast<size_t>(n)])) n = static_cast<int32_t>(i);
  if (n < 0) return p;
  p.end = r.end[static_cast<size_t>(n)];
  TimeNs cursor = p.end;  // the path covers [.., cursor) so far; segments never overlap
  std::vector<bool> seen(g.nodes.size(), false);
  std::vector<CriticalSegment> back;
  auto segment = [&](size_t node, TimeNs from) {
    const TimeNs to = std::min(r.end[node], cursor);
    if (to > from) back.push_back({static_cast<uint32_t>(node), from, to});
    cursor = std::min(cursor, from);
  };
  while (n >= 0 && !seen[static_cast<size_t>(n)]) {
    const auto u = static_cast<size_t>(n);
    seen[u] = true;
    const int32_t by = r.end_by[u];
    if (by >= 0 && r.end_cause[u] == Cause::kRendezvous && !seen[static_cast<size_t>(by)]) {
      // u waited for the last member to arrive; the transfer ran from that arrival on
      const auto m = static_cast<size_t>(by);
      seen[m] = true;
      const TimeNs to = cursor;
      if (to > r.start[m]) back.push_back({static_cast<uint32_t>(m), r.start[m], to});
      cursor = std::min(cursor, r.start[m]);
      n = r.start_by[m];
      continue;
    }
    if (by >= 0 && r.end_cause[u] == Cause::kHostWait) {
      // a blocking call: its wake-up after the GPU work it waited for
      segment(u, std::max(r.start[u], r.end[static_cast<size_t>(by)]));
      n = by;
      continue;
    }
    segment(u, r.start[u]);
    n = r.start_by[u];
  }
  std::reverse(back.begin(), back.end());
  p.start = back.empty() ? p.end : back.front().start;
  TimeNs covered = 0;
  for (const CriticalSegment& s : back) {
    if (s.end <= s.start) continue;
    const TimeNs len = s.end - s.start;
    covered += len;
    switch (g.nodes[s.node].kind) {
      case NodeType::kCompute: p.compute_ns += len; break;
      case NodeType::kCollective:
      case NodeType::kPeerCopy:
      case NodeType::kFused: p.communication_ns += len; break;
      case NodeType::kHostCall: p.host_ns += len; break;
      case NodeType::kCopy:
      case NodeType::kMemset: p.memory_ns += len; break;
    }
    p.segments.push_back(s);
    const auto proc = static_cast<int32_t>(g.nodes[s.node].process);
    if (std::find(p.processes.begin(), p.processes.end(), proc) == p.processes.end()) p.processes.push_back(proc);
  }
  p.wait_ns = (p.end - p.start) - covered;
  return p;
}

}  // namespace parascope::whatif
