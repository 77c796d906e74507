// The in-memory trace: processes/ranks → devices → tracks, with compact per-kind detail tables,
// flows, collective annotations, links and an optional topology. Measured and simulated runs use
// this same model, so every view, export and diff works on both.
// Built only through TraceBuilder (trace_builder.h), which establishes the invariants: tracks'
// slices sorted by start, depths computed, every EventRef pointing at a sorted row.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trace/core/args.h"
#include "trace/core/events.h"
#include "trace/core/recorded_world.h"
#include "trace/core/string_table.h"
#include "trace/core/topology.h"
#include "trace/core/track.h"

namespace parascope {

// A process of the traced program (one per rank in multi-process runs).
struct Process {
  int32_t rank = -1;              // -1: unknown
  int64_t pid = 0;
  std::string host;
  std::string name;               // "python3", "rank 0"
  std::string source;             // the file it came from
  TimeNs clock_offset_ns = 0;     // added to the file's timestamps to put it on the trace clock
  std::string clock_offset_reason;  // "baseTimeNanoseconds", "none", "--offset", "sync event"...
  int64_t sort_index = 0;         // order among processes of equal rank (Chrome process_sort_index)
};

// A GPU as seen by one process. Identity: (host, PCI bus id or UUID) + rank.
struct Device {
  uint32_t process = 0;
  int32_t ordinal = -1;           // CUDA device index inside that process
  std::string name;               // "NVIDIA H200"
  std::string pci_bus_id;         // "0000:00:06.0" where known
  std::string uuid;               // "GPU-..." where known
  uint32_t sm_count = 0;
  uint32_t compute_major = 0, compute_minor = 0;
  uint64_t memory_bytes = 0;
  int32_t topology_gpu = -1;      // gpu_index in Trace::topology, -1 unknown
};

// A directed link between two devices (or a device and the fabric: the other end kNoDevice).
enum class LinkDirection : uint8_t { kTx, kRx };  // as seen from src_device
struct Link {
  uint16_t src_device = kNoDevice;
  uint16_t dst_device = kNoDevice;
  LinkDirection direction = LinkDirection::kTx;
  Medium medium = Medium::kNvLink;
  int32_t port = -1;              // physical port, -1: all ports of that pair together
  double capacity_bytes_per_s = 0;  // 0: unknown
  friend bool operator==(const Link&, const Link&) = default;
};

struct Trace {
  StringTable strings;
  std::vector<Process> processes;
  std::vector<Device> devices;
  std::vector<Track> tracks;

  // Detail tables, indexed by SliceRef::index() of slices of the matching kind.
  std::vector<LaunchConfig> launch_configs;
  std::vector<KernelInfo> kernels;
  std::vector<MemcpyInfo> memcpys;
  std::vector<MemsetInfo> memsets;
  std::vector<SyncInfo> syncs;
  std::vector<NvtxInfo> nvtx;
  std::vector<CpuOpInfo> cpu_ops;
  std::vector<ApiInfo> api_calls;
  std::vector<SmSpanInfo> sm_spans;

  std::vector<CollectiveInfo> collectives;
  std::vector<RecordedWorld> worlds;  // processes recorded as one rank of a larger world (record --world)
  std::vector<Flow> flows;
  std::vector<Link> links;        // TrackKind::kLink tracks use key.id = index here
  ArgStore args;
  std::optional<Topology> topology;

  std::vector<std::string> source_files;
  std::string source_format;      // "kineto-json", "nsys-sqlite", "pstrace", "simulation", ...
  // For the user, kept apart: a warning says something may be wrong with the data (what was
  // skipped, repaired, lost or cut short); a note says how the trace was made (a collector's run
  // summary, what NVLink sampling measured) and is no problem. Views list warnings, then notes.
  std::vector<std::string> warnings;
  std::vector<std::string> notes;

  // Earliest start and latest end over all slices and counter samples; {0, 0} when empty.
  std::pair<TimeNs, TimeNs> time_span() const;
  std::string_view str(StringId id) const { return strings.view(id); }
  size_t slice_count() const;
  // Bytes held by columns, detail tables and strings (for the ≤ 48 bytes/event budget).
  size_t memory_bytes() const;

  // Typed accessors; callers check the slice's kind first.
  const KernelInfo& kernel(SliceRef r) const { return kernels[r.index()]; }
  const MemcpyInfo& memcpy(SliceRef r) const { return memcpys[r.index()]; }
  const LaunchConfig* launch_config(const KernelInfo& k) const {
    return k.launch_config < launch_configs.size() ? &launch_configs[k.launch_config] : nullptr;
  }
};

}  // namespace parascope
