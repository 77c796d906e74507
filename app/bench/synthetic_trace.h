// A generated trace shaped like an N-GPU training run with per-SM probe lanes, built through
// TraceBuilder like every real importer: per rank a CPU thread (ProfilerStep → phases → aten ops →
// cudaLaunchKernel, with launch flows), a compute stream (GEMMs, elementwise), an NCCL stream
// (all-reduce kernels with collective annotations and cross-rank flows), a copy stream (P2P copies
// with send/recv flows), NVTX ranges, one SM lane per SM (compute / communicate / wait spans) and
// NVLink counters (rank 0 measured, the others estimated). Deterministic: same options, same trace.
#pragma once

#include <cstdint>

#include "trace/core/trace.h"

namespace parascope::bench {

struct SyntheticOptions {
  int ranks = 8;
  int sms = 132;                        // SMs per GPU (H200: 132)
  int64_t target_events = 10'000'000;   // slices + counter samples; the step count is chosen to reach it
  int steps = 0;                        // > 0: exactly this many steps, target_events ignored
  uint64_t seed = 1;
  bool reserve = true;                  // reserve detail tables up front (keeps peak memory near the final size)
};

struct SyntheticStats {
  int steps = 0;
  int64_t slices = 0;
  int64_t counter_samples = 0;
  int64_t kernels = 0;
  int64_t sm_spans = 0;
  int64_t flows = 0;
  int64_t events() const { return slices + counter_samples; }
};

// Events (slices + counter samples) one training step adds over all ranks, for `o`.
int64_t synthetic_events_per_step(const SyntheticOptions& o);

Trace make_synthetic_trace(const SyntheticOptions& o, SyntheticStats* stats = nullptr);

}  // namespace parascope::bench
