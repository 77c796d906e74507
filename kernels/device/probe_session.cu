#include "device/probe_session.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "device/cuda_check.h"
#include "parascope/collector.h"

namespace parascope::bench {

ProbeFileInfo probe_file_info(const GpuContext& ctx, std::vector<std::pair<std::string, std::string>> metadata) {
  ProbeFileInfo info;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = 0;
  info.process.host = host;
  info.process.pid = static_cast<int64_t>(getpid());
  info.process.name = "parascope-bench";
  info.metadata = std::move(metadata);
  info.metadata.emplace_back("source_format", "parascope-bench");
  info.metadata.emplace_back("host", info.process.host);
  info.metadata.emplace_back("pid", std::to_string(info.process.pid));
  for (int r = 0; r < ctx.n(); ++r) {
    const cudaDeviceProp& p = ctx.prop(r);
    Device d;
    d.ordinal = r;
    d.name = p.name;
    char bus[32] = {};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, r) == cudaSuccess) d.pci_bus_id = bus;
    else cudaGetLastError();
    const auto* u = reinterpret_cast<const unsigned char*>(p.uuid.bytes);
    char uuid[48];
    std::snprintf(uuid, sizeof uuid, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
                  u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
    d.uuid = uuid;
    d.sm_count = static_cast<uint32_t>(p.multiProcessorCount);
    d.compute_major = static_cast<uint32_t>(p.major);
    d.compute_minor = static_cast<uint32_t>(p.minor);
    d.memory_bytes = p.totalGlobalMem;
    info.devices.push_back(std::move(d));
  }
  return info;
}

ProbeSession::ProbeSession(GpuContext& ctx, uint32_t capacity) : ctx_(ctx), capacity_(capacity) {}

ProbeSession::~ProbeSession() {
  for (auto& [key, h] : buffers_) {
    cudaSetDevice(key.first);
    cudaFree(h);
  }
}

void ProbeSession::arm(int rank, ProbeBufferHeader* h) {
  ctx_.set(rank);
  const ProbeBufferHeader header{kProbeMagic, capacity_, 0, next_launch_id_++};
  PS_CUDA(cudaMemcpy(h, &header, sizeof header, cudaMemcpyHostToDevice));
}

ProbeBufferHeader* ProbeSession::buffer(int rank, const std::string& kernel) {
  const auto key = std::make_pair(rank, kernel);
  if (auto it = buffers_.find(key); it != buffers_.end()) return it->second;
  ctx_.set(rank);
  ProbeBufferHeader* h = nullptr;
  PS_CUDA(cudaMalloc(&h, sizeof(ProbeBufferHeader) + static_cast<size_t>(capacity_) * sizeof(ProbeRecord)));
  arm(rank, h);
  buffers_[key] = h;
  return h;
}

void ProbeSession::reset() {
  ctx_.sync_all();
  for (auto& [key, h] : buffers_) arm(key.first, h);
}

std::vector<ProbeLaunch> ProbeSession::collect() {
  ctx_.sync_all();
  std::vector<ProbeLaunch> out;
  for (auto& [key, h] : buffers_) {
    ctx_.set(key.first);
    ProbeBufferHeader header{};
    PS_CUDA(cudaMemcpy(&header, h, sizeof header, cudaMemcpyDeviceToHost));
    ProbeLaunch l;
    l.device = static_cast<uint32_t>(key.first);
    l.clock_offset_ns = 0;  // globaltimer → CUPTI offset unknown without the collector
    l.launch_id = header.launch_id;
    l.kernel_name = key.second;
    l.overflow = probe_overflow(header);
    l.records.resize(std::min(header.next, header.capacity));
    if (!l.records.empty())
      PS_CUDA(cudaMemcpy(l.records.data(), h + 1, l.records.size() * sizeof(ProbeRecord), cudaMemcpyDeviceToHost));
    // Under `parascope-cli record` the collector takes the buffer too: it moves the spans onto the
    // CUPTI clock with its measured offset and keeps them beside the kernels (one coherent trace);
    // without it this is a no-op and the --probe file is the only copy.
    std::vector<unsigned char> host(sizeof header + l.records.size() * sizeof(ProbeRecord));
    std::memcpy(host.data(), &header, sizeof header);
    if (!l.records.empty()) std::memcpy(host.data() + sizeof header, l.records.data(), l.records.size() * sizeof(ProbeRecord));
    parascope_collector_submit_probes(key.first, host.data(), host.size(), key.second.c_str(), 0);
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace parascope::bench
