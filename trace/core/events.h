// The event vocabulary of the trace model: what a slice on a track can be, and the compact POD
// detail record each kind carries. Slices themselves live in per-track columns (track.h); a slice's
// SliceRef says which kind it is and where its detail record sits in the trace-wide table of that
// kind (trace.h). Every POD here is a fixed size checked by static_assert, because memory per event
// is a product requirement (a kernel costs 24 bytes of columns + 20 of KernelInfo + 4 of args).
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>

#include "trace/core/string_table.h"
#include "trace/core/time.h"

namespace parascope {

// What a slice is. Stored in the top 4 bits of SliceRef: at most 16 kinds.
enum class SliceKind : uint8_t {
  kGeneric = 0,    // anything without a typed detail (Chrome X/B/E slices); args hold the rest
  kKernel,         // GPU kernel (KernelInfo)
  kMemcpy,         // GPU copy, any direction, including peer copies (MemcpyInfo)
  kMemset,         // GPU memset (MemsetInfo)
  kSync,           // GPU/host synchronisation (SyncInfo)
  kNvtxRange,      // NVTX push/pop or start/end range; instants have dur 0 (NvtxInfo)
  kCpuOp,          // framework operator on a CPU thread (CpuOpInfo)
  kRuntimeApi,     // CUDA runtime/driver API call (ApiInfo)
  kGpuAnnotation,  // framework range projected onto a GPU stream (Kineto gpu_user_annotation)
  kSmSpan,         // one block's/warp's span on an SM lane, from probe records (SmSpanInfo)
  kOverhead,       // profiler overhead (CUPTI OVERHEAD, buffer flushes)
  kInstant,        // a point event (Chrome "i"), dur 0
  kCount
};
static_assert(static_cast<int>(SliceKind::kCount) <= 16, "SliceKind must fit in 4 bits");

std::string_view to_string(SliceKind kind);

// The colour/analysis class of a slice. Communication is decided from structured data first
// (collective annotations, peer copies, probe roles) and from kernel names last (classify.h).
// Synchronisation is never compute.
enum class Category : uint8_t { kCompute, kCommunication, kMemory, kSync, kHost, kAnnotation, kIdle, kOther };
std::string_view to_string(Category c);

// Kind + index into the trace-wide detail table of that kind; index kNoDetail for kinds without
// one (kGeneric, kGpuAnnotation, kInstant may still have none).
class SliceRef {
 public:
  static constexpr uint32_t kIndexBits = 28;
  static constexpr uint32_t kNoDetail = (1u << kIndexBits) - 1;
  static constexpr uint32_t kMaxIndex = kNoDetail - 1;

  constexpr SliceRef() = default;
  constexpr SliceRef(SliceKind kind, uint32_t index)
      : bits_((static_cast<uint32_t>(kind) << kIndexBits) | (index & kNoDetail)) {}
  constexpr SliceKind kind() const { return static_cast<SliceKind>(bits_ >> kIndexBits); }
  constexpr uint32_t index() const { return bits_ & kNoDetail; }
  constexpr bool has_detail() const { return index() != kNoDetail; }
  constexpr uint32_t bits() const { return bits_; }
  static constexpr SliceRef from_bits(uint32_t b) {
    SliceRef r;
    r.bits_ = b;
    return r;
  }
  friend constexpr bool operator==(SliceRef, SliceRef) = default;

