// Probe buffers for one probed run: one buffer per (GPU, kernel family), each a ProbeBufferHeader
// plus `capacity` records in device memory, handed to kernels as a pointer. After the run the
// records and overflow counts come back as ProbeLaunch values and are written to a .pstrace
// (host/probe_chunk.h) together with probe_file_info(): this process and its GPUs. Buffers are
// allocated before any capture; reset() rearms them.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "device/gpu_context.h"
#include "host/probe_chunk.h"

namespace parascope::bench {

// Metadata (the caller's keys plus host, pid, source_format), this process and the context's GPUs
// (name, PCI bus id, UUID, SMs, memory) for write_probe_pstrace.
ProbeFileInfo probe_file_info(const GpuContext& ctx, std::vector<std::pair<std::string, std::string>> metadata);

class ProbeSession {
 public:
  ProbeSession(GpuContext& ctx, uint32_t capacity);
  ~ProbeSession();
  ProbeSession(const ProbeSession&) = delete;
  ProbeSession& operator=(const ProbeSession&) = delete;

  // The buffer of `kernel` on GPU `rank` (allocated and armed on first use).
  ProbeBufferHeader* buffer(int rank, const std::string& kernel);
  // Empties every buffer; each gets a new launch id.
  void reset();
  // Synchronises and reads every buffer back (records in slot order, overflow counted).
  std::vector<ProbeLaunch> collect();

 private:
  void arm(int rank, ProbeBufferHeader* h);
  GpuContext& ctx_;
  uint32_t capacity_;
  uint32_t next_launch_id_ = 1;
  std::map<std::pair<int, std::string>, ProbeBufferHeader*> buffers_;
};

}  // namespace parascope::bench
