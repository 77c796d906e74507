// Workload generators: NCCL-style collectives (ring, tree, one-shot, two-shot and NVLS all-reduce;
// ring or direct all-gather and reduce-scatter; all-to-all; send/recv), fused all-gather+GEMM and
// GEMM+reduce-scatter, and plain GEMMs, for any number of GPUs and nodes. A collective expands into
// channels x steps x chunks of messages with `window` in flight per connection (granularity=chunk),
// or one message per channel and step (granularity=step). Steps on the same stream of a GPU run in
// order; different streams overlap. Every parameter comes from the knob registry (knobs.h), resolved
// once per step into typed CollectiveParams (collective_params.h).
#pragma once

#include <string>
#include <vector>

#include "sim/knobs.h"
#include "sim/platform.h"
#include "sim/workload.h"

namespace parascope::sim {

struct WorkloadStep {
  std::string op;      // one of workload_ops()
  KnobSettings knobs;  // algorithm, bytes, gpus, channels, chunk_bytes, window, mechanism, ...
  uint32_t stream = 0;
  // Which topology GPUs take part, in rank order; empty: GPUs 0..gpus-1. The what-if replay uses
  // it for a trace's process groups (a tensor-parallel group on GPUs 4-7, a data-parallel group
  // with one GPU per node).
  std::vector<int32_t> gpu_list;
};

// "allreduce", "allgather", "reducescatter", "alltoall", "sendrecv", "allgather_gemm",
// "gemm_reducescatter", "gemm".
const std::vector<std::string>& workload_ops();
// Accepts the canonical names and common spellings ("all_reduce", "AllReduce", "ag_gemm"...);
// empty when unknown.
std::string canonical_op(std::string_view name);

// Throws KnobError when a step cannot run on the platform (more GPUs than it has, NVLS without a
// switch, an algorithm the op does not have...), naming the step and the knob.
Workload build_workload(const Platform& platform, const std::vector<WorkloadStep>& steps);

// NCCL's bus-bandwidth factor for an op on n ranks (all-reduce 2(n-1)/n, all-gather (n-1)/n...).
double busbw_factor(CollectiveOp op, int n);

// The platform knobs: link_bandwidth_scale and hbm.
PlatformOptions platform_options(const KnobSettings& knobs);

}  // namespace parascope::sim
