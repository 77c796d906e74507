#include "trace/core/analysis/collective_peers.h"

#include <algorithm>

namespace parascope {

const CollectivePeer* CollectivePeers::selected() const {
  for (const CollectivePeer& p : members)
    if (p.selected) return &p;
  return nullptr;
}

CollectivePeerIndex::CollectivePeerIndex(const Trace& trace, CollectiveMatch match)
    : match_(std::move(match)), match_of_(trace.collectives.size(), CollectivePeers::kNone) {
  for (size_t m = 0; m < match_.collectives.size(); ++m)
    for (const CollectiveMember& mm : match_.collectives[m].members)
      if (mm.collective < match_of_.size()) match_of_[mm.collective] = m;
  for (uint32_t ci = 0; ci < trace.collectives.size(); ++ci) {
    const CollectiveInfo& c = trace.collectives[ci];
    if (c.kernel.valid()) by_slice_.emplace_back(c.kernel, ci);
    if (c.cpu_op.valid()) by_slice_.emplace_back(c.cpu_op, ci);
  }
  std::sort(by_slice_.begin(), by_slice_.end());
}

CollectivePeers CollectivePeerIndex::peers_of(const Trace& trace, EventRef slice) const {
  CollectivePeers out;
  if (!slice.valid()) return out;
  const auto it = std::lower_bound(by_slice_.begin(), by_slice_.end(), std::make_pair(slice, uint32_t{0}));
  if (it == by_slice_.end() || !(it->first == slice)) return out;
  const uint32_t self = it->second;
  if (self >= match_of_.size() || match_of_[self] == CollectivePeers::kNone) return out;
  out.match = match_of_[self];
  const MatchedCollective& m = match_.collectives[out.match];
  const bool cpu_side = trace.collectives[self].cpu_op == slice && !(trace.collectives[self].kernel == slice);
  for (const CollectiveMember& mm : m.members) {
    const CollectiveInfo& c = trace.collectives[mm.collective];
    CollectivePeer p;
    p.rank = mm.rank;
    p.device = mm.device;
    p.collective = mm.collective;
    p.slice = cpu_side ? (c.cpu_op.valid() ? c.cpu_op : c.kernel) : (c.kernel.valid() ? c.kernel : c.cpu_op);
    p.start = mm.start;
    p.after_first_ns = mm.start - m.first_start;
    p.selected = mm.collective == self;
    if (p.selected) p.slice = slice;
    out.members.push_back(p);
  }
  return out;
}

}  // namespace parascope
