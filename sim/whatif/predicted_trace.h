// A replay as a Trace, in the same model a measured run uses (TraceBuilder): the graph's
// processes, devices, CPU threads and GPU streams with every operation at its replayed time, every
// track marked simulated; collective annotations on communication kernels; launch and wait flows;
// per-link load counters (CounterSource::kSimulated) from the interconnect model's bytes spread
// over each transfer. So a prediction opens in the GUI, exports, and feeds the same analyses
// (exposed communication, overlap, kernel statistics) as the measurement it is compared with.
#pragma once

#include <memory>
#include <vector>

#include "sim/platform.h"
#include "sim/whatif/comm_model.h"
#include "sim/whatif/replay.h"
#include "trace/core/trace.h"

namespace parascope::whatif {

// Load on one platform link direction over the replay: bytes/s from time[i] until time[i + 1].
struct LinkLoad {
  uint32_t resource = 0;
  std::vector<TimeNs> time;
  std::vector<double> bytes_per_s;
  double bytes = 0;
  double peak_bytes_per_s = 0;
};

// One entry per platform link/NIC resource that carried bytes, in resource order. `timings` per group
// (null: not simulated).
std::vector<LinkLoad> link_loads(const DepGraph& g, const ReplayResult& r,
                                 const std::vector<std::shared_ptr<const CommTiming>>& timings);

// `measured` (may be null) lends process and device identity (pid, host, PCI id, names).
Trace predicted_trace(const Trace* measured, const DepGraph& g, const ReplayResult& r, const sim::Platform& platform,
                      const std::vector<LinkLoad>& loads, const std::vector<std::string>& notes);

}  // namespace parascope::whatif
