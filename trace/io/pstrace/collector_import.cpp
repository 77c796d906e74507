#include "trace/io/pstrace/collector_import.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <unordered_map>

#include "trace/core/error.h"
#include "trace/io/collector/collector_records.h"
#include "trace/io/collector/nccl_records.h"
#include "trace/io/collector/probe_chunk.h"
#include "trace/io/collector/standin_records.h"
#include "trace/io/common/cuda_activity_names.h"
#include "trace/io/pstrace/pstrace_codec.h"
#include "trace/io/pstrace/standin_import.h"

namespace parascope {

namespace {

using collector::ApiDomain;
using collector::ClockDomain;
using collector::CollectedActivity;
using collector::NcclRecord;
using collector::NcclRecordKind;
using collector::RecordKind;

constexpr uint32_t kNoStream = 0xFFFFFFFFu;  // CUPTI's stream id of event / context syncs
// CUpti_ActivityFlag bits of MARKER / MARKER_DATA records
constexpr uint32_t kMarkerInstant = 1, kMarkerStart = 2, kMarkerEnd = 4;
constexpr uint32_t kMarkerColorNone = 1, kMarkerColorArgb = 2;
constexpr uint8_t kObjectThread = 2, kObjectDevice = 3, kObjectContext = 4, kObjectStream = 5;
constexpr uint32_t kStreamFlagNull = 3;  // CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL
// Times beyond 2^62 ns (year 2116) or clock offsets beyond 2^61 ns are damage: refusing them keeps
// every start + duration and time + offset inside int64.
constexpr uint64_t kMaxTimeNs = uint64_t{1} << 62;
constexpr int64_t kMaxOffsetNs = int64_t{1} << 61;

// CUpti_ActivityMemcpyKind → label and model kind (arrays are device memory).
std::string_view copy_label(uint8_t k) {
  static constexpr std::string_view kLabels[] = {"",     "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                                 "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
  return k < std::size(kLabels) ? kLabels[k] : "";
}

CopyKind copy_kind_of(uint8_t k) {
  switch (k) {
    case 1: case 3: return CopyKind::kHtoD;
    case 2: case 4: return CopyKind::kDtoH;
    case 5: case 6: case 7: case 8: return CopyKind::kDtoD;
    case 9: return CopyKind::kHtoH;
    case 10: return CopyKind::kPtoP;
    default: return CopyKind::kUnknown;
  }
}

// CUpti_ActivityMemoryKind: 1 pageable, 2 pinned, 3 device, 4 array, 5 managed, 6 device static,
// 7 managed static.
MemoryKind memory_kind_of(uint32_t k) {
  switch (k) {
    case 1: return MemoryKind::kPageable;
    case 2: return MemoryKind::kPinned;
    case 3: case 6: return MemoryKind::kDevice;
    case 4: return MemoryKind::kArray;
    case 5: case 7: return MemoryKind::kManaged;
    default: return MemoryKind::kUnknown;
  }
}


// CUpti_ActivityOverheadKind
std::string overhead_name(uint32_t k) {
  switch (k) {
    case 1: return "CUPTI overhead: driver compiler";
    case 1u << 16: return "CUPTI overhead: buffer flush";
    case 2u << 16: return "CUPTI overhead: instrumentation";
    case 3u << 16: return "CUPTI overhead: resource";
    case 4u << 16: return "CUPTI overhead: module loading";
    case 5u << 16: return "CUPTI overhead: lazy function loading";
    case 6u << 16: return "CUPTI overhead: command buffer full";
    case 7u << 16: return "CUPTI overhead: activity buffer request";
    case 8u << 16: return "CUPTI overhead: UVM activity init";
    default: return "CUPTI overhead";
  }
}

std::string_view clock_name(ClockDomain c) {
  switch (c) {
    case ClockDomain::kCupti: return "cupti";
    case ClockDomain::kRealtime: return "realtime";
    case ClockDomain::kMonotonic: return "monotonic";
    case ClockDomain::kGlobalTimer: return "globaltimer";
  }
  return "?";
}

bool contains_nccl(std::string_view name) {
  for (size_t i = 0; i + 4 <= name.size(); ++i)
    if ((name[i] | 0x20) == 'n' && (name[i + 1] | 0x20) == 'c' && (name[i + 2] | 0x20) == 'c' && (name[i + 3] | 0x20) == 'l')
      return true;
  return false;
}

std::string plural(uint64_t n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

}  // namespace

struct CollectorImport::State {
  State(TraceBuilder& builder, std::string p, CollectorImportHooks h) : b(builder), path(std::move(p)), hooks(std::move(h)) {}

  struct Payload {
    ChunkType type;
    uint64_t offset;
    std::vector<uint8_t> bytes;
  };
  struct Facts {
    std::string name, uuid, pci_bus_id;
    uint32_t sm_count = 0, compute_major = 0, compute_minor = 0;
    uint64_t memory_bytes = 0;
  };
  struct MarkerData {
    uint8_t payload_kind = 0;
    uint64_t payload = 0;
    uint32_t color = 0, flags = 0, category = 0;
  };
  struct Sync {
    uint64_t at = 0;
    int64_t offset = 0;
    uint64_t uncertainty = 0;
  };
  struct OpenMarker {
    uint64_t start = 0;
    std::string name, domain;
    uint8_t object_kind = 0;
    uint32_t tid = 0;
  };
  struct KernelSpan {
    TimeNs start, end;
    EventRef ref;
    StringId name;
  };
  struct CounterRecord {
    uint64_t start, end;
    double value;
    ClockDomain clock;
  };
  struct Capture {
    uint64_t t;
    bool start;
    std::string name;
  };

  TraceBuilder& b;
  std::string path;
  CollectorImportHooks hooks;
  CollectorImportReport report;
  std::vector<Payload> payloads;

  // declarations (pass 1)
  std::map<uint32_t, Facts> facts;                                    // ordinal → what DEVICE / device_info say
  std::unordered_map<uint32_t, uint32_t> context_device;              // CUPTI context → ordinal
  std::map<std::pair<uint32_t, uint32_t>, std::pair<uint32_t, int32_t>> stream_info;  // (ctx, stream) → (flags, priority)
  std::unordered_map<uint32_t, MarkerData> marker_data;
  std::map<std::pair<uint32_t, uint64_t>, std::pair<uint32_t, uint64_t>> clones;  // (graph, node) → original
  std::map<std::pair<uint32_t, ClockDomain>, std::vector<Sync>> clock_syncs;        // (ordinal, clock)
  std::vector<CollectedActivity> nvlinks;
  std::unordered_map<uint32_t, std::pair<uint8_t, uint64_t>> externals;  // correlation → (kind, external id)
  std::vector<Capture> captures;
  uint64_t dropped = 0;
  size_t dropped_streams = 0;

  // events (pass 2)
  std::unordered_map<uint32_t, uint32_t> dev_of_ordinal;
  std::unordered_map<uint64_t, uint32_t> stream_tracks;  // (device << 32 | stream) → track
  std::unordered_map<uint64_t, uint32_t> thread_tracks;
  std::unordered_map<std::string, uint32_t> domain_tracks;
  std::unordered_map<std::string, StringId> kernel_names, api_names;
  std::unordered_map<uint32_t, OpenMarker> open_markers;
  std::vector<std::pair<uint32_t, EventRef>> gpu_by_corr;
  std::unordered_map<uint32_t, std::pair<bool, EventRef>> api_by_corr;  // correlation → (runtime?, call)
  std::unordered_map<uint32_t, std::vector<KernelSpan>> kernels_by_device;
  std::unordered_map<uint32_t, std::vector<std::pair<EventRef, bool>>> kernels_by_corr;  // → (kernel, NCCL name)
  std::map<std::pair<uint32_t, std::string>, std::vector<CounterRecord>> counters;  // (ordinal, metric)
  std::vector<CollectedActivity> launch_api;  // driver launches, kept only when NCCL linking needs them
  bool keep_launch_api = false;
  bool has_probes = false;  // kernels are indexed by device and correlation only when something links to them
  std::vector<NcclRecord> nccl;
  uint64_t unknown_context_syncs = 0, unmatched_marker_ends = 0, other_markers = 0;
  bool any_kernel = false;

  [[noreturn]] static void rethrow(const Payload& p, const InputError& e) {
    InputLocation where;
    where.file = e.where().file;
    where.byte_offset = static_cast<int64_t>(p.offset);
    where.field = std::string(chunk_type_name(static_cast<uint32_t>(p.type))) + " chunk, payload byte " +
                  std::to_string(e.where().byte_offset);
    throw InputError(where, e.problem());
  }

  // Calls f(record, reader) for every record of a kind `wanted` accepts (by kind number); the
  // others are skipped without decoding their bodies.
  template <class W, class F>
  void for_each_record(W&& wanted, F&& f) {
    for (const Payload& p : payloads) {
      if (p.type != ChunkType::kCuptiRecords) continue;
      ByteReader r(p.bytes.data(), p.bytes.size(), path, 0);
      try {
        while (!r.done()) {
          const auto at = static_cast<size_t>(r.offset());
          const uint8_t kind = r.u8();
          const uint64_t n = r.varint();
          if (n > r.remaining()) r.fail("collector record of kind " + std::to_string(kind) + " claims " + std::to_string(n) + " bytes");
          r.raw(static_cast<size_t>(n));
          if (!wanted(kind)) continue;
          ByteReader one(p.bytes.data() + at, static_cast<size_t>(r.offset()) - at, path, static_cast<int64_t>(at));
          const CollectedActivity a = collector::decode(one);
          if (a.start_ns > kMaxTimeNs || a.end_ns > kMaxTimeNs)
            one.fail(std::string(to_string(a.kind)) + " record: time " + std::to_string(std::max(a.start_ns, a.end_ns)) +
                     " ns is beyond 2^62 ns");
          if (a.offset_ns > kMaxOffsetNs || a.offset_ns < -kMaxOffsetNs)
            one.fail("clock_sync record: offset " + std::to_string(a.offset_ns) + " ns is beyond 2^61 ns");
          if (a.kind != RecordKind::kUnknown) f(a, one);
        }
      } catch (const InputError& e) {
        rethrow(p, e);
      }
    }
  }

  uint32_t process() { return hooks.process(); }

  uint32_t device(uint32_t ordinal, ByteReader* r = nullptr) {
    if (auto it = dev_of_ordinal.find(ordinal); it != dev_of_ordinal.end()) return it->second;
    if (ordinal >= kNoDevice) {
      if (r) r->fail("device " + std::to_string(ordinal) + " out of range");
      InputLocation where;
      where.file = path;
      throw InputError(where, "device " + std::to_string(ordinal) + " out of range");
    }
    const uint32_t d = hooks.device(ordinal);
    dev_of_ordinal[ordinal] = d;
    return d;
  }

  uint32_t stream_track(uint32_t dev, int64_t stream, uint32_t context) {
    const uint64_t key = (uint64_t{dev} << 32) | static_cast<uint32_t>(stream);
    if (auto it = stream_tracks.find(key); it != stream_tracks.end()) return it->second;
    std::string name;
    if (stream < 0) {
      name = "synchronisation (no stream)";
    } else {
      name = "stream " + std::to_string(stream);
      if (auto it = stream_info.find({context, static_cast<uint32_t>(stream)}); it != stream_info.end()) {
        if (it->second.first == kStreamFlagNull) name += " (default)";
        if (it->second.second != 0) name += " (priority " + std::to_string(it->second.second) + ")";
      }
    }
    const uint32_t proc = b.trace().devices[dev].process;
    const uint32_t t = b.track(TrackKey{TrackKind::kGpuStream, proc, static_cast<int32_t>(dev), stream}, name);
    stream_tracks[key] = t;
    return t;
  }

  uint32_t thread_track(uint32_t tid) {
    if (auto it = thread_tracks.find(tid); it != thread_tracks.end()) return it->second;
    const uint32_t t = b.track(TrackKey{TrackKind::kCpuThread, process(), -1, tid}, "thread " + std::to_string(tid));
    thread_tracks[tid] = t;
    return t;
  }

  // NVTX ranges not tied to one thread, per domain; "" is NVTX's default domain.
  uint32_t domain_track(const std::string& domain) {
    if (auto it = domain_tracks.find(domain); it != domain_tracks.end()) return it->second;
    const StringId id = b.intern(domain.empty() ? "NVTX default domain" : "NVTX " + domain);
    const uint32_t t = b.track(TrackKey{TrackKind::kNvtx, process(), -1, pstrace::kTextIdBase + id}, b.strings().view(id));
    domain_tracks[domain] = t;
    return t;
  }

  StringId kernel_name(const std::string& mangled) {
    auto [it, inserted] = kernel_names.try_emplace(mangled, kEmptyString);
    if (!inserted) return it->second;
    if (mangled.rfind("_Z", 0) == 0) {
      int status = 0;
      char* d = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
      if (status == 0 && d) {
        it->second = b.intern(d);
        std::free(d);
        return it->second;
      }
      std::free(d);
    }
    return it->second = b.intern(mangled);
  }

  StringId api_name(const std::string& raw) {
    auto [it, inserted] = api_names.try_emplace(raw, kEmptyString);
    if (inserted) it->second = b.intern(strip_api_version(raw));
    return it->second;
  }

  // pass 1: declarations

  static bool is_declaration(uint8_t k) {
    switch (static_cast<RecordKind>(k)) {
      case RecordKind::kDevice: case RecordKind::kDeviceInfo: case RecordKind::kContext: case RecordKind::kStream:
      case RecordKind::kMarkerData: case RecordKind::kGraphNodeClone: case RecordKind::kClockSync: case RecordKind::kNvLink:
      case RecordKind::kExternalCorrelation: case RecordKind::kCaptureRange: case RecordKind::kDropped:
        return true;
      default: return false;
    }
  }

  void declarations() {
    for_each_record([&](uint8_t k) {
      if (k >= 1 && k <= collector::kMaxRecordKind) ++report.cupti_records;
      if (k == static_cast<uint8_t>(RecordKind::kKernel)) any_kernel = true;
      return is_declaration(k);
    }, [&](const CollectedActivity& a, ByteReader&) {
      switch (a.kind) {
        case RecordKind::kDevice: {
          Facts& f = facts[a.device];
          if (f.name.empty()) f.name = a.name;
          if (f.uuid.empty()) f.uuid = a.uuid;
          if (!f.sm_count) f.sm_count = a.sm_count;
          if (!f.compute_major) f.compute_major = a.compute_major, f.compute_minor = a.compute_minor;
          if (!f.memory_bytes) f.memory_bytes = a.memory_bytes;
          break;
        }
        case RecordKind::kDeviceInfo: {  // the driver's word wins over CUPTI's DEVICE record
          Facts& f = facts[a.device];
          if (!a.name.empty()) f.name = a.name;
          if (!a.uuid.empty()) f.uuid = a.uuid;
          if (!a.pci_bus_id.empty()) f.pci_bus_id = a.pci_bus_id;
          if (a.sm_count) f.sm_count = a.sm_count;
          if (a.compute_major) f.compute_major = a.compute_major, f.compute_minor = a.compute_minor;
          if (a.memory_bytes) f.memory_bytes = a.memory_bytes;
          break;
        }
        case RecordKind::kContext: context_device[a.context] = a.device; break;
        case RecordKind::kStream: stream_info[{a.context, a.stream}] = {a.flags, a.priority}; break;
        case RecordKind::kMarkerData:
          marker_data[a.marker_id] = MarkerData{a.payload_kind, a.payload, a.color, a.flags, a.category};
          break;
        case RecordKind::kGraphNodeClone:
          clones[{a.graph_id, a.graph_node_id}] = {a.original_graph_id, a.original_node_id};
          break;
        case RecordKind::kClockSync: {
          clock_syncs[{a.device, a.clock}].push_back(Sync{a.start_ns, a.offset_ns, a.uncertainty_ns});
          ClockSyncReport c;
          c.device = a.device;
          c.clock = std::string(clock_name(a.clock));
          c.offset_ns = a.offset_ns;
          c.uncertainty_ns = a.uncertainty_ns;
          c.measured_at_ns = a.start_ns;
          report.clock_syncs.push_back(std::move(c));
          break;
        }
        case RecordKind::kNvLink: nvlinks.push_back(a); break;
        case RecordKind::kExternalCorrelation: externals[a.correlation] = {a.external_kind, a.external_id}; break;
        case RecordKind::kCaptureRange: captures.push_back({a.start_ns, (a.flags & 1) != 0, a.name}); break;
        case RecordKind::kDropped:
          if (a.count) {
            dropped += a.count;
            ++dropped_streams;
          }
          break;
        default: break;
      }
    });
    report.dropped_records = dropped;
  }

  // pass 2: timed records

  void events() {
    for_each_record([](uint8_t k) { return !is_declaration(k); }, [&](const CollectedActivity& a, ByteReader& r) {
      switch (a.kind) {
        case RecordKind::kKernel: kernel(a, r); break;
        case RecordKind::kMemcpy: memcpy(a, r); break;
        case RecordKind::kMemset: memset(a, r); break;
        case RecordKind::kSync: sync(a, r); break;
        case RecordKind::kMarker: marker(a); break;
        case RecordKind::kApi: api(a); break;
        case RecordKind::kOverhead: overhead(a, r); break;
        case RecordKind::kGraphTrace: graph_trace(a, r); break;
        case RecordKind::kCounterSample:
          device(a.device, &r);
          counters[{a.device, a.name}].push_back({a.start_ns, a.end_ns, a.counter_value, a.clock});
          break;
        default: break;
      }
    });
  }

  static TimeNs t(uint64_t ns) { return static_cast<TimeNs>(ns); }
  static TimeNs dur(const CollectedActivity& a) { return a.end_ns >= a.start_ns ? static_cast<TimeNs>(a.end_ns - a.start_ns) : 0; }

  void kernel(const CollectedActivity& a, ByteReader& r) {
    const uint32_t dev = device(a.device, &r);
    LaunchConfig c;
    for (int i = 0; i < 3; ++i) {
      c.grid[i] = static_cast<uint32_t>(a.grid[i]);
      c.block[i] = static_cast<uint32_t>(a.block[i]);
    }
    c.registers_per_thread = a.registers;
    c.static_smem = a.static_smem;
    c.dynamic_smem = a.dynamic_smem;
    KernelInfo k;
    k.launch_config = b.add_launch_config(c);
    k.correlation = a.correlation;
    k.graph_id = a.graph_id;
    k.graph_node_id = U64Split(a.graph_node_id);
    std::vector<Arg> args;
    if (a.graph_id) {
      ++report.graph_kernels;
      // kernels of an instantiated graph carry the clone's ids; the graph the program built is the original
      if (auto it = clones.find({a.graph_id, a.graph_node_id}); it != clones.end()) {
        k.graph_id = it->second.first;
        k.graph_node_id = U64Split(it->second.second);
        args.push_back({b.intern("graph exec id"), ArgValue::of_uint(a.graph_id)});
        args.push_back({b.intern("graph exec node id"), ArgValue::of_uint(a.graph_node_id)});
      }
    }
    const StringId name = kernel_name(a.name);
    const EventRef e = b.add_slice(stream_track(dev, a.stream, a.context), t(a.start_ns), dur(a), name, b.add_kernel(k), args);
    if (has_probes) kernels_by_device[dev].push_back({t(a.start_ns), t(a.end_ns), e, name});
    if (a.correlation) {
      gpu_by_corr.emplace_back(a.correlation, e);
      if (has_probes || !nccl.empty()) kernels_by_corr[a.correlation].emplace_back(e, contains_nccl(a.name));
    }
    ++report.kernels;
  }

  void memcpy(const CollectedActivity& a, ByteReader& r) {
    const uint32_t dev = device(a.device, &r);
    const auto self = static_cast<uint16_t>(dev);
    MemcpyInfo m;
    m.bytes = U64Split(a.bytes);
    m.correlation = a.correlation;
    m.copy_kind = copy_kind_of(a.copy_kind);
    m.src_memory = memory_kind_of(a.src_kind);
    m.dst_memory = memory_kind_of(a.dst_kind);
    // MEMCPY2 (peer) names both ends; a PtoP MEMCPY record may name them too (src != dst)
    if (a.peer || (m.copy_kind == CopyKind::kPtoP && a.src_device != a.dst_device)) {
      m.src_device = static_cast<uint16_t>(device(a.src_device, &r));
      m.dst_device = static_cast<uint16_t>(device(a.dst_device, &r));
      if (m.copy_kind == CopyKind::kPtoP) ++report.peer_memcpys;
    } else {
      switch (m.copy_kind) {
        case CopyKind::kHtoD: m.dst_device = self; break;
        case CopyKind::kDtoH: m.src_device = self; break;
        case CopyKind::kDtoD: m.src_device = m.dst_device = self; break;
        case CopyKind::kPtoP: m.src_device = self; break;
        default: break;
      }
    }
    const std::string name = memcpy_name(copy_label(a.copy_kind), m.src_memory, m.dst_memory);
    const EventRef e = b.add_slice(stream_track(dev, a.stream, a.context), t(a.start_ns), dur(a), b.intern(name), b.add_memcpy(m));
    if (a.correlation) gpu_by_corr.emplace_back(a.correlation, e);
    ++report.memcpys;
  }

  void memset(const CollectedActivity& a, ByteReader& r) {
    const uint32_t dev = device(a.device, &r);
    MemsetInfo m;
    m.bytes = U64Split(a.bytes);
    m.correlation = a.correlation;
    m.value = a.value;
    m.memory = memory_kind_of(a.memory_kind);
    const std::string name = memset_name(m.memory);
    const EventRef e = b.add_slice(stream_track(dev, a.stream, a.context), t(a.start_ns), dur(a), b.intern(name), b.add_memset(m));
    if (a.correlation) gpu_by_corr.emplace_back(a.correlation, e);
    ++report.memsets;
  }

  // Synchronisation records name a context, not a device: the CONTEXT records say which device.
  // Event and context syncs wait on no stream (id 0xFFFFFFFF): one device-level track.
  void sync(const CollectedActivity& a, ByteReader& r) {
    auto it = context_device.find(a.context);
    if (it == context_device.end()) {
      ++unknown_context_syncs;
      return;
    }
    const uint32_t dev = device(it->second, &r);
    static constexpr std::string_view kNames[] = {"Sync", "Event Sync", "Stream Wait Event", "Stream Sync", "Context Sync"};
    static constexpr SyncKind kKinds[] = {SyncKind::kUnknown, SyncKind::kEventSync, SyncKind::kStreamWaitEvent,
                                          SyncKind::kStreamSync, SyncKind::kContextSync};
    const size_t k = a.sync_type < 5 ? a.sync_type : 0;
    SyncInfo y;
    y.correlation = a.correlation;
    y.kind = kKinds[k];
    y.event_id = a.event_id == 0xFFFFFFFFu ? kNone32 : a.event_id;
    const int64_t stream = a.stream == kNoStream ? -1 : int64_t{a.stream};
    y.stream = stream;
    b.add_slice(stream_track(dev, stream, a.context), t(a.start_ns), dur(a), b.intern(kNames[k]), b.add_sync(y));
    ++report.syncs;
  }

  NvtxInfo nvtx_info(uint32_t id, const std::string& domain) {
    NvtxInfo n;
    n.domain = domain.empty() ? kEmptyString : b.intern(domain);
    auto it = marker_data.find(id);
    if (it == marker_data.end()) return n;
    const MarkerData& d = it->second;
    if (!(d.flags & kMarkerColorNone) && (d.color || (d.flags & kMarkerColorArgb))) n.color_argb = d.color;
    if (d.category) n.category = b.intern(std::to_string(d.category));
    // CUpti_MetricValueKind → NvtxInfo payload type (0 none, 1 u64, 2 i64, 3 double, 4 u32)
    static constexpr uint8_t kTypes[] = {3, 1, 3, 1, 2, 4};
    if (d.payload_kind < std::size(kTypes)) {
      n.payload_type = kTypes[d.payload_kind];
      n.payload = U64Split(d.payload);
    }  // 6: an NVTX extended payload (a schema only the program knows): not kept
    return n;
  }

  void marker(const CollectedActivity& a) {
    const bool thread = a.object_kind == kObjectThread;
    if (a.flags & kMarkerStart) {
      open_markers[a.marker_id] = OpenMarker{a.start_ns, a.name, a.domain, a.object_kind, a.object_id[1]};
      return;
    }
    if (a.flags & kMarkerEnd) {
      auto it = open_markers.find(a.marker_id);
      if (it == open_markers.end()) {
        ++unmatched_marker_ends;
        return;
      }
      const OpenMarker& m = it->second;
      const bool same_thread = thread && m.object_kind == kObjectThread && m.tid == a.object_id[1];
      const uint32_t track = same_thread ? thread_track(m.tid) : domain_track(m.domain);
      b.add_slice(track, t(m.start), a.start_ns >= m.start ? t(a.start_ns - m.start) : 0, b.intern(m.name),
                  b.add_nvtx(nvtx_info(a.marker_id, m.domain)));
      ++report.nvtx_ranges;
      open_markers.erase(it);
      return;
    }
    if (a.flags & kMarkerInstant) {
      const uint32_t track = thread ? thread_track(a.object_id[1]) : domain_track(a.domain);
      b.add_slice(track, t(a.start_ns), 0, b.intern(a.name), b.add_nvtx(nvtx_info(a.marker_id, a.domain)));
      ++report.nvtx_marks;
      return;
    }
    ++other_markers;  // NVTX synchronisation-object markers: not shown
  }

  void api(const CollectedActivity& a) {
    ApiInfo info;
    info.correlation = a.correlation;
    info.cbid = a.cbid;
    info.result = static_cast<int32_t>(a.return_value);
    std::vector<Arg> args;
    if (a.correlation)
      if (auto it = externals.find(a.correlation); it != externals.end()) {
        args.push_back({b.intern("external id"), ArgValue::of_uint(it->second.second)});
        args.push_back({b.intern("external kind"), ArgValue::of_uint(it->second.first)});
      }
    const EventRef e = b.add_slice(thread_track(a.tid), t(a.start_ns), dur(a), api_name(a.name), b.add_api_call(info), args);
    if (a.correlation) {
      // the runtime call wins over the driver call it made with the same id
      const bool runtime = a.api_domain == ApiDomain::kRuntime;
      auto& slot = api_by_corr[a.correlation];
      if (!slot.second.valid() || (runtime && !slot.first)) slot = {runtime, e};
    }
    if (keep_launch_api && a.api_domain == ApiDomain::kDriver && a.name.rfind("cuLaunchKernel", 0) == 0) launch_api.push_back(a);
    ++report.api_calls;
  }

  void overhead(const CollectedActivity& a, ByteReader& r) {
    uint32_t track;
    switch (a.object_kind) {
      case kObjectThread: track = thread_track(a.object_id[1]); break;
      case kObjectDevice:  // device, context, stream objects: object_id = (device, context), stream in `stream`
      case kObjectContext: track = stream_track(device(a.object_id[0], &r), -1, a.object_id[1]); break;
      case kObjectStream: track = stream_track(device(a.object_id[0], &r), int64_t{a.stream}, a.object_id[1]); break;
      default: track = thread_track(0); break;  // process-wide: shown on a "thread 0" row
    }
    b.add_slice(track, t(a.start_ns), dur(a), b.intern(overhead_name(a.overhead_kind)), SliceRef(SliceKind::kOverhead, SliceRef::kNoDetail));
    ++report.overheads;
  }

  void graph_trace(const CollectedActivity& a, ByteReader& r) {
    const uint32_t dev = device(a.device, &r);
    const Arg args[] = {{b.intern("graph id"), ArgValue::of_uint(a.graph_id)}};
    const EventRef e = b.add_slice(stream_track(dev, a.stream, a.context), t(a.start_ns), dur(a),
                                   b.intern("CUDA graph " + std::to_string(a.graph_id)),
                                   SliceRef(SliceKind::kGeneric, SliceRef::kNoDetail), args);
    if (a.correlation) gpu_by_corr.emplace_back(a.correlation, e);
  }

  // after the records

  void open_ranges() {
    if (open_markers.empty()) return;
    std::vector<std::pair<uint32_t, OpenMarker>> open(open_markers.begin(), open_markers.end());
    std::sort(open.begin(), open.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (const auto& [id, m] : open) {
      const uint32_t track = m.object_kind == kObjectThread ? thread_track(m.tid) : domain_track(m.domain);
      b.add_slice(track, t(m.start), 0, b.intern(m.name), b.add_nvtx(nvtx_info(id, m.domain)));
      ++report.nvtx_ranges;
    }
    hooks.warn(plural(open.size(), "NVTX range has", "NVTX ranges have") + " no end (the file was cut, or the program never closed them); shown with zero length");
  }

  int64_t offset_for(uint32_t ordinal, ClockDomain clock, uint64_t at, bool* found) {
    *found = true;
    if (clock == ClockDomain::kCupti || clock == ClockDomain::kRealtime) return 0;
    const uint32_t key_device = clock == ClockDomain::kMonotonic ? collector::kHostDevice : ordinal;
    auto it = clock_syncs.find({key_device, clock});
    if (it != clock_syncs.end() && !it->second.empty()) {
      const Sync* best = &it->second.front();
      for (const Sync& s : it->second)
        if ((s.at > at ? s.at - at : at - s.at) < (best->at > at ? best->at - at : at - best->at)) best = &s;
      return best->offset;
    }
    if (clock == ClockDomain::kMonotonic) {
      const std::string v = hooks.metadata("realtime_minus_monotonic_ns");
      if (!v.empty()) return std::strtoll(v.c_str(), nullptr, 10);
    }
    *found = false;
    return 0;
  }

  // Per-GPU NVLink capacity per direction from the NVLINK records: CUPTI gives the pair's
  // bandwidth in kB/s for both directions together (849 960 000 for NV18 on the H200 pair).
  std::map<uint32_t, double> nvlink_capacity() {
    std::map<uint32_t, double> cap;
    for (const CollectedActivity& n : nvlinks)
      for (int e = 0; e < 2; ++e) {
        if (n.dev_type[e] != 1) continue;
        for (const auto& [ordinal, f] : facts)
          if (!f.uuid.empty() && f.uuid == n.dev_id[e])
            cap[ordinal] = std::max(cap[ordinal], static_cast<double>(n.bandwidth_kbps) * 1000.0 / 2.0);
      }
    return cap;
  }

  void counter_tracks() {
    const std::map<uint32_t, double> cap = nvlink_capacity();
    for (auto& [key, v] : counters) {
      const auto& [ordinal, metric] = key;
      std::sort(v.begin(), v.end(), [](const CounterRecord& x, const CounterRecord& y) { return x.start < y.start; });
      const uint32_t dev = device(ordinal);
      const uint32_t proc = b.trace().devices[dev].process;
      const bool rx = metric.rfind("nvlrx", 0) == 0, tx = metric.rfind("nvltx", 0) == 0;
      uint32_t track;
      if (rx || tx) {
        Link l;
        l.src_device = static_cast<uint16_t>(dev);
        l.dst_device = kNoDevice;  // the counters are per GPU, not per peer: the GPU ↔ NVLink fabric
        l.direction = rx ? LinkDirection::kRx : LinkDirection::kTx;
        l.medium = Medium::kNvLink;
        if (auto it = cap.find(ordinal); it != cap.end()) l.capacity_bytes_per_s = it->second;
        const uint32_t link = b.add_link(l);
        track = b.track(TrackKey{TrackKind::kLink, proc, static_cast<int32_t>(dev), link},
                        std::string("NVLink ") + (rx ? "rx" : "tx") + " (" + metric + ")");
        b.trace().tracks[track].unit = b.intern("bytes/s");
      } else {
        track = b.track(TrackKey{TrackKind::kCounter, proc, static_cast<int32_t>(dev), pstrace::kTextIdBase + b.intern(metric)}, metric);
        b.trace().tracks[track].unit = b.intern("per sample");
      }
      b.trace().tracks[track].counter_source = CounterSource::kMeasured;
      bool warned = false;
      size_t zero_length = 0;
      for (size_t i = 0; i < v.size(); ++i) {
        const CounterRecord& c = v[i];
        bool found = true;
        const int64_t off = offset_for(ordinal, c.clock, c.start, &found);
        if (!found && !warned) {
          hooks.warn("counter " + metric + " of GPU " + std::to_string(ordinal) + " is on the " +
                     std::string(clock_name(c.clock)) + " clock and the file has no clock sync for it; shown unshifted");
          warned = true;
        }
        const TimeNs start = t(c.start) + off, end = t(c.end) + off;
        if (rx || tx) {
          if (c.end <= c.start) {
            ++zero_length;
            continue;
          }
          b.add_counter_sample(track, start, c.value * 1e9 / static_cast<double>(c.end - c.start));
          // the rate holds until the next sample; where none follows at once, it falls to 0
          if (i + 1 == v.size() || v[i + 1].start > c.end) b.add_counter_sample(track, end, 0.0);
        } else {
          b.add_counter_sample(track, start, c.value);
        }
        ++report.counter_samples;
      }
      if (zero_length)
        hooks.warn(std::to_string(zero_length) + " " + metric + " samples of GPU " + std::to_string(ordinal) + " cover no time; not shown");
    }
  }

  void capture_ranges() {
    if (captures.empty()) return;
    std::sort(captures.begin(), captures.end(), [](const Capture& x, const Capture& y) { return x.t < y.t; });
    const uint32_t track = b.track(
        TrackKey{TrackKind::kNvtx, process(), -1, pstrace::kTextIdBase + b.intern("parascope capture ranges")},
        "capture ranges (parascope_collector_start/stop)");
    const Capture* open = nullptr;
    size_t unmatched = 0;
    for (const Capture& c : captures) {
      if (c.start) {
        if (open) ++unmatched;
        open = &c;
        continue;
      }
      if (!open) {
        ++unmatched;
        continue;
      }
      const Arg args[] = {{b.intern("stop"), ArgValue::of_string(b.intern(c.name))}};
      b.add_slice(track, t(open->t), t(c.t - open->t), b.intern(open->name.empty() ? "capture" : open->name),
                  SliceRef(SliceKind::kGeneric, SliceRef::kNoDetail), args);
      open = nullptr;
    }
    if (open) {
      b.add_slice(track, t(open->t), 0, b.intern(open->name.empty() ? "capture" : open->name), SliceRef(SliceKind::kGeneric, SliceRef::kNoDetail));
      ++unmatched;
    }
    if (unmatched) hooks.warn(plural(unmatched, "capture start/stop mark has", "capture start/stop marks have") + " no partner");
  }

  void nccl_decode() {
    for (const Payload& p : payloads) {
      if (p.type != ChunkType::kNcclRecords) continue;
      ByteReader r(p.bytes.data(), p.bytes.size(), path, 0);
      try {
        std::vector<NcclRecord> v = collector::decode_all_nccl(r);
        nccl.insert(nccl.end(), std::make_move_iterator(v.begin()), std::make_move_iterator(v.end()));
      } catch (const InputError& e) {
        rethrow(p, e);
      }
    }
    report.nccl_records = static_cast<int64_t>(nccl.size());
    for (const NcclRecord& n : nccl)
      if (n.kind == NcclRecordKind::kKernelLaunch && n.correlation == 0) keep_launch_api = true;
  }

  // One CollectiveInfo per collective / p2p operation, linked to the kernel that ran it.
  void collectives() {
    if (nccl.empty()) return;
    struct Comm {
      int32_t nranks = 0, rank = -1;
      std::string name;
    };
    std::unordered_map<uint64_t, Comm> comms;
    for (const NcclRecord& n : nccl)
      if (n.kind == NcclRecordKind::kCommInit) comms[n.comm_hash] = Comm{n.nranks, n.rank, n.comm_name};
    const std::vector<uint32_t> corr = collector::nccl_kernel_correlations(nccl, launch_api);
    size_t unlinked = 0, captured = 0;
    for (size_t i = 0; i < nccl.size(); ++i) {
      const NcclRecord& n = nccl[i];
      if (n.kind != NcclRecordKind::kCollective && n.kind != NcclRecordKind::kP2p) continue;
      ++report.nccl_operations;
      const Comm& comm = comms[n.comm_hash];
      CollectiveInfo c;
      c.op = collector::nccl_op(n.func);
      c.dtype = b.intern(n.datatype);
      c.dtype_bytes = collector::nccl_dtype_bytes(n.datatype);
      c.channels = static_cast<uint16_t>(std::min<uint32_t>(n.channels, 0xFFFF));
      c.rank = n.rank >= 0 ? n.rank : comm.rank;
      c.group_size = comm.nranks;
      char hash[24];
      std::snprintf(hash, sizeof hash, "nccl:%016llx", static_cast<unsigned long long>(n.comm_hash));
      c.group = b.intern(comm.name.empty() ? std::string(hash) : comm.name);
      c.algorithm = b.intern(n.algorithm);
      c.protocol = b.intern(n.protocol);
      c.sequence = n.kind == NcclRecordKind::kCollective ? static_cast<int64_t>(n.sequence) : -1;
      if (n.kind == NcclRecordKind::kP2p) c.peer = n.peer;
      collector::nccl_elements(c.op, n.count, comm.nranks, &c.in_elements, &c.out_elements);
      if (corr[i]) {
        auto it = kernels_by_corr.find(corr[i]);
        if (it != kernels_by_corr.end()) {
          c.kernel = it->second.front().first;
          for (const auto& [ref, is_nccl] : it->second)
            if (is_nccl) {
              c.kernel = ref;
              break;
            }
        }
      }
      if (c.kernel.valid()) ++report.nccl_operations_linked;
      else ++unlinked, captured += n.graph_captured;
      b.add_collective(c);
    }
    if (unlinked)
      hooks.warn(plural(unlinked, "NCCL operation", "NCCL operations") + " could not be linked to the kernel that ran it" +
                 (captured ? " (" + std::to_string(captured) + " captured in CUDA graphs)" : std::string()) +
                 "; kept without a kernel");
  }

  void probes() {
    for (auto& [dev, v] : kernels_by_device)
      std::sort(v.begin(), v.end(), [](const KernelSpan& x, const KernelSpan& y) { return x.start < y.start; });
    StringId role_names[kSmRoleCount];
    for (int i = 0; i < kSmRoleCount; ++i) role_names[i] = b.intern(to_string(static_cast<SmRole>(i)));
    std::unordered_map<uint64_t, uint32_t> sm_tracks;
    size_t bad_roles = 0, unlinked = 0;
    std::vector<std::string> overflow_notes;
    for (const Payload& p : payloads) {
      if (p.type != ChunkType::kProbeRecords) continue;
      ByteReader r(p.bytes.data(), p.bytes.size(), path, 0);
      ProbeChunk c;
      uint32_t dev = 0;
      try {
        c = decode_probe_chunk(r);
        dev = device(c.device, &r);
        if (c.clock_offset_ns > kMaxOffsetNs || c.clock_offset_ns < -kMaxOffsetNs)
          r.fail("probe chunk: clock offset " + std::to_string(c.clock_offset_ns) + " ns is beyond 2^61 ns");
        for (const ProbeRecord& rec : c.records)
          if (rec.t_start_ns > kMaxTimeNs || rec.t_end_ns > kMaxTimeNs)
            r.fail("probe record of SM " + std::to_string(rec.smid) + ": time beyond 2^62 ns");
      } catch (const InputError& e) {
        rethrow(p, e);
      }
      const uint32_t proc = b.trace().devices[dev].process;
      const StringId name = b.intern(c.kernel_name);
      if (c.overflow) {
        report.probe_overflow += c.overflow;
        overflow_notes.push_back(std::to_string(c.overflow) + " of " + (c.kernel_name.empty() ? "a kernel" : c.kernel_name) +
                                 " (GPU " + std::to_string(c.device) + ", launch " + std::to_string(c.launch_id) + ")");
      }
      const std::vector<KernelSpan>* kernels = nullptr;
      if (auto it = kernels_by_device.find(dev); it != kernels_by_device.end()) kernels = &it->second;
      const std::vector<std::pair<EventRef, bool>>* by_corr = nullptr;
      if (c.correlation)
        if (auto it = kernels_by_corr.find(c.correlation); it != kernels_by_corr.end()) by_corr = &it->second;
      for (const ProbeRecord& rec : c.records) {
        auto [it, inserted] = sm_tracks.try_emplace((uint64_t{dev} << 16) | rec.smid, 0u);
        if (inserted)
          it->second = b.track(TrackKey{TrackKind::kSmLane, proc, static_cast<int32_t>(dev), rec.smid}, "SM " + std::to_string(rec.smid));
        SmSpanInfo s;
        s.block = rec.block;
        s.tag = rec.tag;
        s.launch_id = rec.launch_id;
        s.warp = rec.warp;
        if (rec.role >= kSmRoleCount) ++bad_roles;
        s.role = rec.role < kSmRoleCount ? static_cast<SmRole>(rec.role) : SmRole::kOther;
        const TimeNs start = static_cast<TimeNs>(rec.t_start_ns) + c.clock_offset_ns;
        const TimeNs d = rec.t_end_ns >= rec.t_start_ns ? static_cast<TimeNs>(rec.t_end_ns - rec.t_start_ns) : 0;
        if (by_corr) {
          for (const auto& [ref, is_nccl] : *by_corr)
            if (ref.track < b.trace().tracks.size() && b.trace().tracks[ref.track].key.device == static_cast<int32_t>(dev)) {
              s.kernel = ref;
              break;
            }
        } else if (kernels) {
          s.kernel = kernel_at(*kernels, start + d / 2, c.kernel_name);
        }
        if (s.kernel.valid()) ++report.spans_linked;
        else ++unlinked;
        b.add_slice(it->second, start, d, c.kernel_name.empty() ? role_names[static_cast<int>(s.role)] : name, b.add_sm_span(s));
        ++report.probe_records;
      }
    }
    if (!overflow_notes.empty()) {
      std::string m = std::to_string(report.probe_overflow) + " probe records were lost to probe-buffer overflow:";
      for (size_t i = 0; i < overflow_notes.size() && i < 8; ++i) m += (i ? ", " : " ") + overflow_notes[i];
      if (overflow_notes.size() > 8) m += ", ...";
      hooks.warn(m);
    }
    if (bad_roles) hooks.warn(std::to_string(bad_roles) + " probe records had a role outside 0..3; shown as 'other'");
    if (unlinked && any_kernel)
      hooks.warn(plural(unlinked, "SM span lies", "SM spans lie") + " in no kernel record of its GPU; left unlinked");
  }

  // The kernel of `v` (sorted by start) running at `mid`; several (concurrent streams): the one
  // whose name contains the probe buffer's kernel name, else none.
  EventRef kernel_at(const std::vector<KernelSpan>& v, TimeNs mid, const std::string& probe_name) {
    auto hi = std::upper_bound(v.begin(), v.end(), mid, [](TimeNs x, const KernelSpan& k) { return x < k.start; });
    EventRef found;
    int hits = 0;
    for (int back = 0; hi != v.begin() && back < 64; ++back) {
      --hi;
      if (hi->end <= mid) continue;
      if (hits == 0 || (!probe_name.empty() && b.strings().view(hi->name).find(probe_name) != std::string_view::npos)) found = hi->ref;
      ++hits;
    }
    return found;
  }

  // The stand-in process group's records (record --world), after everything they refer to.
  void standin() {
    standin::Records records;
    for (const Payload& p : payloads) {
      if (p.type != ChunkType::kStandInRecords) continue;
      try {
        standin::parse_records(std::string_view(reinterpret_cast<const char*>(p.bytes.data()), p.bytes.size()), path, records);
      } catch (const InputError& e) {
        rethrow(p, e);
      }
    }
    if (records.ops.empty() && !records.world) return;
    // the stand-in stamps CLOCK_REALTIME; the file's host clock syncs say how far CUPTI's clock is
    int64_t realtime_to_cupti = 0;
    if (auto it = clock_syncs.find({collector::kHostDevice, ClockDomain::kRealtime}); it != clock_syncs.end() && !it->second.empty())
      realtime_to_cupti = it->second.front().offset;
    const StandInImportReport r = import_standin(
        b, records, realtime_to_cupti,
        StandInImportHooks{[this] { return process(); }, [this](uint32_t ordinal) { return device(ordinal); },
                           [this](uint32_t tid) { return thread_track(tid); }, [this](const std::string& m) { hooks.warn(m); }});
    report.standin_ops = r.ops;
    report.standin_waits = r.waits;
  }

  void launch_flows() {
    for (const auto& [corr, gpu] : gpu_by_corr) {
      auto it = api_by_corr.find(corr);
      if (it == api_by_corr.end()) continue;
      b.add_flow(it->second.second, gpu, FlowKind::kLaunch);
      ++report.launch_flows;
    }
  }

  // Device facts onto the devices this file's events made, and GPU ↔ GPU links from NVLINK records.
  void devices_and_links() {
    std::map<std::string, uint32_t> ordinal_by_uuid;
    for (const auto& [ordinal, f] : facts)
      if (!f.uuid.empty()) ordinal_by_uuid[f.uuid] = ordinal;
    for (const auto& [ordinal, dev] : dev_of_ordinal) {
      auto it = facts.find(ordinal);
      if (it == facts.end()) continue;
      const Facts& f = it->second;
      Device& d = b.trace().devices[dev];
      if (d.name.empty()) d.name = f.name;
      if (d.uuid.empty()) d.uuid = f.uuid;
      if (d.pci_bus_id.empty()) d.pci_bus_id = f.pci_bus_id;
      if (!d.sm_count) d.sm_count = f.sm_count;
      if (!d.compute_major) d.compute_major = f.compute_major, d.compute_minor = f.compute_minor;
      if (!d.memory_bytes) d.memory_bytes = f.memory_bytes;
    }
    for (const CollectedActivity& n : nvlinks) {
      if (n.dev_type[0] != 1 || n.dev_type[1] != 1) continue;
      auto a = ordinal_by_uuid.find(n.dev_id[0]), c = ordinal_by_uuid.find(n.dev_id[1]);
      if (a == ordinal_by_uuid.end() || c == ordinal_by_uuid.end()) continue;
      auto da = dev_of_ordinal.find(a->second), dc = dev_of_ordinal.find(c->second);
      if (da == dev_of_ordinal.end() || dc == dev_of_ordinal.end()) continue;  // no events of this process on one end
      for (int dir = 0; dir < 2; ++dir) {
        Link l;
        l.src_device = static_cast<uint16_t>(dir ? dc->second : da->second);
        l.dst_device = static_cast<uint16_t>(dir ? da->second : dc->second);
        l.direction = LinkDirection::kTx;
        l.medium = Medium::kNvLink;
        l.capacity_bytes_per_s = static_cast<double>(n.bandwidth_kbps) * 1000.0 / 2.0;
        b.add_link(l);
      }
    }
  }

  void clock_note() {
    if (clock_syncs.empty()) return;
    std::string note;
    for (const auto& [key, v] : clock_syncs) {
      if (v.empty()) continue;
      const auto& [ordinal, clock] = key;
      char buf[200];
      std::snprintf(buf, sizeof buf, "%s%s %s -> CUPTI %+lld ns +- %llu ns", note.empty() ? "" : "; ",
                    ordinal == collector::kHostDevice ? "host" : ("GPU " + std::to_string(ordinal)).c_str(),
                    std::string(clock_name(clock)).c_str(), static_cast<long long>(v.front().offset),
                    static_cast<unsigned long long>(v.front().uncertainty));
      note += buf;
      if (v.size() > 1)
        note += " (" + std::to_string(v.size()) + " syncs, drift " + std::to_string(v.back().offset - v.front().offset) + " ns)";
    }
    Process& p = b.trace().processes[process()];
    p.clock_offset_reason += (p.clock_offset_reason.empty() ? "" : "; ") + note;
  }

  void warnings() {
    if (dropped)
      hooks.warn("CUPTI dropped " + plural(dropped, "record", "records") + " (" + plural(dropped_streams, "count", "counts") +
                 "): the activity they held is missing from the trace");
    if (unknown_context_syncs)
      hooks.warn(plural(unknown_context_syncs, "synchronisation record names", "synchronisation records name") +
                 " a CUDA context with no CONTEXT record (kind 'device' not recorded?); not shown");
    if (unmatched_marker_ends)
      hooks.warn(plural(unmatched_marker_ends, "NVTX range end has", "NVTX range ends have") + " no start in the file; not shown");
    const std::string incomplete = hooks.metadata("incomplete_records");
    if (!incomplete.empty() && incomplete != "0")
      hooks.warn(incomplete + " records CUPTI had not completed at a forced flush were not written by the collector");
  }
};

CollectorImport::CollectorImport(TraceBuilder& builder, std::string path, CollectorImportHooks hooks)
    : s_(std::make_unique<State>(builder, std::move(path), std::move(hooks))) {}
CollectorImport::~CollectorImport() = default;

void CollectorImport::add(ChunkType type, uint64_t chunk_offset, std::vector<uint8_t> payload) {
  s_->payloads.push_back({type, chunk_offset, std::move(payload)});
}

bool CollectorImport::empty() const { return s_->payloads.empty(); }

void CollectorImport::finish() {
  State& s = *s_;
  if (s.payloads.empty()) return;
  s.has_probes = std::any_of(s.payloads.begin(), s.payloads.end(),
                             [](const State::Payload& p) { return p.type == ChunkType::kProbeRecords; });
  s.declarations();
  s.nccl_decode();
  s.events();
  s.open_ranges();
  s.counter_tracks();
  s.capture_ranges();
  s.collectives();
  s.probes();
  s.launch_flows();
  s.devices_and_links();
  s.clock_note();
  s.standin();
  s.warnings();
  s.payloads.clear();
}

const CollectorImportReport& CollectorImport::report() const { return s_->report; }

}  // namespace parascope
