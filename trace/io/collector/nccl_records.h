// What the collector's NCCL profiler plugin saw, inside kNcclRecords chunks: communicators, every
// collective / point-to-point operation (op, count, dtype, algorithm, protocol, channels, sequence
// number, communicator, rank) and every NCCL kernel launch with the CUPTI correlation id of its
// cuLaunchKernelEx, so readers link operations to kernels without CUDA.
// Payload: records back to back, u8 kind, v body_bytes, body (unknown kinds are skipped; a body may
// grow at its end). Times are CUPTI nanoseconds (the same clock as kCuptiRecords).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "trace/core/events.h"
#include "trace/io/collector/collector_records.h"
#include "trace/io/common/byte_io.h"

namespace parascope::collector {

enum class NcclRecordKind : uint8_t {
  kUnknown = 0,
  kCommInit = 1,      // a communicator this process joined
  kCollective = 2,    // one collective (NCCL "Coll" event)
  kP2p = 3,           // one send or recv (NCCL "P2p" event)
  kKernelLaunch = 4,  // one NCCL kernel launch (may carry several operations of one group)
  kGroup = 5,         // one outermost ncclGroupStart/End (or implicit group) on a thread
  kCommFinalize = 6,
};
inline constexpr uint8_t kMaxNcclRecordKind = 6;
std::string_view to_string(NcclRecordKind k);

// Fields by kind:
//   comm_init      comm_hash comm_name nnodes nranks rank device pid start_ns
//   collective     comm_hash rank sequence func count datatype root channels warps algorithm
//                  protocol group launch stream graph_captured start_ns end_ns (enqueue, host)
//                  api_start_ns api_end_ns (the ncclAllReduce… call) tid
//   p2p            comm_hash rank func count datatype peer channels group launch stream
//                  graph_captured start_ns end_ns api_start_ns api_end_ns tid
//   kernel_launch  comm_hash group launch stream correlation (0: not seen) start_ns end_ns tid
//   group          group depth graph_captured start_ns end_ns tid
//   comm_finalize  comm_hash start_ns
// `group` and `launch` are serial numbers unique within the process (0: unknown). An operation
// ran in the kernel of the kernel_launch record with the same `launch`.
struct NcclRecord {
  NcclRecordKind kind = NcclRecordKind::kCollective;
  uint64_t comm_hash = 0;
  std::string comm_name;
  int32_t nnodes = 0, nranks = 0, rank = -1, device = -1;
  uint32_t pid = 0, tid = 0;
  uint64_t sequence = 0;
  std::string func, datatype, algorithm, protocol;
  uint64_t count = 0;
  int32_t root = -1, peer = -1;
  uint32_t channels = 0, warps = 0;
  uint64_t group = 0, launch = 0;
  uint64_t stream = 0;            // the cudaStream_t handle value NCCL reported (0: unknown)
  uint32_t correlation = 0;
  int32_t depth = 0;
  bool graph_captured = false;
  uint64_t start_ns = 0, end_ns = 0, api_start_ns = 0, api_end_ns = 0;
};

void encode(ByteWriter& w, const NcclRecord& r);
NcclRecord decode_nccl(ByteReader& r);   // kind kUnknown for kinds this reader does not know
std::vector<NcclRecord> decode_all_nccl(ByteReader& r);

// NCCL's names ("AllReduce", "ncclBfloat16") to the model's vocabulary.
CollectiveOp nccl_op(std::string_view func);
uint8_t nccl_dtype_bytes(std::string_view datatype);  // 0: unknown
// Elements in and out of one rank for an operation of `count` (NCCL's API count) on nranks.
void nccl_elements(CollectiveOp op, uint64_t count, int32_t nranks, uint64_t* in, uint64_t* out);

// The CUPTI correlation id of the kernel that ran each record of `records` (0: none found), in
// record order. A kernel_launch record whose correlation is 0 (the collector's launch callback was
// unavailable) is resolved from `api` records: the cuLaunchKernel* driver call on the launch's
// thread inside the launch's [start, end].
std::vector<uint32_t> nccl_kernel_correlations(const std::vector<NcclRecord>& records,
                                               const std::vector<CollectedActivity>& api);

}  // namespace parascope::collector
