// A workload step's knobs resolved once into typed parameters, so the workload generators
// (collectives.cpp) never read a knob by name or compare its text: the operation, algorithm,
// mechanism and protocol as enums, sizes and counts as numbers, and which of them the user set (a
// set value wins over what a topology's measured NCCL profile would choose).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sim/knobs.h"
#include "trace/core/events.h"

namespace parascope::sim {

// workload_ops(), in that order.
enum class WorkloadOp : uint8_t { kAllReduce, kAllGather, kReduceScatter, kAllToAll, kSendRecv, kSend, kAllGatherGemm, kGemmReduceScatter, kGemm };
// The knob algorithm's choices, in the registry's order.
enum class Algorithm : uint8_t { kRing, kTree, kOneShot, kTwoShot, kNvls };
// The knob protocol's choices, in the registry's order.
enum class Protocol : uint8_t { kAuto, kSimple, kLl128, kLl };

std::string_view to_string(WorkloadOp op);  // "allreduce", as workload_ops() names it
std::string_view to_string(Algorithm a);    // "one_shot", as the knob names it
std::string_view to_string(Protocol p);     // "ll128"

struct CollectiveParams {
  WorkloadOp op = WorkloadOp::kAllReduce;
  Algorithm algorithm = Algorithm::kRing;
  bool algorithm_set = false;
  Mechanism mechanism = Mechanism::kLdSt;  // ldst_pull: kLdSt and pull; nvls without a mechanism: kMultimem
  bool pull = false;                       // the receiver's SMs read (ldst_pull, tma_pull)
  bool mechanism_set = false;
  std::string mechanism_name;              // the knob's value, for messages ("ldst_pull")
  Protocol protocol = Protocol::kAuto;
  double bytes = 0;                        // per-rank payload
  int64_t gpus = 0;
  bool gpus_set = false;
  uint32_t channels = 0;
  bool channels_set = false;
  uint32_t window = 0;
  bool step_granularity = false;           // granularity=step: one message per channel and step
  double chunk_bytes = 0;
  bool chunk_bytes_set = false;
  double threads_per_channel = 0;
  double ll_max_bytes = 0, ll128_max_bytes = 0;
  bool nccl_profile = true;
  int64_t repeat = 1;
  int64_t gemm_m = 0, gemm_n = 0, gemm_k = 0;
  double gemm_efficiency = 1, compute_scale = 1;
  int64_t dtype_bytes = 2;
  int64_t num_comm_sms = 0;
  bool intra_sm = false;                   // overlap=intra_sm

  bool fused() const { return op == WorkloadOp::kAllGatherGemm || op == WorkloadOp::kGemmReduceScatter; }
  bool direct_kernel() const { return algorithm == Algorithm::kOneShot || algorithm == Algorithm::kTwoShot; }
};

// `op` is one of workload_ops(); KnobError "<where>: unknown operation" otherwise.
CollectiveParams resolve_params(std::string_view op, const KnobSettings& knobs, const std::string& where);

}  // namespace parascope::sim
