#include "trace/io/json/kineto_importer.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <unordered_map>

#include "trace/core/error.h"
#include "trace/io/json/byte_source.h"
#include "trace/io/json/chrome_json_parser.h"
#include "trace/io/json/flow_binder.h"

namespace parascope {

namespace {

// String pids/tids (Chrome allows them) get ids in this range so they never collide with numbers.
constexpr int64_t kStringIdBase = int64_t{1} << 62;
constexpr uint32_t kNoTrack = ~0u;
// Kineto timestamps relative to baseTimeNanoseconds stay far below this; a file without a base whose
// timestamps reach it (2001-09-09 in Unix microseconds) was written on the wall clock already.
constexpr TimeNs kEpochClockNs = int64_t{1'000'000'000'000'000'000};

// ---------- argument keys the importer understands (one pass over args per event) ----------

enum Role : uint8_t {
  kRoleNone, kDevice, kStream, kCorrelation, kExternalId, kGrid, kBlock, kRegisters, kSharedMemory,
  kGraphId, kGraphNodeId, kBytes, kFromDevice, kToDevice, kInDevice, kSrcDevice, kDstDevice,
  kBandwidth, kCollectiveName, kInNelems, kOutNelems, kGroupSize, kDtype, kPgName, kPgRanks, kSeq,
  kSrcRank, kDstRank, kWaitOnStream, kWaitOnEventId, kSyncKind, kCbid, kFlops, kSequenceNumber,
  kTotalAllocated, kTotalReserved, kDeviceId, kDeviceType, kRoleCount
};
static_assert(kRoleCount <= 64, "roles are a 64-bit mask");
constexpr uint64_t bit(Role r) { return uint64_t{1} << r; }

struct KeyRole {
  std::string_view key;
  Role role;
};

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
  kMemcpy, kMemset, kSync, kCudaEvent, kOverhead
};

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
      break;
    default: break;
  }
  return Cat::kOther;
}

