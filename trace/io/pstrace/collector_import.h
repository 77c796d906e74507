// CollectorImport: turns the raw chunks the collector and parascope-bench write into one .pstrace —
// kCuptiRecords (collector_records.h), kNcclRecords (nccl_records.h), kProbeRecords (probe_chunk.h),
// kStandInRecords (standin_records.h) — into the trace model, for the native reader. Payloads are kept until finish(), which decodes
// them in dependency order (device facts, contexts, marker data, graph clones, clock syncs, NVLink
// records first; then the timed records; then NCCL operations, probe spans, launch flows), so a
// record may arrive in any chunk. What stays true:
//   - a track is made only when an event lands on it (streams known only from STREAM records, or a
//     device's other CUDA contexts, never show as empty rows); devices are made when an event, a
//     peer copy or a counter refers to them, and get the facts the DEVICE / device_info records give;
//   - every drop is counted and said once in the warnings (CUPTI's dropped records, NVTX ranges
//     without an end, operations or spans that could not be linked, probe-buffer overflow);
//   - %globaltimer times (probe spans, PM counter samples) are moved onto the CUPTI clock by the
//     offset the file measured (clock_sync records, or the probe chunk's own), and the offsets used
//     are reported;
//   - a malformed payload is an InputError naming the file, the chunk's offset and the payload byte.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "trace/core/trace_builder.h"
#include "trace/io/pstrace/pstrace_format.h"

namespace parascope {

struct CollectorImportHooks {
  std::function<uint32_t()> process;                   // the file's process (made on first use)
  std::function<uint32_t(uint32_t ordinal)> device;    // trace device of a CUDA ordinal of that process
  std::function<std::string(std::string_view key)> metadata;  // last value of a metadata key, "" if none
  std::function<void(const std::string&)> warn;        // one line, without the file name
};

// One clock offset the file measured: time on the CUPTI clock = time on `clock` + offset_ns.
struct ClockSyncReport {
  uint32_t device = 0;          // CUDA ordinal; 0xFFFFFFFF for a host clock
  std::string clock;            // "globaltimer", "monotonic", "realtime"
  int64_t offset_ns = 0;
  uint64_t uncertainty_ns = 0;
  uint64_t measured_at_ns = 0;  // CUPTI ns
};

struct CollectorImportReport {
  int64_t cupti_records = 0, nccl_records = 0, probe_records = 0;
  int64_t kernels = 0, memcpys = 0, peer_memcpys = 0, memsets = 0, syncs = 0, api_calls = 0;
  int64_t nvtx_ranges = 0, nvtx_marks = 0, overheads = 0, graph_kernels = 0;
  int64_t launch_flows = 0;
  int64_t nccl_operations = 0, nccl_operations_linked = 0;
  int64_t standin_ops = 0, standin_waits = 0;  // record --world: the stand-in's calls and waits
  int64_t counter_samples = 0;   // counter records turned into samples
  int64_t spans_linked = 0;      // probe spans linked to their kernel (correlation or time)
  uint64_t dropped_records = 0;  // CUPTI's own drop counts
  uint64_t probe_overflow = 0;
  std::vector<ClockSyncReport> clock_syncs;
};

class CollectorImport {
 public:
  CollectorImport(TraceBuilder& builder, std::string path, CollectorImportHooks hooks);
  ~CollectorImport();
  CollectorImport(const CollectorImport&) = delete;
  CollectorImport& operator=(const CollectorImport&) = delete;

  // Keeps the (verified, decompressed) payload of a kCuptiRecords, kNcclRecords, kProbeRecords or kStandInRecords
  // chunk found at `chunk_offset` of the file.
  void add(ChunkType type, uint64_t chunk_offset, std::vector<uint8_t> payload);
  bool empty() const;
  // Decodes everything added into the builder. Call once, after the file's declaration chunks.
  void finish();
  const CollectorImportReport& report() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace parascope
