// TraceSummary: what `parascope-cli info` prints and the GUI's status line shows — per process
// (rank): CPU threads and what is on them; per device: streams, kernel / memcpy / memset /
// communication-kernel counts, collectives, SM lanes and spans, counter (link) tracks, busy time
// and span. One function shared by CLI and GUI so both report the same numbers.
// Only tracks with events are listed: a stream track without slices or a counter track without
// samples does not appear (readers may declare tracks that never get an event); a device with no
// track at all (a peer-copy destination seen from another process) keeps has_events = false.
#pragma once

#include <string>
#include <vector>

#include "trace/core/trace.h"

namespace parascope {

struct StreamSummary {
  uint32_t track = 0;
  int64_t stream_id = 0;
  int64_t kernels = 0, memcpys = 0, memsets = 0, syncs = 0, comm_kernels = 0, other = 0;
  TimeNs first = 0, last = 0;  // span of its activity
};

// A counter track with samples (link traffic, memory, any series).
struct CounterSummary {
  uint32_t track = 0;
  int64_t samples = 0;
  double peak = 0;
  double integral = 0;         // value × time until the next sample, in value·s (bytes for bytes/s)
  TimeNs first = 0, last = 0;
};

struct DeviceSummary {
  uint32_t device = 0;
  bool has_events = false;     // any slice or counter sample on a track of this device
  int64_t kernels = 0, memcpys = 0, memsets = 0, syncs = 0, comm_kernels = 0, collectives = 0;
  int64_t peer_memcpys = 0;    // memcpys between two devices (PtoP)
  int64_t sm_spans = 0, sm_lanes = 0;
  int64_t sm_spans_min = 0, sm_spans_max = 0;  // spans on the least / most busy SM lane
  uint64_t memcpy_bytes = 0;
  TimeNs first = 0, last = 0;
  TimeNs kernel_busy_ns = 0;   // sum of kernel durations (not de-overlapped)
  std::vector<StreamSummary> streams;  // GPU stream tracks with slices, by stream id (-1: no stream)
  std::vector<CounterSummary> counters;  // link and other counter tracks of this device
};

struct ProcessSummary {
  uint32_t process = 0;
  int64_t cpu_tracks = 0, cpu_slices = 0;  // thread tracks with slices
  int64_t api_calls = 0, nvtx = 0, cpu_ops = 0, overhead = 0;  // slices on thread and NVTX tracks
  int64_t nvtx_tracks = 0;                 // NVTX tracks not tied to a thread, with slices
  std::vector<DeviceSummary> devices;
  std::vector<CounterSummary> counters;    // counter tracks not tied to a device
};

struct TraceSummary {
  TimeNs start = 0, end = 0;
  int64_t slices = 0, flows = 0, counters = 0, tracks = 0;
  std::vector<ProcessSummary> processes;
};

TraceSummary summarize(const Trace& trace);

// Distinct rank numbers among the trace's processes (a process of unknown rank, a launcher, has
// none): the status line's ranks and the world size the Chrome writer records.
size_t rank_count(const Trace& trace);

}  // namespace parascope
