// What a finished simulation says, in two forms: a summary (per collective: time, algbw, busbw; per
// resource: bytes, peak and mean utilization) for the CLI and the GUI's what-if panel, and a Trace
// in the same model measured runs use (a rank per GPU; kernels per stream with their collective
// annotation; SM-lane spans; per-link counter tracks marked CounterSource::kSimulated), so measured
// and simulated runs share every view, export and diff.
#pragma once

#include <string>
#include <vector>

#include "sim/simulator.h"
#include "trace/core/trace.h"

namespace parascope::sim {

struct CollectiveSummary {
  uint32_t index = 0;
  std::string name;              // "allreduce"
  std::string algorithm;
  double bytes = 0;
  int32_t gpus = 0;
  uint32_t stream = 0;
  bool compute = false;
  TimePs start = 0, end = 0;     // first actor start, last actor end
  double algbw = 0, busbw = 0;   // bytes/s (0 for compute steps)
};

struct ResourceSummary {
  std::string name;
  ResourceKind kind = ResourceKind::kLink;
  double capacity = 0;           // bytes/s
  double bytes = 0;
  double peak = 0;               // bytes/s
  double peak_utilization = 0;   // peak / capacity
  double mean_utilization = 0;   // bytes / (capacity x makespan)
};

struct SimSummary {
  TimePs makespan = 0;
  uint64_t messages = 0;
  uint64_t batches = 0;
  std::vector<CollectiveSummary> collectives;
  std::vector<ResourceSummary> resources;  // platform resources that carried bytes, in platform order
  std::vector<std::string> warnings;
};

SimSummary summarize(const Platform& platform, const Workload& workload, const SimResult& result, const Simulator& sim);

// The simulation as a trace. Link counter tracks need SimOptions::record_link_samples.
Trace simulation_trace(const Platform& platform, const Workload& workload, const SimResult& result, const Simulator& sim);

}  // namespace parascope::sim
