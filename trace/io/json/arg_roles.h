// What the JSON importer reads in Kineto's events: the arg keys it understands (each a Role, found
// by one switch on the key's length), the roles each record family turns into detail-record fields
// (every other arg stays a free-form arg), the event categories, and the names that spell copy,
// memory and sync kinds. One pass over an event's args fills Fields; the families read from it.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>

#include "trace/core/events.h"
#include "trace/io/json/chrome_json_parser.h"

namespace parascope::kineto {


enum Role : uint8_t {
  kRoleNone, kDevice, kStream, kCorrelation, kExternalId, kGrid, kBlock, kRegisters, kSharedMemory,
  kGraphId, kGraphNodeId, kBytes, kFromDevice, kToDevice, kInDevice, kSrcDevice, kDstDevice,
  kBandwidth, kCollectiveName, kInNelems, kOutNelems, kGroupSize, kDtype, kPgName, kPgRanks, kSeq,
  kSrcRank, kDstRank, kWaitOnStream, kWaitOnEventId, kSyncKind, kCbid, kFlops, kSequenceNumber,
  kTotalAllocated, kTotalReserved, kDeviceId, kDeviceType, kRoleCount
};
static_assert(kRoleCount <= 64, "roles are a 64-bit mask");
constexpr uint64_t bit(Role r) { return uint64_t{1} << r; }

Role arg_role(std::string_view key);  // kRoleNone for keys the importer keeps as free-form args

// Args of one event by role; other args are kept as free-form args.
struct Fields {
  uint64_t present = 0;
  const JsonToken* v[kRoleCount];
  bool has(Role r) const { return (present >> r) & 1; }
  int64_t i64(Role r, int64_t dflt) const {
    int64_t x;
    return has(r) && v[r]->to_int(x) ? x : dflt;
  }
  uint64_t u64(Role r, uint64_t dflt = 0) const {
    uint64_t x;
    return has(r) && v[r]->to_uint(x) ? x : dflt;
  }
  std::string_view str(Role r) const { return has(r) && v[r]->is_string() ? v[r]->text : std::string_view(); }
};

// Structured roles per kind: these live in detail records, everything else stays an arg.
constexpr uint64_t kGpuPlace = bit(kDevice) | bit(kStream) | bit(kCorrelation) | bit(kExternalId);
constexpr uint64_t kKernelRoles = kGpuPlace | bit(kGrid) | bit(kBlock) | bit(kRegisters) | bit(kSharedMemory) |
                                  bit(kGraphId) | bit(kGraphNodeId);
constexpr uint64_t kCollectiveRoles = bit(kCollectiveName) | bit(kInNelems) | bit(kOutNelems) | bit(kGroupSize) |
                                      bit(kDtype) | bit(kPgName) | bit(kPgRanks) | bit(kSeq) | bit(kSrcRank) | bit(kDstRank);
// "memory bandwidth (GB/s)" is bytes / dur: derived, not stored (writers recompute it).
constexpr uint64_t kMemcpyRoles = kGpuPlace | bit(kInDevice) | bit(kBytes) | bit(kFromDevice) | bit(kToDevice) |
                                  bit(kSrcDevice) | bit(kDstDevice) | bit(kBandwidth) | bit(kGraphId) | bit(kGraphNodeId);
constexpr uint64_t kMemsetRoles = kGpuPlace | bit(kBytes) | bit(kBandwidth) | bit(kGraphId) | bit(kGraphNodeId);
constexpr uint64_t kSyncRoles = kGpuPlace | bit(kWaitOnStream) | bit(kWaitOnEventId) | bit(kSyncKind);
constexpr uint64_t kCpuOpRoles = bit(kExternalId) | bit(kFlops) | bit(kSequenceNumber);
constexpr uint64_t kApiRoles = bit(kCorrelation) | bit(kCbid);

enum class Cat : uint8_t {
  kOther, kCpuOp, kUserAnnotation, kPythonFunction, kGpuUserAnnotation, kRuntime, kDriver, kKernel,
  kMemcpy, kMemset, kSync, kCudaEvent, kOverhead,
  kCudaProfilerRange  // CUPTI range profiling ("cuda_profiler_range"): one kernel's counter range on a device
};

Cat classify_cat(std::string_view category);
bool is_gpu(Cat c);
CopyKind copy_kind_from_name(std::string_view name);          // "Memcpy HtoD (...)" → kHtoD
MemoryKind memory_kind_from_word(std::string_view word);      // "Pinned" → kPinned
// "Memcpy DtoH (Device -> Pinned)" → {Device, Pinned}
std::pair<MemoryKind, MemoryKind> memory_kinds_from_name(std::string_view name);
// Kineto's syncTypeString: "Event Sync", "Stream Wait Event", "Stream Sync", "Context Sync".
SyncKind sync_kind_from_name(std::string_view name);
uint8_t dtype_bytes(std::string_view dtype);                  // "BFloat16" → 2; 0 when unknown
void dims(const JsonToken* t, uint32_t out[3]);               // "[24, 1, 1]" → {24, 1, 1}
// Flow ids as Perfetto reads them: numbers, or text parsed as hex (then decimal); other text interned.
bool flow_id_number(const JsonToken& t, uint64_t& out);

}  // namespace parascope::kineto