bool is_gpu(Cat c) {
  return c == Cat::kKernel || c == Cat::kMemcpy || c == Cat::kMemset || c == Cat::kSync ||
         c == Cat::kGpuUserAnnotation || c == Cat::kCudaEvent;
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

// "Memcpy DtoH (Device -> Pinned)" → {Device, Pinned}
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

// Kineto's syncTypeString: "Event Sync", "Stream Wait Event", "Stream Sync", "Context Sync".
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

// "[24, 1, 1]" → {24, 1, 1}
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

// Flow ids as Perfetto reads them: numbers, or text parsed as hex (then decimal); other text interned.
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

struct ThreadKey {
  int64_t pid, tid;
  friend bool operator==(const ThreadKey&, const ThreadKey&) = default;
};
struct ThreadKeyHash {
  size_t operator()(const ThreadKey& k) const noexcept {
    const uint64_t h = static_cast<uint64_t>(k.pid) * 0x9e3779b97f4a7c15ull ^ static_cast<uint64_t>(k.tid) * 0xff51afd7ed558ccdull;
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

// Names, arg keys and JSON values repeat from event to event: a direct-mapped cache in front of the
// string table, keyed by length and the first and last 8 bytes, verified against the stored text.
class InternCache {
 public:
  StringId intern(TraceBuilder& b, std::string_view s) {
    const uint64_t fp = fingerprint(s);
    Entry& e = entries_[fp & (kSize - 1)];
    if (e.fp == fp && e.id != kNone32 && b.strings().view(e.id) == s) return e.id;
    e.id = b.intern(s);
    e.fp = fp;
    return e.id;
  }

 private:
  static constexpr size_t kSize = 4096;
  struct Entry {
    uint64_t fp = 0;
    StringId id = kNone32;
  };
  static uint64_t fingerprint(std::string_view s) {
    uint64_t head = 0, tail = 0;
    const size_t n = s.size();
    if (n >= 8) {
      std::memcpy(&head, s.data(), 8);
      std::memcpy(&tail, s.data() + n - 8, 8);
    } else if (n > 0) {
      std::memcpy(&head, s.data(), n);
    }
    uint64_t h = (head ^ (n * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
    h ^= (tail + (h >> 29)) * 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 32);
  }
  std::vector<Entry> entries_ = std::vector<Entry>(kSize);
};

struct PendingBegin {
  TimeNs ts = 0;
  StringId name = kEmptyString;
  uint32_t args = kNone32;
  int64_t event_index = 0;
  bool has_bind = false, flow_in = false, flow_out = false;
  uint64_t bind_id = 0;
};

struct DeviceProps {
  std::string name;
  uint32_t sms = 0;
  uint64_t mem = 0;
  uint32_t major = 0, minor = 0;
};

}  // namespace

// What the files of one worker share: the process(es), devices and the pid → process mapping.
struct WorkerJoin::State {
  uint32_t main_process = kNoTrack;
  bool main_bound = false;  // main_process has its real pid
  std::unordered_map<int64_t, uint32_t> process_by_pid;
  std::vector<uint32_t> processes;
  std::map<int32_t, uint32_t> devices;  // CUDA ordinal → trace device
  std::string first_file;
  int files = 0;
};

WorkerJoin::WorkerJoin() : state_(std::make_unique<State>()) {}
WorkerJoin::~WorkerJoin() = default;

namespace {

class Importer final : public ChromeJsonHandler {
 public:
  Importer(const std::string& path, TraceBuilder& b, FileImportReport& report, WorkerJoin::State& w)
      : path_(path), b_(b), report_(report), w_(w) {}

  void on_metadata(std::string_view key, const JsonValue& v) override {
    if (key == "baseTimeNanoseconds") {
      if (auto n = v.as_int()) {
        base_time_ns_ = *n;
        has_base_time_ = true;
      }
    } else if (key == "distributedInfo" && v.is_object()) {
      if (const JsonValue* r = v.find("rank"))
        if (auto n = r->as_int()) rank_ = static_cast<int32_t>(*n);
      kineto_ = true;
    } else if (key == "deviceProperties" && v.is_array()) {
      for (const JsonValue& d : v.items()) {
        if (!d.is_object()) continue;
        const JsonValue* id = d.find("id");
        if (!id || !id->as_int()) continue;
        DeviceProps p;
        if (const JsonValue* n = d.find("name"); n && n->is_string()) p.name = n->text();
        if (const JsonValue* n = d.find("numSms")) p.sms = static_cast<uint32_t>(n->as_int().value_or(0));
        if (const JsonValue* n = d.find("totalGlobalMem")) p.mem = n->as_uint().value_or(0);
        if (const JsonValue* n = d.find("computeMajor")) p.major = static_cast<uint32_t>(n->as_int().value_or(0));
        if (const JsonValue* n = d.find("computeMinor")) p.minor = static_cast<uint32_t>(n->as_int().value_or(0));
        device_props_[static_cast<int32_t>(*id->as_int())] = p;
      }
      kineto_ = true;
    } else if (key == "schemaVersion" || key == "trace_id" || key == "cupti_version") {
      kineto_ = true;
    }
  }

  void on_event(const RawEvent& e) override {
    ++report_.events;
    if (e.ph.size() != 1) {
      if (e.ph.empty()) bad(e, "event has no \"ph\" (phase)");
      ++unknown_phases_;
      return;
    }
    switch (e.ph[0]) {
      case 'X': complete(e); break;
      case 'B': begin(e); break;
      case 'E': end(e); break;
      case 'i':
      case 'I':
      case 'R': instant(e); break;
      case 'C': counter(e); break;
      case 'M': metadata_event(e); break;
      case 's':
      case 't':
      case 'f': flow_event(e); break;
      case 'b':
      case 'e':
      case 'n': async_event(e); break;
      default: ++unknown_phases_; break;
    }
  }

  void finish(const ChromeJsonStats& stats) {
    size_t open = 0;
    for (const Thread& t : threads_) open += t.open.size();
    if (open) b_.warn(path_ + ": " + std::to_string(open) + " 'B' events have no matching 'E'; dropped");
    if (unmatched_ends_)
      b_.warn(path_ + ": " + std::to_string(unmatched_ends_) + " 'E' events have no open 'B'; ignored");
    size_t async_open = 0;
    for (const auto& [k, a] : async_) async_open += a.open.size();
    if (async_open) b_.warn(path_ + ": " + std::to_string(async_open) + " async 'b' events have no matching 'e'; dropped");
    if (async_unmatched_)
      b_.warn(path_ + ": " + std::to_string(async_unmatched_) + " async 'e' events have no open 'b'; ignored");
    if (async_no_id_)
      b_.warn(path_ + ": " + std::to_string(async_no_id_) + " async events have no id; skipped");
    if (unknown_phases_)
      b_.warn(path_ + ": " + std::to_string(unknown_phases_) + " events with unknown phases were skipped");
    for (const auto& w : stats.warnings) b_.warn(path_ + ": " + w);
    if (stats.skipped_malformed)
      b_.warn(path_ + ": --lenient skipped " + std::to_string(stats.skipped_malformed) + " malformed events");

    Trace& tr = b_.trace();
    // Clock: Kineto timestamps + baseTimeNanoseconds = wall clock. Without a base the file's clock
    // is used as is; say whether it already is the wall clock (older Kineto wrote epoch times).
    const TimeNs offset = has_base_time_ ? base_time_ns_ : 0;
    std::string reason = "baseTimeNanoseconds";
    if (!has_base_time_)
      reason = min_ts_ >= kEpochClockNs ? "none (timestamps are already wall-clock epoch times)"
                                        : "none (file clock used as is)";
    report_.clock_offset_ns = offset;
    report_.clock_offset_reason = reason;
    report_.rank = rank_;
    report_.unknown_phases = unknown_phases_;
    report_.skipped = stats.skipped_malformed;
    report_.json_bytes = stats.json_bytes;
    report_.async_slices = async_slices_;
    for (uint32_t p : w_.processes) {
      Process& proc = tr.processes[p];
      if (!proc.clock_offset_reason.empty() && proc.clock_offset_ns != offset)
        b_.warn(path_ + ": clock offset " + std::to_string(offset) + " ns differs from " +
                std::to_string(proc.clock_offset_ns) + " ns of " + w_.first_file + " (same worker)");
      proc.clock_offset_ns = offset;
      proc.clock_offset_reason = reason;
      if (p == w_.main_process && rank_ >= 0) proc.rank = rank_;
      auto it = pid_names_.find(proc.pid);
      if (it != pid_names_.end() && proc.name.empty()) proc.name = it->second;
      if (auto s = pid_sort_.find(proc.pid); s != pid_sort_.end()) proc.sort_index = s->second;
      if (proc.name.empty()) proc.name = proc.rank >= 0 ? "rank " + std::to_string(proc.rank) : "pid " + std::to_string(proc.pid);
    }
    // This file's rows only: tracks can be shared with earlier files of the same worker.
    if (offset != 0) {
      for (uint32_t t = 0; t < first_row_.size(); ++t) {
        if (first_row_[t] != kNoTrack) {
          auto& st = tr.tracks[t].slices.start;
          for (size_t i = first_row_[t]; i < st.size(); ++i) st[i] += offset;
        }
        if (first_sample_[t] != kNoTrack) {
          auto& ct = tr.tracks[t].counter.time;
          for (size_t i = first_sample_[t]; i < ct.size(); ++i) ct[i] += offset;
        }
      }
    }
    for (auto& [ordinal, dev] : w_.devices) {
      Device& d = tr.devices[dev];
      if (auto it = device_props_.find(ordinal); it != device_props_.end()) {
        d.name = it->second.name;
        d.sm_count = it->second.sms;
        d.memory_bytes = it->second.mem;
        d.compute_major = it->second.major;
        d.compute_minor = it->second.minor;
      }
    }
    // Thread names and sort indexes (M events) for CPU thread tracks; Kineto's GPU "threads" are
    // streams, which keep their own names.
    for (const auto& [key, idx] : thread_index_) {
      const Thread& th = threads_[idx];
      if (th.cpu_track == kNoTrack) continue;
      if (auto it = thread_names_.find(key); it != thread_names_.end()) b_.set_track_name(th.cpu_track, it->second);
      if (auto it = thread_sort_.find(key); it != thread_sort_.end()) tr.tracks[th.cpu_track].sort_index = it->second;
    }
    link_launches();
    link_collectives();
    bind_flows(offset);
  }

 private:
  struct Thread {
    ThreadKey key;
    uint32_t cpu_track = kNoTrack;
    std::vector<uint32_t> tracks;  // every track fed by events of this (pid, tid), for flow binding
    std::vector<PendingBegin> open;
  };
  struct AsyncKey {
    int64_t scope;  // pid, or kGlobalScope
    StringId cat;
    uint64_t id;
    bool id_is_string;
    friend bool operator==(const AsyncKey&, const AsyncKey&) = default;
  };
  struct AsyncKeyHash {
    size_t operator()(const AsyncKey& k) const noexcept {
      uint64_t h = static_cast<uint64_t>(k.scope) * 0x9e3779b97f4a7c15ull ^ k.id * 0xff51afd7ed558ccdull;
      h ^= (static_cast<uint64_t>(k.cat) << 1 | k.id_is_string) * 0xc4ceb9fe1a85ec53ull;
      return static_cast<size_t>(h ^ (h >> 31));
    }
  };
  struct AsyncTrack {
    uint32_t track = kNoTrack;
    std::vector<PendingBegin> open;
  };
  static constexpr int64_t kGlobalScope = std::numeric_limits<int64_t>::min();
  struct GpuRecord {
    uint32_t correlation;
    EventRef ref;
    uint64_t external_id;
  };
  struct ParamComms {
    EventRef ref;
    int64_t seq = -1;
    int32_t src_rank = -1, dst_rank = -1;
  };
  struct GpuTrackCache {
    int64_t device, stream;
    bool annotation;
    uint32_t track;
  };

  [[noreturn]] void bad(const RawEvent& e, const std::string& problem) const {
    InputLocation where;
    where.file = path_;
    where.byte_offset = e.byte_offset;
    where.event_index = e.index;
    throw InputError(where, problem);
  }

  // ----- identity: pids, threads, processes, devices, tracks -----

  int64_t key_of(const JsonToken& t, const char* what, const RawEvent& e) {
    int64_t v = 0;
    if (!t.present() || t.type == JsonToken::Type::kNull) return 0;
    if (t.type == JsonToken::Type::kNumber && t.to_int(v)) return v;
    if (t.type == JsonToken::Type::kString) {
      if (t.to_int(v)) return v;
      return kStringIdBase + b_.intern(t.text);
    }
    bad(e, std::string("\"") + what + "\" must be a number or a string, found " +
               (t.type == JsonToken::Type::kObject ? "an object" : t.type == JsonToken::Type::kArray ? "an array" : "a boolean"));
  }
  int64_t pid_key(const RawEvent& e) { return key_of(e.pid, "pid", e); }
  int64_t tid_key(const RawEvent& e) { return key_of(e.tid, "tid", e); }

  Thread& thread(const RawEvent& e) {
    const ThreadKey k{pid_key(e), tid_key(e)};
    if (last_thread_ != kNoTrack && threads_[last_thread_].key == k) return threads_[last_thread_];
    auto [it, inserted] = thread_index_.try_emplace(k, static_cast<uint32_t>(threads_.size()));
    if (inserted) threads_.push_back(Thread{k, kNoTrack, {}, {}});
    last_thread_ = it->second;
    return threads_[it->second];
  }
  uint32_t thread_number(const Thread& t) const { return static_cast<uint32_t>(&t - threads_.data()); }

  static void feed(Thread& th, uint32_t track) {
    for (uint32_t t : th.tracks)
      if (t == track) return;
    th.tracks.push_back(track);
  }

  void register_process(uint32_t idx) { w_.processes.push_back(idx); }

  uint32_t process_for_pid(int64_t pid) {
    if (pid >= kStringIdBase && kineto_) return main_process();  // Kineto's "Spans"/"Traces"
    auto it = w_.process_by_pid.find(pid);
    if (it != w_.process_by_pid.end()) return it->second;
    if (pid < kStringIdBase && w_.main_process != kNoTrack && !w_.main_bound) {
      // GPU events came first and created the file's process: this is its pid
      w_.main_bound = true;
      b_.trace().processes[w_.main_process].pid = pid;
      w_.process_by_pid[pid] = w_.main_process;
      return w_.main_process;
    }
    Process p;
    p.pid = pid >= kStringIdBase ? 0 : pid;
    if (pid >= kStringIdBase) p.name = std::string(b_.strings().view(static_cast<StringId>(pid - kStringIdBase)));
    p.source = path_;
    const uint32_t idx = b_.add_process(std::move(p));
    w_.process_by_pid[pid] = idx;
    register_process(idx);
    if (w_.main_process == kNoTrack && pid < kStringIdBase) {
      w_.main_process = idx;
      w_.main_bound = true;
    }
    return idx;
  }

  uint32_t main_process() {
    if (w_.main_process != kNoTrack) return w_.main_process;
    Process p;
    p.source = path_;
    w_.main_process = b_.add_process(std::move(p));
    register_process(w_.main_process);
    return w_.main_process;
  }

  uint32_t device(int32_t ordinal) {
    auto it = w_.devices.find(ordinal);
    if (it != w_.devices.end()) return it->second;
    Device d;
    d.process = main_process();
    d.ordinal = ordinal;
    const uint32_t idx = b_.add_device(std::move(d));
    w_.devices[ordinal] = idx;
    return idx;
  }

  uint32_t track(const TrackKey& key, std::string_view name) {
    const uint32_t t = b_.track(key, name);
    if (t >= first_row_.size()) {
      first_row_.resize(t + 1, kNoTrack);
      first_sample_.resize(t + 1, kNoTrack);
    }
    return t;
  }
  // Remembers where this file's rows start on a track (offsets and flow binding touch only those).
  void touch_rows(uint32_t t) {
    if (first_row_[t] == kNoTrack) first_row_[t] = static_cast<uint32_t>(b_.trace().tracks[t].slices.size());
  }
  void touch_samples(uint32_t t) {
    if (first_sample_[t] == kNoTrack) first_sample_[t] = static_cast<uint32_t>(b_.trace().tracks[t].counter.size());
  }

  uint32_t cpu_track(Thread& th, const RawEvent& e) {
    if (th.cpu_track != kNoTrack) return th.cpu_track;
    const int64_t pid = th.key.pid, tid = th.key.tid;
    const uint32_t proc = process_for_pid(pid);
    int64_t id = tid;
    std::string name;
    if (pid >= kStringIdBase && kineto_) {  // string pids folded into the main process keep their own tracks
      name = std::string(e.pid.text) + " / " + std::string(e.tid.text);
      id = kStringIdBase + b_.intern(name);
    } else if (tid >= kStringIdBase) {
      name = std::string(b_.strings().view(static_cast<StringId>(tid - kStringIdBase)));
    } else {
      name = "thread " + std::to_string(tid);
    }
    th.cpu_track = track(TrackKey{TrackKind::kCpuThread, proc, -1, id}, name);
    feed(th, th.cpu_track);
    return th.cpu_track;
  }

  // GPU event: device from args.device (inDevice for peer copies) or pid; stream from args.stream or tid.
  uint32_t gpu_track(Thread& th, const RawEvent& e, const Fields& f, bool annotation) {
    int64_t dev = f.i64(kDevice, -1);
    if (dev < 0) dev = f.i64(kInDevice, -1);
    if (dev < 0) dev = th.key.pid;
    int64_t stream = f.i64(kStream, -1);
    if (stream < 0) stream = th.key.tid;
    for (const GpuTrackCache& c : gpu_tracks_)
      if (c.device == dev && c.stream == stream && c.annotation == annotation) {
        feed(th, c.track);
        return c.track;
      }
    if (dev < 0 || dev > 65535) bad(e, "GPU event with device " + std::to_string(dev) + " (expected 0..65535)");
    const uint32_t d = device(static_cast<int32_t>(dev));
    const uint32_t proc = b_.trace().devices[d].process;
    const std::string sname = "stream " + std::to_string(stream);
    uint32_t t = track(TrackKey{TrackKind::kGpuStream, proc, static_cast<int32_t>(d), stream}, sname);
    if (annotation) {
      const uint32_t at = track(TrackKey{TrackKind::kGpuAnnotation, proc, static_cast<int32_t>(d), stream}, sname + " annotations");
      b_.set_track_parent(at, static_cast<int32_t>(t));
      t = at;
    }
    gpu_tracks_.push_back(GpuTrackCache{dev, stream, annotation, t});
    feed(th, t);
    return t;
  }

  // ----- args -----

  StringId intern(std::string_view s) { return cache_.intern(b_, s); }

  void scan(const RawEvent& e) {
    f_.present = 0;
    roles_.resize(e.args.size());
    for (size_t i = 0; i < e.args.size(); ++i) {
      const RawArg& a = e.args[i];
      Role r = arg_role(a.key);
      if (r != kRoleNone && f_.has(r)) r = kRoleNone;  // a repeated key: the first one describes the event
      roles_[i] = r;
      if (r == kRoleNone) continue;
      f_.present |= bit(r);
      f_.v[r] = &a.value;
    }
  }

  ArgValue arg_value(const JsonToken& v) {
    switch (v.type) {
      case JsonToken::Type::kNumber: {
        int64_t i;
        double d;
        if (v.plain_integer) {
          if (v.to_int(i)) return ArgValue::of_int(i);
          uint64_t u;
          if (v.to_uint(u)) return ArgValue::of_uint(u);
        }
        if (v.to_double(d)) return ArgValue::of_double(d);
        return ArgValue::of_string(intern(v.text));
      }
      case JsonToken::Type::kBool: return ArgValue::of_bool(v.text == "true");
      case JsonToken::Type::kString: return ArgValue::of_string(intern(v.text));
      case JsonToken::Type::kObject:
      case JsonToken::Type::kArray: return ArgValue::of_json(intern(v.text));
      case JsonToken::Type::kNull:
      case JsonToken::Type::kAbsent: break;
    }
    return ArgValue::of_json(b_.intern("null"));
  }

  // Free-form args: every arg whose role is not in `structured` (roles from scan() of this event).
  std::span<const Arg> collect_args(const RawEvent& e, uint64_t structured) {
    args_.clear();
    for (size_t i = 0; i < e.args.size(); ++i) {
      if (structured && ((structured >> roles_[i]) & 1) && roles_[i] != kRoleNone) continue;
      const RawArg& a = e.args[i];
      args_.push_back(Arg{intern(a.key), arg_value(a.value)});
    }
    return args_;
  }

  // ----- events -----

  void check_time(const RawEvent& e) {
    if (!e.has_ts) bad(e, "event has no \"ts\"");
    if (e.ts < 0) bad(e, "negative \"ts\" (" + std::to_string(e.ts) + " ns); expected a time >= 0");
    min_ts_ = std::min(min_ts_, e.ts);
  }

  EventRef add_slice(uint32_t t, TimeNs start, TimeNs dur, StringId name, SliceRef ref, std::span<const Arg> args) {
    touch_rows(t);
    return b_.add_slice_with_arg_set(t, start, dur, name, ref, arg_set(args));
  }
  // Always deduplicated: Kineto's per-event "Ev Idx" makes CPU-op sets unique within a file, but
  // ranks of one job repeat each other's (1268 of 1280 in the dp_step capture), so dedup pays.
  uint32_t arg_set(std::span<const Arg> args) { return args.empty() ? kNone32 : b_.trace().args.add(args); }

  void maybe_v2_flow(const RawEvent& e, EventRef r, TimeNs start) {
    if (!e.bind_id.present()) return;
    uint64_t id;
    if (!flow_id_number(e.bind_id, id)) return;
    if (e.flow_in || e.flow_out) binder_.add_v2(id, e.flow_in, e.flow_out, r, start);
  }

  void complete(const RawEvent& e) {
    check_time(e);
    if (!e.has_dur) bad(e, "'X' event has no \"dur\"");
    if (e.dur < 0) bad(e, "negative \"dur\" (" + std::to_string(e.dur) + " ns)");
    const Cat cat = classify_cat(e.cat);
    scan(e);
    Thread& th = thread(e);
    if (is_gpu(cat)) {
      gpu_complete(e, th, cat);
      return;
    }
    const uint32_t t = cpu_track(th, e);
    SliceRef ref;
    uint64_t structured = 0;
    switch (cat) {
      case Cat::kCpuOp:
      case Cat::kUserAnnotation:
      case Cat::kPythonFunction: {
        CpuOpInfo op;
        op.external_id = U64Split(f_.u64(kExternalId));
        op.flops = U64Split(f_.u64(kFlops));
        const int64_t seq = f_.i64(kSequenceNumber, -1);
        op.sequence = seq >= 0 && seq < kNone32 ? static_cast<uint32_t>(seq) : kNone32;
        ref = b_.add_cpu_op(op);
        structured = kCpuOpRoles;
        break;
      }
      case Cat::kRuntime:
      case Cat::kDriver: {
        ApiInfo api;
        api.correlation = static_cast<uint32_t>(f_.u64(kCorrelation));
        api.cbid = static_cast<uint32_t>(f_.u64(kCbid));
        ref = b_.add_api_call(api);
        structured = kApiRoles;
        break;
      }
      case Cat::kOverhead: ref = SliceRef(SliceKind::kOverhead, SliceRef::kNoDetail); break;
      default: break;
    }
    const StringId name = intern(e.name);
    const EventRef r = add_slice(t, e.ts, e.dur, name, ref, collect_args(e, structured));
    maybe_v2_flow(e, r, e.ts);
    if (ref.kind() == SliceKind::kRuntimeApi) {
      const uint32_t corr = b_.trace().api_calls[ref.index()].correlation;
      if (corr) api_calls_.emplace_back(corr, r);
    } else if (cat == Cat::kCpuOp && e.name == "record_param_comms") {
      ParamComms pc;
      pc.ref = r;
      pc.seq = f_.i64(kSeq, -1);
      pc.src_rank = static_cast<int32_t>(f_.i64(kSrcRank, -1));
      pc.dst_rank = static_cast<int32_t>(f_.i64(kDstRank, -1));
      if (const uint64_t ext = f_.u64(kExternalId)) param_comms_.try_emplace(ext, pc);
    }
  }

  void gpu_complete(const RawEvent& e, Thread& th, Cat cat) {
    const bool annotation = cat == Cat::kGpuUserAnnotation;
    const uint32_t t = gpu_track(th, e, f_, annotation);
    const uint32_t corr = static_cast<uint32_t>(f_.u64(kCorrelation));
    SliceRef ref;
    uint64_t structured = kGpuPlace;
    bool collective = false;
    switch (cat) {
      case Cat::kKernel: {
        LaunchConfig lc;
        dims(f_.has(kGrid) ? f_.v[kGrid] : nullptr, lc.grid);
        dims(f_.has(kBlock) ? f_.v[kBlock] : nullptr, lc.block);
        lc.registers_per_thread = static_cast<uint32_t>(f_.u64(kRegisters));
        lc.dynamic_smem = static_cast<uint32_t>(f_.u64(kSharedMemory));
        KernelInfo k;
        k.launch_config = b_.add_launch_config(lc);
        k.correlation = corr;
        k.graph_id = static_cast<uint32_t>(f_.u64(kGraphId));
        k.graph_node_id = U64Split(f_.u64(kGraphNodeId));
        ref = b_.add_kernel(k);
        collective = !f_.str(kCollectiveName).empty();
        structured = kKernelRoles | (collective ? kCollectiveRoles : 0);
        break;
      }
      case Cat::kMemcpy: {
        MemcpyInfo m;
        m.bytes = U64Split(f_.u64(kBytes));
        m.correlation = corr;
        m.copy_kind = copy_kind_from_name(e.name);
        auto [src, dst] = memory_kinds_from_name(e.name);
        m.src_memory = src;
        m.dst_memory = dst;
        const int64_t from = f_.i64(kFromDevice, f_.i64(kSrcDevice, -1));
        const int64_t to = f_.i64(kToDevice, f_.i64(kDstDevice, -1));
        const uint16_t self = static_cast<uint16_t>(b_.trace().tracks[t].key.device);
        if (src == MemoryKind::kDevice || m.copy_kind == CopyKind::kDtoH || m.copy_kind == CopyKind::kDtoD)
          m.src_device = self;
        if (dst == MemoryKind::kDevice || m.copy_kind == CopyKind::kHtoD || m.copy_kind == CopyKind::kDtoD)
          m.dst_device = self;
        if (from >= 0 && from < 65535) m.src_device = static_cast<uint16_t>(device(static_cast<int32_t>(from)));
        if (to >= 0 && to < 65535) m.dst_device = static_cast<uint16_t>(device(static_cast<int32_t>(to)));
        if (from >= 0 && to >= 0 && from != to) m.copy_kind = CopyKind::kPtoP;
        ref = b_.add_memcpy(m);
        structured = kMemcpyRoles;
        break;
      }
      case Cat::kMemset: {
        MemsetInfo m;
        m.bytes = U64Split(f_.u64(kBytes));
        m.correlation = corr;
        m.memory = memory_kind_from_word(e.name.substr(std::min<size_t>(e.name.size(), 8), e.name.find(')') - std::min<size_t>(e.name.size(), 8)));
        ref = b_.add_memset(m);
        structured = kMemsetRoles;
        break;
      }
      case Cat::kSync: {
        SyncInfo s;
        s.correlation = corr;
        s.kind = sync_kind_from_name(f_.has(kSyncKind) ? f_.str(kSyncKind) : e.name);
        s.stream = f_.i64(kWaitOnStream, -1);
        const int64_t ev = f_.i64(kWaitOnEventId, -1);
        s.event_id = ev >= 0 && ev < kNone32 ? static_cast<uint32_t>(ev) : kNone32;
        ref = b_.add_sync(s);
        structured = kSyncRoles;
        break;
      }
      case Cat::kGpuUserAnnotation:
        ref = SliceRef(SliceKind::kGpuAnnotation, SliceRef::kNoDetail);
        structured = bit(kDevice) | bit(kStream);
        break;
      default:  // cuda_event and other GPU-side markers
        structured = bit(kDevice) | bit(kStream);
        break;
    }
    const StringId name = intern(e.name);
    const EventRef r = add_slice(t, e.ts, e.dur, name, ref, collect_args(e, structured));
    maybe_v2_flow(e, r, e.ts);
    if ((structured & bit(kExternalId)) && (corr || f_.has(kExternalId)))
      gpu_events_.push_back(GpuRecord{corr, r, f_.u64(kExternalId)});
    if (collective) {
      CollectiveInfo c;
      c.op = collective_op_from_name(f_.str(kCollectiveName));
      c.in_elements = f_.u64(kInNelems);
      c.out_elements = f_.u64(kOutNelems);
      c.group_size = static_cast<int32_t>(f_.i64(kGroupSize, 0));
      c.dtype = b_.intern(f_.str(kDtype));
      c.dtype_bytes = dtype_bytes(f_.str(kDtype));
      c.group = b_.intern(f_.str(kPgName));
      c.group_ranks = b_.intern(f_.str(kPgRanks));
      c.sequence = f_.i64(kSeq, -1);
      c.rank = rank_;
      const int64_t src = f_.i64(kSrcRank, -1), dst = f_.i64(kDstRank, -1);
      if (dst >= 0 && dst != rank_) c.peer = static_cast<int32_t>(dst);
      else if (src >= 0 && src != rank_) c.peer = static_cast<int32_t>(src);
      c.kernel = r;
      const uint32_t ci = b_.add_collective(c);
      if (const uint64_t ext = f_.u64(kExternalId)) collectives_.emplace_back(ext, ci);
    }
  }

  void begin(const RawEvent& e) {
    check_time(e);
    scan(e);
    Thread& th = thread(e);
    PendingBegin pb;
    pb.ts = e.ts;
    pb.name = intern(e.name);
    pb.args = arg_set(collect_args(e, 0));
    pb.event_index = e.index;
    pb.has_bind = e.bind_id.present() && flow_id_number(e.bind_id, pb.bind_id);
    pb.flow_in = e.flow_in;
    pb.flow_out = e.flow_out;
    th.open.push_back(pb);
  }

  // Args of a begin event plus those of its end event.
  std::span<const Arg> merged_args(uint32_t begin_set, const RawEvent& end_event) {
    const auto b = b_.trace().args.get(begin_set);
    std::vector<Arg> all(b.begin(), b.end());
    for (const Arg& a : collect_args(end_event, 0)) all.push_back(a);
    args_.swap(all);
    return args_;
  }

  void end(const RawEvent& e) {
    check_time(e);
    Thread& th = thread(e);
    if (th.open.empty()) {
      ++unmatched_ends_;
      return;
    }
    const PendingBegin pb = th.open.back();
    th.open.pop_back();
    if (e.ts < pb.ts) bad(e, "'E' at " + std::to_string(e.ts) + " ns is before its 'B' (event #" + std::to_string(pb.event_index) + ")");
    const uint32_t t = cpu_track(th, e);
    const EventRef r = add_slice(t, pb.ts, e.ts - pb.ts, pb.name, SliceRef(), merged_args(pb.args, e));
    if (pb.has_bind && (pb.flow_in || pb.flow_out)) binder_.add_v2(pb.bind_id, pb.flow_in, pb.flow_out, r, pb.ts);
  }

  void instant(const RawEvent& e) {
    check_time(e);
    scan(e);
    const SliceRef kind(SliceKind::kInstant, SliceRef::kNoDetail);
    // global-scope instants belong to no thread: one track per process holds them (process scope too)
    if (e.scope == "g" || e.scope == "p") {
      const uint32_t proc = process_for_pid(pid_key(e));
      const char* label = e.scope == "g" ? "global instants" : "process instants";
      const uint32_t t = track(TrackKey{TrackKind::kCpuThread, proc, -1, kStringIdBase + b_.intern(label)}, label);
      add_slice(t, e.ts, 0, intern(e.name), kind, collect_args(e, 0));
      return;
    }
    Thread& th = thread(e);
    const uint32_t t = cpu_track(th, e);
    const EventRef r = add_slice(t, e.ts, 0, intern(e.name), kind, collect_args(e, 0));
    maybe_v2_flow(e, r, e.ts);
    if (e.name == "[memory]") memory_sample(e, th);
  }

  // PyTorch's [memory] instants: allocator totals after each alloc/free → per-device counters.
  void memory_sample(const RawEvent& e, Thread& th) {
    if (!f_.has(kTotalAllocated) && !f_.has(kTotalReserved)) return;
    const int64_t type = f_.i64(kDeviceType, 0);  // c10::DeviceType: 0 CPU, 1 CUDA
    const int64_t ordinal = f_.i64(kDeviceId, -1);
    int32_t dev = -1;
    uint32_t proc;
    if (type == 1 && ordinal >= 0 && ordinal < 65535) {
      dev = static_cast<int32_t>(device(static_cast<int32_t>(ordinal)));
      proc = b_.trace().devices[static_cast<size_t>(dev)].process;
    } else {
      proc = process_for_pid(th.key.pid);
    }
    static constexpr std::pair<Role, const char*> kSeries[] = {{kTotalAllocated, "memory allocated"},
                                                               {kTotalReserved, "memory reserved"}};
    for (const auto& [role, label] : kSeries) {
      double v;
      if (!f_.has(role) || !f_.v[role]->to_double(v)) continue;
      const std::string name = dev < 0 ? std::string("host ") + label : std::string(label);
      const uint32_t t = track(TrackKey{TrackKind::kCounter, proc, dev, kStringIdBase + b_.intern(name)}, name);
      b_.trace().tracks[t].unit = b_.intern("bytes");
      touch_samples(t);
      b_.add_counter_sample(t, e.ts, v);
    }
  }

  void counter(const RawEvent& e) {
    check_time(e);
    const uint32_t proc = process_for_pid(pid_key(e));
    std::string prefix(e.name);
    if (e.id.present()) prefix.append(" id: ").append(e.id.text);
    for (const RawArg& a : e.args) {
      double v;
      if (!a.value.to_double(v)) continue;
      std::string series = prefix;
      if (e.args.size() > 1 || a.key != "value") series.append(".").append(a.key);
      const int64_t id = kStringIdBase + b_.intern(series);
      const uint32_t t = track(TrackKey{TrackKind::kCounter, proc, -1, id}, series);
      touch_samples(t);
      b_.add_counter_sample(t, e.ts, v);
    }
  }

  void metadata_event(const RawEvent& e) {
    const ThreadKey k{pid_key(e), tid_key(e)};
    if (e.name == "process_name" || e.name == "thread_name") {
      const RawArg* a = e.arg("name");
      if (!a || !a->value.is_string()) return;
      if (e.name[0] == 'p') pid_names_[k.pid] = std::string(a->value.text);
      else thread_names_[k] = std::string(a->value.text);
    } else if (e.name == "process_sort_index" || e.name == "thread_sort_index") {
      const RawArg* a = e.arg("sort_index");
      int64_t v;
      if (!a || !a->value.to_int(v)) return;
      if (e.name[0] == 'p') pid_sort_[k.pid] = v;
      else thread_sort_[k] = v;
    }
    // process_labels and other metadata carry nothing the model holds
  }

  void flow_event(const RawEvent& e) {
    check_time(e);
    // Kineto's ac2g flows repeat its correlation ids, which link launches to kernels exactly
    // (link_launches); every other flow goes through the binder.
    if (kineto_ && e.cat == "ac2g") return;
    FlowBinder::V1Key key;
    const JsonToken& id = e.id.present() ? e.id : e.id2;
    if (!flow_id_number(id, key.id)) {
      if (!id.present()) {
        ++report_.unbound_flow_events;
        return;
      }
      key.id = b_.intern(id.text);
      key.id_is_string = true;
    }
    key.cat = b_.intern(e.cat);
    key.name = b_.intern(e.name);
    Thread& th = thread(e);
    const FlowKind kind = e.cat == "fwdbwd" ? FlowKind::kDependency : FlowKind::kGeneric;
    binder_.add_v1(e.ph[0], key, e.bp == "e", e.ts, thread_number(th), kind);
  }

  // Chrome async events: one track per (category, id) — per process unless the id is global —
  // where 'b'/'e' nest like a stack and 'n' is an instant.
  void async_event(const RawEvent& e) {
    check_time(e);
    AsyncKey key{};
    const int64_t pid = pid_key(e);
    key.scope = pid;
    std::string_view id_text;
    bool have = false;
    if (e.id.present()) {
      have = true;
      id_text = e.id.text;
      key.scope = kGlobalScope;
    } else if (e.id2.type == JsonToken::Type::kObject) {
      // {"local": "0x1"} (process-scoped) or {"global": "0x1"}
      const JsonValue v = parse_json(e.id2.text, path_);
      if (const JsonValue* g = v.find("global")) {
        id_text = std::string_view(g->text());
        key.scope = kGlobalScope;
        have = !g->text().empty();
        id_storage_ = g->text();
      } else if (const JsonValue* l = v.find("local")) {
        id_storage_ = l->text();
        have = !id_storage_.empty();
      }
      id_text = id_storage_;
    }
    if (!have) {
      ++async_no_id_;
      return;
    }
    key.cat = b_.intern(e.cat);
    JsonToken tok;
    tok.type = JsonToken::Type::kString;
    tok.text = id_text;
    if (!flow_id_number(tok, key.id)) {
      key.id = b_.intern(id_text);
      key.id_is_string = true;
    }
    auto [it, inserted] = async_.try_emplace(key);
    AsyncTrack& at = it->second;
    if (inserted) {
      const uint32_t proc = process_for_pid(pid);
      const std::string label = std::string(e.name.empty() ? e.cat : e.name);
      const std::string ident = "async " + std::string(e.cat) + " " + std::string(id_text) +
                                (key.scope == kGlobalScope ? " global" : " pid " + std::to_string(pid));
      at.track = track(TrackKey{TrackKind::kAsync, proc, -1, kStringIdBase + b_.intern(ident)}, label);
    }
    scan(e);
    const char ph = e.ph[0];
    if (ph == 'b') {
      PendingBegin pb;
      pb.ts = e.ts;
      pb.name = intern(e.name);
      pb.args = arg_set(collect_args(e, 0));
      pb.event_index = e.index;
      pb.has_bind = e.bind_id.present() && flow_id_number(e.bind_id, pb.bind_id);
      pb.flow_in = e.flow_in;
      pb.flow_out = e.flow_out;
      at.open.push_back(pb);
    } else if (ph == 'n') {
      const EventRef r = add_slice(at.track, e.ts, 0, b_.intern(e.name), SliceRef(SliceKind::kInstant, SliceRef::kNoDetail),
                                   collect_args(e, 0));
      maybe_v2_flow(e, r, e.ts);
      ++async_slices_;
    } else {
      // 'e' closes the innermost open 'b' of the same name (or the innermost one when unnamed)
      size_t k = at.open.size();
      if (!e.name.empty()) {
        const StringId name = intern(e.name);
        while (k > 0 && at.open[k - 1].name != name) --k;
      }
      if (k == 0) {
        ++async_unmatched_;
        return;
      }
      const PendingBegin pb = at.open[k - 1];
      at.open.erase(at.open.begin() + static_cast<ptrdiff_t>(k - 1));
      if (e.ts < pb.ts) bad(e, "async 'e' at " + std::to_string(e.ts) + " ns is before its 'b' (event #" + std::to_string(pb.event_index) + ")");
      const EventRef r = add_slice(at.track, pb.ts, e.ts - pb.ts, pb.name, SliceRef(), merged_args(pb.args, e));
      if (pb.has_bind && (pb.flow_in || pb.flow_out)) binder_.add_v2(pb.bind_id, pb.flow_in, pb.flow_out, r, pb.ts);
      ++async_slices_;
    }
  }

  // ----- links made once the whole file is read -----

  // Launch flows: runtime/driver call → GPU activity with the same correlation id. A GPU event with
  // no launch in the file keeps its "External id" as an arg (with a launch, the id is the launching
  // call's, reachable through the flow).
  void link_launches() {
    auto by_corr = [](const auto& a, const auto& b) { return a.first < b.first; };
    std::sort(api_calls_.begin(), api_calls_.end(), by_corr);
    Trace& tr = b_.trace();
    int64_t launches = 0;
    for (const GpuRecord& g : gpu_events_) {
      bool linked = false;
      if (g.correlation) {
        auto it = std::lower_bound(api_calls_.begin(), api_calls_.end(), std::make_pair(g.correlation, EventRef{}), by_corr);
        if (it != api_calls_.end() && it->first == g.correlation) {
          b_.add_flow(it->second, g.ref, FlowKind::kLaunch);
          ++launches;
          linked = true;
        }
      }
      if (!linked && g.external_id) {
        auto& col = tr.tracks[g.ref.track].slices.args;
        const uint32_t old = col.empty() ? kNone32 : col[g.ref.index];
        const auto prev = tr.args.get(old);
        std::vector<Arg> with(prev.begin(), prev.end());
        with.push_back(Arg{b_.intern("External id"), ArgValue::of_uint(g.external_id)});
        if (col.empty()) col.assign(tr.tracks[g.ref.track].slices.size(), kNone32);
        col[g.ref.index] = tr.args.add(with);
      }
    }
    report_.flows += launches;
  }

  // Collective annotations get the record_param_comms op that issued them (same External id), and
  // its Seq / peer when the kernel does not carry them.
  void link_collectives() {
    Trace& tr = b_.trace();
    for (const auto& [ext, ci] : collectives_) {
      auto it = param_comms_.find(ext);
      if (it == param_comms_.end()) continue;
      CollectiveInfo& c = tr.collectives[ci];
      c.cpu_op = it->second.ref;
      if (c.sequence < 0) c.sequence = it->second.seq;
      if (c.peer < 0) {
        const int32_t dst = it->second.dst_rank, src = it->second.src_rank;
        if (dst >= 0 && dst != rank_) c.peer = dst;
        else if (src >= 0 && src != rank_) c.peer = src;
      }
    }
  }

  void bind_flows(TimeNs offset) {
    if (binder_.empty()) return;
    for (uint32_t i = 0; i < threads_.size(); ++i) binder_.set_thread_tracks(i, threads_[i].tracks);
    for (uint32_t t = 0; t < first_row_.size(); ++t)
      if (first_row_[t] != kNoTrack && first_row_[t] > 0) binder_.set_first_row(t, first_row_[t]);
    const FlowBindStats s = binder_.bind(b_, offset);
    report_.flows += s.flows;
    report_.unbound_flow_events += s.unbound + s.without_start;
    if (s.unbound)
      b_.warn(path_ + ": " + std::to_string(s.unbound) + " flow events have no slice to bind to (none encloses or follows them on their thread)");
    if (s.without_start)
      b_.warn(path_ + ": " + std::to_string(s.without_start) + " flow steps/ends have no flow start with their id");
    if (s.duplicate_starts)
      b_.warn(path_ + ": " + std::to_string(s.duplicate_starts) + " flow starts reuse an open flow id; ignored");
  }

  std::string path_;
  TraceBuilder& b_;
  FileImportReport& report_;
  WorkerJoin::State& w_;
  bool kineto_ = false;
  bool has_base_time_ = false;
  TimeNs base_time_ns_ = 0;
  TimeNs min_ts_ = std::numeric_limits<TimeNs>::max();
  int32_t rank_ = -1;
  std::map<int32_t, DeviceProps> device_props_;
  std::unordered_map<int64_t, std::string> pid_names_;
  std::unordered_map<int64_t, int64_t> pid_sort_;
  std::unordered_map<ThreadKey, std::string, ThreadKeyHash> thread_names_;
  std::unordered_map<ThreadKey, int64_t, ThreadKeyHash> thread_sort_;
  std::unordered_map<ThreadKey, uint32_t, ThreadKeyHash> thread_index_;
  std::vector<Thread> threads_;
  uint32_t last_thread_ = kNoTrack;
  std::vector<GpuTrackCache> gpu_tracks_;
  std::vector<uint32_t> first_row_;     // per track: first row added by this file (kNoTrack: none)
  std::vector<uint32_t> first_sample_;  // per track: first counter sample added by this file
  Fields f_;
  std::vector<Role> roles_;  // per arg of the current event, from scan()
  InternCache cache_;
  std::vector<Arg> args_;
  std::vector<std::pair<uint32_t, EventRef>> api_calls_;  // (correlation, runtime/driver call)
  std::vector<GpuRecord> gpu_events_;
  std::unordered_map<uint64_t, ParamComms> param_comms_;  // External id → record_param_comms op
  std::vector<std::pair<uint64_t, uint32_t>> collectives_;  // (External id, collective)
  std::unordered_map<AsyncKey, AsyncTrack, AsyncKeyHash> async_;
  std::string id_storage_;
  FlowBinder binder_;
  int64_t unknown_phases_ = 0;
  int64_t unmatched_ends_ = 0;
  int64_t async_unmatched_ = 0;
  int64_t async_no_id_ = 0;
  int64_t async_slices_ = 0;
};

}  // namespace

FileImportReport import_chrome_json(const std::string& path, TraceBuilder& builder, const ImportOptions& options) {
  auto src = open_byte_source(path);
  return import_chrome_json(*src, builder, options);
}

FileImportReport import_chrome_json(ByteSource& source, TraceBuilder& builder, const ImportOptions& options) {
  const std::string& path = source.path();
  FileImportReport report;
  report.file = path;
  WorkerJoin local;
  WorkerJoin::State& w = options.join ? options.join->state() : local.state();
  if (w.files++ == 0) w.first_file = path;
  else report.joined_with = w.first_file;
  Importer importer(path, builder, report, w);
  ChromeJsonOptions jo;
  jo.lenient = options.lenient;
  jo.progress = options.progress;
  jo.cancel = options.cancel;
  if (options.block_bytes) jo.block_bytes = options.block_bytes;
  const ChromeJsonStats stats = parse_chrome_json(source, importer, jo);
  if (stats.events == 0 && stats.json_bytes == 0) {
    InputLocation where;
    where.file = path;
    throw InputError(where, "empty file");
  }
  importer.finish(stats);
  builder.trace().source_files.push_back(path);
  return report;
}

}  // namespace parascope
