// TraceSummary: what `parascope-cli info` prints and the GUI's status line shows — per process
// (rank) and device: streams, kernel / memcpy / memset / communication-kernel counts, busy time
// and span. One function shared by CLI and GUI so both report the same numbers.
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

struct DeviceSummary {
  uint32_t device = 0;
  int64_t kernels = 0, memcpys = 0, memsets = 0, syncs = 0, comm_kernels = 0, collectives = 0;
  int64_t sm_spans = 0;
  uint64_t memcpy_bytes = 0;
  TimeNs first = 0, last = 0;
  TimeNs kernel_busy_ns = 0;   // sum of kernel durations (not de-overlapped)
  std::vector<StreamSummary> streams;
};

struct ProcessSummary {
  uint32_t process = 0;
  int64_t cpu_tracks = 0, cpu_slices = 0;
  std::vector<DeviceSummary> devices;
};

struct TraceSummary {
  TimeNs start = 0, end = 0;
  int64_t slices = 0, flows = 0, counters = 0, tracks = 0;
  std::vector<ProcessSummary> processes;
};

TraceSummary summarize(const Trace& trace);

}  // namespace parascope