 private:
  uint32_t bits_ = kNoDetail;  // kind kGeneric, no detail
};
static_assert(sizeof(SliceRef) == 4);

// A slice anywhere in a trace: (track index, row in that track's columns).
struct EventRef {
  uint32_t track = std::numeric_limits<uint32_t>::max();
  uint32_t index = std::numeric_limits<uint32_t>::max();
  constexpr bool valid() const { return track != std::numeric_limits<uint32_t>::max(); }
  friend constexpr bool operator==(EventRef, EventRef) = default;
  friend constexpr bool operator<(EventRef a, EventRef b) {
    return a.track != b.track ? a.track < b.track : a.index < b.index;
  }
};
static_assert(sizeof(EventRef) == 8);

// 64-bit values are split into two 32-bit halves in the detail PODs so they pack to 4-byte
// alignment (a 20-byte record instead of 24).
struct U64Split {
  uint32_t lo = 0, hi = 0;
  constexpr U64Split() = default;
  constexpr U64Split(uint64_t v) : lo(static_cast<uint32_t>(v)), hi(static_cast<uint32_t>(v >> 32)) {}
  constexpr uint64_t get() const { return (static_cast<uint64_t>(hi) << 32) | lo; }
};
static_assert(sizeof(U64Split) == 8 && alignof(U64Split) == 4);

inline constexpr uint32_t kNone32 = std::numeric_limits<uint32_t>::max();
inline constexpr uint16_t kNoDevice = std::numeric_limits<uint16_t>::max();

// Grid/block/resources of a launch; interned per trace (kernels repeat a handful of configs).
struct LaunchConfig {
  uint32_t grid[3] = {0, 0, 0};
  uint32_t block[3] = {0, 0, 0};
  uint32_t registers_per_thread = 0;
  uint32_t static_smem = 0;
  uint32_t dynamic_smem = 0;
  friend bool operator==(const LaunchConfig&, const LaunchConfig&) = default;
};
static_assert(sizeof(LaunchConfig) == 36);

struct KernelInfo {
  uint32_t launch_config = kNone32;  // index into Trace::launch_configs
  uint32_t correlation = 0;          // CUPTI/Kineto correlation id (launch ↔ kernel)
  uint32_t graph_id = 0;             // CUDA graph id, 0: not launched from a graph
  U64Split graph_node_id;            // CUDA graph node id, 0: none
};
static_assert(sizeof(KernelInfo) == 20);

enum class CopyKind : uint8_t { kUnknown, kHtoD, kDtoH, kDtoD, kHtoH, kPtoP };
std::string_view to_string(CopyKind k);
// How bytes moved. Copy-engine copies come from CUPTI/Kineto; SM-driven mechanisms from probes/sim.
enum class Mechanism : uint8_t { kUnknown, kCopyEngine, kTma, kLdSt, kMultimem, kNic };
std::string_view to_string(Mechanism m);
enum class MemoryKind : uint8_t { kUnknown, kDevice, kPageable, kPinned, kManaged, kArray };

struct MemcpyInfo {
  U64Split bytes;
  uint32_t correlation = 0;
  uint16_t src_device = kNoDevice;  // trace device index; kNoDevice for host memory
  uint16_t dst_device = kNoDevice;
  CopyKind copy_kind = CopyKind::kUnknown;
  Mechanism mechanism = Mechanism::kCopyEngine;
  MemoryKind src_memory = MemoryKind::kUnknown;
  MemoryKind dst_memory = MemoryKind::kUnknown;
};
static_assert(sizeof(MemcpyInfo) == 20);

struct MemsetInfo {
  U64Split bytes;
  uint32_t correlation = 0;
  uint32_t value = 0;
  MemoryKind memory = MemoryKind::kUnknown;
  uint8_t pad[3] = {0, 0, 0};
};
static_assert(sizeof(MemsetInfo) == 20);

enum class SyncKind : uint8_t { kUnknown, kEventSync, kStreamWaitEvent, kStreamSync, kContextSync, kDeviceSync };
std::string_view to_string(SyncKind k);
struct SyncInfo {
  uint32_t correlation = 0;
  uint32_t event_id = kNone32;   // CUDA event waited on/recorded, where known
  int64_t stream = -1;           // stream waited for (kStreamWaitEvent: the waiting stream is the track)
  SyncKind kind = SyncKind::kUnknown;
  uint8_t pad[7] = {};
};
static_assert(sizeof(SyncInfo) == 24);

struct NvtxInfo {
  StringId domain = kEmptyString;
  StringId category = kEmptyString;
  uint32_t color_argb = 0;   // 0: none
  U64Split payload;          // raw payload bits; payload_type says how to read them
  uint8_t payload_type = 0;  // 0 none, 1 u64, 2 i64, 3 double, 4 u32, 5 i32, 6 float
  uint8_t pad[3] = {};
};
static_assert(sizeof(NvtxInfo) == 24);

struct CpuOpInfo {
  U64Split external_id;      // Kineto "External id": links an op to the kernels it launched
  U64Split flops;            // 0: unknown
  uint32_t sequence = kNone32;  // autograd sequence number
};
static_assert(sizeof(CpuOpInfo) == 20);

struct ApiInfo {
  uint32_t correlation = 0;
  uint32_t cbid = 0;  // CUPTI callback id where known
  int32_t result = 0;
};
static_assert(sizeof(ApiInfo) == 12);

// Intra-kernel span role, as in ProbeRecord. Sub-row of an SM lane = role.
enum class SmRole : uint8_t { kCompute = 0, kCommunicate = 1, kWait = 2, kOther = 3 };
inline constexpr int kSmRoleCount = 4;
std::string_view to_string(SmRole r);

struct SmSpanInfo {
  uint32_t block = 0;
  uint32_t tag = 0;
  uint32_t launch_id = 0;
  EventRef kernel;   // the kernel the span ran inside, once matched; invalid otherwise
  uint8_t warp = 0;
  SmRole role = SmRole::kOther;
  uint8_t pad[2] = {};
};
static_assert(sizeof(SmSpanInfo) == 24);

// NCCL-style collective annotation: what a communication kernel (or CPU op) was doing.
enum class CollectiveOp : uint8_t {
  kUnknown, kAllReduce, kAllGather, kReduceScatter, kBroadcast, kReduce, kAllToAll, kSend, kRecv,
  kSendRecv, kBarrier, kGather, kScatter
};
std::string_view to_string(CollectiveOp op);
CollectiveOp collective_op_from_name(std::string_view name);  // "allreduce", "AllReduce", "all_reduce"...

struct CollectiveInfo {
  CollectiveOp op = CollectiveOp::kUnknown;
  uint8_t dtype_bytes = 0;        // element size; 0: unknown
  uint16_t channels = 0;          // 0: unknown
  int32_t rank = -1;              // rank within the group, -1 unknown
  int32_t group_size = 0;
  StringId dtype = kEmptyString;  // "Float", "BFloat16", "f32"...
  StringId group = kEmptyString;  // process-group name (Kineto "Process Group Name")
  StringId group_ranks = kEmptyString;  // "[0, 1]" as given
  StringId algorithm = kEmptyString;    // "RING", "TREE", ...
  StringId protocol = kEmptyString;     // "LL", "LL128", "SIMPLE"
  int64_t sequence = -1;          // per-group sequence number; -1 unknown
  uint64_t in_elements = 0;
  uint64_t out_elements = 0;
  EventRef kernel;                // the GPU kernel this describes, if any
  EventRef cpu_op;                // the CPU op that issued it, if any
  int32_t peer = -1;              // send/recv peer rank
};

enum class FlowKind : uint8_t { kLaunch, kSendRecv, kSignalWait, kCollective, kDependency, kGeneric };
std::string_view to_string(FlowKind k);
struct Flow {
  EventRef from;
  EventRef to;
  FlowKind kind = FlowKind::kGeneric;
  uint8_t pad[3] = {};
};
static_assert(sizeof(Flow) == 20, "a flow is 20 bytes (EventRef is 4-byte aligned)");

}  // namespace parascope
