// What one collector .pstrace holds, counted per device: kernels (NCCL ones and how many carry NCCL
// annotations), copies (peer copies by source → destination), memsets, syncs, NVTX, API calls,
// NCCL operations, probe and counter data, clock offsets, drops, warnings and notes, another CUPTI client's
// calls (torch.profiler beside the collector) and the metadata.
// `record` prints it after a run and writes it into manifest.json; parascope-collector-dump
// prints it for any file. Reads through ChunkReader, so a file cut by SIGKILL is summarised up to
// its last complete chunk (complete = false). CUDA-free.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "trace/collector/chunk_payloads.h"
#include "trace/collector/other_cupti_clients.h"
#include "trace/core/json.h"

namespace parascope::collector {

struct DeviceCounts {
  uint64_t kernels = 0, nccl_kernels = 0, nccl_kernels_annotated = 0;
  uint64_t memcpys = 0, peer_memcpys = 0, memsets = 0, graph_kernels = 0;
  uint64_t memcpy_bytes = 0;
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> peer_pairs;  // (src, dst) → copies
  uint64_t first_ns = 0, last_ns = 0;
  std::string name, pci_bus_id, uuid;
};

struct CounterSeries {
  uint64_t samples = 0;
  double sum = 0, max = 0;
  uint64_t first_ns = 0, last_ns = 0;
};

struct CaptureSummary {
  std::string path;
  bool complete = false;          // index + trailer present (closed cleanly)
  uint64_t file_bytes = 0, chunks = 0;
  std::vector<std::string> reader_warnings;
  Metadata metadata;              // all metadata chunks in file order (last value wins)
  std::vector<std::string> warnings;
  std::vector<std::string> notes;  // the notes chunks, and an older collector's notes among its warnings
  std::map<std::string, uint64_t> records_by_kind;
  std::map<uint32_t, DeviceCounts> devices;
  uint64_t runtime_calls = 0, driver_calls = 0, syncs = 0, nvtx_ranges = 0, nvtx_marks = 0, dropped = 0;
  uint64_t nccl_collectives = 0, nccl_p2p = 0, nccl_launches = 0, nccl_launches_with_correlation = 0;
  uint64_t nccl_ops_linked = 0, nccl_communicators = 0;
  uint64_t probe_chunks = 0, probe_records = 0, probe_overflow = 0;
  std::map<std::pair<uint32_t, std::string>, CounterSeries> counters;  // (device, metric)
  struct Clock {
    uint32_t device;
    int64_t offset_ns;
    uint64_t uncertainty_ns;
    uint64_t at_ns;
  };
  std::vector<Clock> clock_syncs;
  // another CUPTI client's calls in this process (other_cupti_clients.h), first seen first;
  // unreadable entries (a damaged file) are counted, not guessed
  std::vector<OtherCuptiCall> other_cupti_calls;
  uint64_t other_cupti_calls_unreadable = 0;
  std::string meta(const std::string& key) const { return metadata_value(metadata, key); }
};

// Throws InputError when the file is not a readable .pstrace.
CaptureSummary summarize_capture(const std::string& path);
JsonValue to_json_value(const CaptureSummary& s);
// A few lines for people: rank, status, per-device counts, NCCL links, warnings, notes.
std::string format_summary(const CaptureSummary& s);

}  // namespace parascope::collector
