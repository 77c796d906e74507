// Exposed communication of one rank inside one step of a replay: |(M − C) ∩ [start, end)| with M
// the union of the rank's replayed communication (collectives, peer copies) and C of its compute
// kernels (fused GEMM+collective kernels count as compute) - exposed_communication.h's figure,
// per step instead of over the whole trace (warm-up and set-up included), on the graph's own kinds.
#pragma once

#include <vector>

#include "sim/whatif/dep_graph.h"
#include "sim/whatif/replay.h"
#include "trace/core/analysis/intervals.h"

namespace parascope::whatif {

class StepExposure {
 public:
  StepExposure(const DepGraph& g, const ReplayResult& r);
  // The exposed time of graph process `process` in [start, end) of the replay's clock.
  TimeNs exposed(uint32_t process, TimeNs start, TimeNs end) const;

 private:
  std::vector<IntervalSet> exposed_;  // per graph process: M − C
};

}  // namespace parascope::whatif
