#include "bench/probe_session.h"

#include "bench/cuda_check.h"

namespace parascope::bench {

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
    l.kernel = key.second;
    l.overflow = probe_overflow(header);
    l.records.resize(std::min(header.next, header.capacity));
    if (!l.records.empty())
      PS_CUDA(cudaMemcpy(l.records.data(), h + 1, l.records.size() * sizeof(ProbeRecord), cudaMemcpyDeviceToHost));
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace parascope::bench
