// The bench's probe records on disk: a .pstrace written through the official PstraceWriter
// (trace/io/pstrace/pstrace_writer.h) — a metadata chunk, the bench process and its GPUs (processes and
// devices chunks), then one kProbeRecords chunk per (device, probe buffer) whose payload is the
// shared trace/io/collector/probe_chunk.h layout (device, clock offset, correlation, launch id, kernel name,
// overflow count, raw ProbeRecords; grammar in pstrace_format.h). Overflow is never silent: the
// count travels with the records and the reader warns about it. Files from before this layout
// (interim payload, "key=value" metadata) are converted by kernels/bench/upgrade_probe_trace.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "trace/core/probe_record.h"
#include "trace/core/trace.h"
#include "trace/io/collector/probe_chunk.h"

namespace parascope::bench {

// One probe buffer read back after a run: the chunk as it goes into the file.
using ProbeLaunch = parascope::ProbeChunk;

// overflow = max(next, capacity) − capacity (probe_record.h).
uint64_t probe_overflow(const ProbeBufferHeader& h);

// One line per launch: "GPU 1 ag_gemm_fused_tma/push: 32 spans on 8 SMs (124-131), communicate
// 32, window 812.4 us, overflow 0" — a quick look at a probed run without the trace reader.
std::string describe_probes(const std::vector<ProbeLaunch>& launches);

// What the file says about where it was made: metadata keys (tool, command, date, devices, clock,
// note...), the process (host, pid, name; rank -1) and its GPUs (Device: ordinal, name, PCI bus
// id, UUID, SMs, memory; `process` is ignored).
struct ProbeFileInfo {
  std::vector<std::pair<std::string, std::string>> metadata;
  Process process;
  std::vector<Device> devices;
};

// Writes the whole file atomically; throws std::runtime_error on I/O errors.
void write_probe_pstrace(const std::string& path, const ProbeFileInfo& info, const std::vector<ProbeLaunch>& launches);

}  // namespace parascope::bench
