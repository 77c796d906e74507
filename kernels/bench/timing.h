// Timing of an Op across GPUs with CUDA events. Each sample: GPU 0 records a start event, the
// other GPUs' streams wait on it, every GPU replays its graph of K instances, GPU 0 waits for the
// others and records the end; sample = elapsed / K. Graphs are captured per GPU (as nccl-tests
// does), falling back to plain stream enqueue (mode "stream") when capture is refused. With
// flush_l2, a 2 × L2 memset runs on every GPU before each sample, outside the timed region
// (only meaningful with K = 1).
#pragma once

#include <string>
#include <vector>

#include "device/gpu_context.h"
#include "device/op.h"
#include "host/stats.h"

namespace parascope::bench {

struct TimingResult {
  Summary ns;                  // per-op nanoseconds
  std::vector<double> samples;
  int ops_per_graph = 0;
  std::string mode;            // "graphs" | "stream"
  std::string kernels;         // distinct kernel names in the first GPU's graph (which NCCL kernel ran)
  std::string problem;         // non-empty: the timing failed (barrier timeout, capture error...)
};

TimingResult time_op(GpuContext& ctx, Op& op, const TimingPlan& plan, bool flush_l2 = false);

}  // namespace parascope::bench
