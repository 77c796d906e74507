#include "sim/collective_params.h"

#include <algorithm>

namespace parascope::sim {

namespace {

constexpr std::string_view kOps[] = {"allreduce", "allgather",      "reducescatter",      "alltoall", "sendrecv",
                                     "send",      "allgather_gemm", "gemm_reducescatter", "gemm"};
constexpr std::string_view kAlgorithms[] = {"ring", "tree", "one_shot", "two_shot", "nvls"};
constexpr std::string_view kProtocols[] = {"auto", "simple", "ll128", "ll"};

// The position of `value` in `names`; the registry has checked it is one of them.
template <size_t N>
size_t index_of(const std::string_view (&names)[N], std::string_view value) {
  return static_cast<size_t>(std::find(std::begin(names), std::end(names), value) - std::begin(names));
}

}  // namespace

std::string_view to_string(WorkloadOp op) { return kOps[static_cast<size_t>(op)]; }
std::string_view to_string(Algorithm a) { return kAlgorithms[static_cast<size_t>(a)]; }
std::string_view to_string(Protocol p) { return kProtocols[static_cast<size_t>(p)]; }

CollectiveParams resolve_params(std::string_view op, const KnobSettings& k, const std::string& where) {
  CollectiveParams p;
  const size_t o = index_of(kOps, op);
  if (o == std::size(kOps)) throw KnobError(where + ": unknown operation");
  p.op = static_cast<WorkloadOp>(o);
  p.algorithm = static_cast<Algorithm>(index_of(kAlgorithms, k.get_enum("algorithm")));
  p.algorithm_set = k.is_set("algorithm");
  p.mechanism_name = k.get_enum("mechanism");
  p.mechanism_set = k.is_set("mechanism");
  const std::string& m = p.mechanism_name;
  p.mechanism = m == "ce" ? Mechanism::kCopyEngine
                : m == "tma" || m == "tma_pull" ? Mechanism::kTma
                : m == "multimem"               ? Mechanism::kMultimem
                                                : Mechanism::kLdSt;
  if (p.algorithm == Algorithm::kNvls && !p.mechanism_set) p.mechanism = Mechanism::kMultimem;
  p.pull = m == "ldst_pull" || m == "tma_pull";
  p.protocol = static_cast<Protocol>(index_of(kProtocols, k.get_enum("protocol")));
  p.bytes = static_cast<double>(k.get_int("bytes"));
  p.gpus = k.get_int("gpus");
  p.gpus_set = k.is_set("gpus");
  p.channels = static_cast<uint32_t>(k.get_int("channels"));
  p.channels_set = k.is_set("channels");
  p.window = static_cast<uint32_t>(k.get_int("window"));
  p.step_granularity = k.get_enum("granularity") == "step";
  p.chunk_bytes = static_cast<double>(k.get_int("chunk_bytes"));
  p.chunk_bytes_set = k.is_set("chunk_bytes");
  p.threads_per_channel = static_cast<double>(k.get_int("threads_per_channel"));
  p.ll_max_bytes = static_cast<double>(k.get_int("ll_max_bytes"));
  p.ll128_max_bytes = static_cast<double>(k.get_int("ll128_max_bytes"));
  p.nccl_profile = k.get_bool("nccl_profile");
  p.repeat = k.get_int("repeat");
  p.gemm_m = k.get_int("gemm_m");
  p.gemm_n = k.get_int("gemm_n");
  p.gemm_k = k.get_int("gemm_k");
  p.gemm_efficiency = k.get_double("gemm_efficiency");
  p.compute_scale = k.get_double("compute_scale");
  p.dtype_bytes = k.get_int("dtype_bytes");
  p.num_comm_sms = k.get_int("num_comm_sms");
  p.intra_sm = k.get_enum("overlap") == "intra_sm";
  return p;
}

}  // namespace parascope::sim
