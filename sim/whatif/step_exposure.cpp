#include "sim/whatif/step_exposure.h"

namespace parascope::whatif {

StepExposure::StepExposure(const DepGraph& g, const ReplayResult& r) {
  std::vector<std::vector<Interval>> comm(g.processes.size()), compute(g.processes.size());
  for (size_t n = 0; n < g.nodes.size() && n < r.start.size(); ++n) {
    const Node& node = g.nodes[n];
    if (node.removed || r.start[n] < 0 || r.end[n] <= r.start[n] || node.process >= g.processes.size()) continue;
    const Interval iv{r.start[n], r.end[n]};
    if (node.kind == NodeType::kCollective || node.kind == NodeType::kPeerCopy) comm[node.process].push_back(iv);
    else if (node.kind == NodeType::kCompute || node.kind == NodeType::kFused) compute[node.process].push_back(iv);
  }
  exposed_.reserve(g.processes.size());
  for (size_t p = 0; p < g.processes.size(); ++p)
    exposed_.push_back(IntervalSet::from(std::move(comm[p])).subtract(IntervalSet::from(std::move(compute[p]))));
}

TimeNs StepExposure::exposed(uint32_t process, TimeNs start, TimeNs end) const {
  return process < exposed_.size() && end > start ? exposed_[process].overlap(start, end) : 0;
}

}  // namespace parascope::whatif
