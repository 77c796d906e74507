#include "trace/io/json/arg_roles.h"

#include <algorithm>
#include <cstring>
#include <initializer_list>

namespace parascope::kineto {

namespace {

struct KeyRole {
  std::string_view key;
  Role role;
};

}  // namespace

Role arg_role(std::string_view k) {
  auto pick = [&](std::initializer_list<KeyRole> cands) {
    for (const KeyRole& c : cands)
      if (std::memcmp(k.data(), c.key.data(), k.size()) == 0) return c.role;
    return kRoleNone;
  };
  switch (k.size()) {
    case 3: return pick({{"Seq", kSeq}});
    case 4: return pick({{"grid", kGrid}, {"cbid", kCbid}});
    case 5: return pick({{"block", kBlock}, {"bytes", kBytes}, {"dtype", kDtype}, {"flops", kFlops}});
    case 6: return pick({{"device", kDevice}, {"stream", kStream}});
    case 8:
      return pick({{"graph id", kGraphId}, {"toDevice", kToDevice}, {"inDevice", kInDevice},
                   {"Src Rank", kSrcRank}, {"Dst Rank", kDstRank}});
    case 9: return pick({{"Device Id", kDeviceId}});
    case 10:
      return pick({{"fromDevice", kFromDevice}, {"Group size", kGroupSize}, {"src device", kSrcDevice},
                   {"dst device", kDstDevice}});
    case 11: return pick({{"correlation", kCorrelation}, {"External id", kExternalId}, {"Device Type", kDeviceType}});
    case 13: return pick({{"shared memory", kSharedMemory}, {"graph node id", kGraphNodeId}, {"In msg nelems", kInNelems}});
    case 14:
      return pick({{"Out msg nelems", kOutNelems}, {"wait_on_stream", kWaitOnStream}, {"cuda_sync_kind", kSyncKind},
                   {"Total Reserved", kTotalReserved}});
    case 15:
      return pick({{"Collective name", kCollectiveName}, {"Sequence number", kSequenceNumber},
                   {"Total Allocated", kTotalAllocated}});
    case 18: return pick({{"Process Group Name", kPgName}});
    case 19: return pick({{"Process Group Ranks", kPgRanks}});
    case 20: return pick({{"registers per thread", kRegisters}});
    case 21: return pick({{"wait_on_cuda_event_id", kWaitOnEventId}});
    case 23: return pick({{"memory bandwidth (GB/s)", kBandwidth}});
    default: return kRoleNone;
  }
}

Cat classify_cat(std::string_view c) {
  switch (c.size()) {
    case 6:
      if (c == "kernel" || c == "Kernel") return Cat::kKernel;
      if (c == "cpu_op") return Cat::kCpuOp;
      if (c == "Memcpy" || c == "Memset") return c[3] == 'c' ? Cat::kMemcpy : Cat::kMemset;
      break;
    case 8:
      if (c == "overhead" || c == "Overhead") return Cat::kOverhead;
      break;
    case 9:
      if (c == "cuda_sync") return Cat::kSync;
      break;
    case 10:
      if (c == "gpu_memcpy") return Cat::kMemcpy;
      if (c == "gpu_memset") return Cat::kMemset;
      if (c == "cuda_event") return Cat::kCudaEvent;
      break;
    case 11:
      if (c == "cuda_driver") return Cat::kDriver;
      break;
    case 12:
      if (c == "cuda_runtime") return Cat::kRuntime;
      break;
    case 15:
      if (c == "user_annotation" || c == "python_function")
        return c[0] == 'u' ? Cat::kUserAnnotation : Cat::kPythonFunction;
      break;
    case 19:
      if (c == "gpu_user_annotation") return Cat::kGpuUserAnnotation;
      if (c == "cuda_profiler_range") return Cat::kCudaProfilerRange;
      break;
    default: break;
  }
  return Cat::kOther;
}

bool is_gpu(Cat c) {
  return c == Cat::kKernel || c == Cat::kMemcpy || c == Cat::kMemset || c == Cat::kSync ||
         c == Cat::kGpuUserAnnotation || c == Cat::kCudaEvent || c == Cat::kCudaProfilerRange;
}

CopyKind copy_kind_from_name(std::string_view name) {
  if (name.find("HtoD") != std::string_view::npos) return CopyKind::kHtoD;
  if (name.find("DtoH") != std::string_view::npos) return CopyKind::kDtoH;
  if (name.find("DtoD") != std::string_view::npos) return CopyKind::kDtoD;
  if (name.find("HtoH") != std::string_view::npos) return CopyKind::kHtoH;
  if (name.find("PtoP") != std::string_view::npos || name.find("Peer") != std::string_view::npos) return CopyKind::kPtoP;
  return CopyKind::kUnknown;
}

MemoryKind memory_kind_from_word(std::string_view w) {
  if (w == "Device") return MemoryKind::kDevice;
  if (w == "Pageable") return MemoryKind::kPageable;
  if (w == "Pinned") return MemoryKind::kPinned;
  if (w == "Managed") return MemoryKind::kManaged;
  if (w == "Array") return MemoryKind::kArray;
  return MemoryKind::kUnknown;
}

std::pair<MemoryKind, MemoryKind> memory_kinds_from_name(std::string_view name) {
  const size_t open = name.find('(');
  const size_t arrow = name.find(" -> ");
  const size_t close = name.rfind(')');
  if (open == std::string_view::npos || arrow == std::string_view::npos || close == std::string_view::npos ||
      !(open < arrow && arrow < close))
    return {MemoryKind::kUnknown, MemoryKind::kUnknown};
  return {memory_kind_from_word(name.substr(open + 1, arrow - open - 1)),
          memory_kind_from_word(name.substr(arrow + 4, close - arrow - 4))};
}

SyncKind sync_kind_from_name(std::string_view n) {
  if (n.find("Wait") != std::string_view::npos) return SyncKind::kStreamWaitEvent;
  if (n.find("Event") != std::string_view::npos) return SyncKind::kEventSync;
  if (n.find("Stream") != std::string_view::npos) return SyncKind::kStreamSync;
  if (n.find("Context") != std::string_view::npos) return SyncKind::kContextSync;
  if (n.find("Device") != std::string_view::npos) return SyncKind::kDeviceSync;
  return SyncKind::kUnknown;
}

uint8_t dtype_bytes(std::string_view d) {
  if (d == "Float" || d == "float" || d == "f32" || d == "Int" || d == "int32" || d == "UInt32") return 4;
  if (d == "BFloat16" || d == "Half" || d == "bf16" || d == "f16" || d == "Short") return 2;
  if (d == "Double" || d == "Long" || d == "f64" || d == "int64" || d == "UInt64") return 8;
  if (d == "Byte" || d == "Char" || d == "Bool" || d == "Float8_e4m3fn" || d == "Float8_e5m2" || d == "uint8") return 1;
  return 0;
}

void dims(const JsonToken* t, uint32_t out[3]) {
  if (!t || t->type != JsonToken::Type::kArray) return;
  int k = 0;
  uint64_t v = 0;
  bool in = false;
  for (char c : t->text) {
    if (c >= '0' && c <= '9') {
      v = std::min<uint64_t>(v * 10 + static_cast<uint64_t>(c - '0'), UINT32_MAX);
      in = true;
    } else if (in) {
      if (k < 3) out[k++] = static_cast<uint32_t>(v);
      v = 0;
      in = false;
    }
  }
}

bool flow_id_number(const JsonToken& t, uint64_t& out) {
  if (t.type == JsonToken::Type::kNumber) return t.to_uint(out);
  if (t.type != JsonToken::Type::kString || t.text.empty()) return false;
  std::string_view s = t.text;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  if (s.size() > 16) return false;
  uint64_t v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return false;
    v = v * 16 + static_cast<uint64_t>(d);
  }
  out = v;
  return true;
}

}  // namespace parascope::kineto
