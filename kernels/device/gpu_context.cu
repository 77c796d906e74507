#include "device/gpu_context.h"

#include <cstdlib>

#include "device/cuda_check.h"

namespace parascope::bench {

int GpuContext::available_gpus() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

GpuContext::GpuContext(int n) : n_(n) {
  if (n < 1 || n > kMaxRanks) throw CudaError("GPU count must be 1.." + std::to_string(kMaxRanks));
  if (available_gpus() < n) throw CudaError("needs " + std::to_string(n) + " GPUs, found " + std::to_string(available_gpus()));
  props_.resize(static_cast<size_t>(n));
  streams_.resize(static_cast<size_t>(n));
  events_.resize(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) {
    PS_CUDA(cudaSetDevice(r));
    PS_CUDA(cudaGetDeviceProperties(&props_[static_cast<size_t>(r)], r));
    for (int p = 0; p < n; ++p) {
      if (p == r) continue;
      int ok = 0;
      PS_CUDA(cudaDeviceCanAccessPeer(&ok, r, p));
      if (!ok) throw CudaError("GPU " + std::to_string(r) + " cannot access GPU " + std::to_string(p));
      const cudaError_t e = cudaDeviceEnablePeerAccess(p, 0);
      if (e == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();
      else PS_CUDA(e);
    }
    for (int k = 0; k < 4; ++k) {  // main + three helpers
      cudaStream_t s;
      PS_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
      streams_[static_cast<size_t>(r)].push_back(s);
    }
    SyncArea* a = nullptr;
    PS_CUDA(cudaMalloc(&a, sizeof(SyncArea)));
    PS_CUDA(cudaMemset(a, 0, sizeof(SyncArea)));
    sync_.push_back(a);
    // Events are made here, never during a stream capture.
    for (int i = 0; i < kEventPool; ++i) {
      cudaEvent_t e;
      PS_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
      events_[static_cast<size_t>(r)].push_back(e);
    }
    flush_bytes_ = std::max<size_t>(flush_bytes_, 2 * static_cast<size_t>(props_[static_cast<size_t>(r)].l2CacheSize));
  }
  for (int r = 0; r < n; ++r) {
    PS_CUDA(cudaSetDevice(r));
    void* f = nullptr;
    PS_CUDA(cudaMalloc(&f, flush_bytes_));
    flush_.push_back(f);
  }
  sync_all();
}

GpuContext::~GpuContext() {
  for (auto c : comms_) ncclCommDestroy(c);
  for (int r = 0; r < n_; ++r) {
    cudaSetDevice(r);
    cudaDeviceSynchronize();
    for (auto s : streams_[static_cast<size_t>(r)]) cudaStreamDestroy(s);
    for (auto e : events_[static_cast<size_t>(r)]) cudaEventDestroy(e);
    cudaFree(sync_[static_cast<size_t>(r)]);
    cudaFree(flush_[static_cast<size_t>(r)]);
  }
  for (size_t i = 0; i < allocations_.size(); ++i) {
    cudaSetDevice(alloc_dev_[i]);
    cudaFree(allocations_[i]);
  }
}

void GpuContext::set(int r) const { PS_CUDA(cudaSetDevice(r)); }

std::string GpuContext::describe() const {
  const auto& p = props_[0];
  return std::to_string(n_) + " x " + p.name + " (" + std::to_string(p.multiProcessorCount) + " SMs, " +
         std::to_string(p.totalGlobalMem >> 30) + " GiB, L2 " + std::to_string(p.l2CacheSize >> 20) +
         " MiB), peer access between all pairs";
}

SymBuffer GpuContext::alloc(size_t bytes) {
  SymBuffer b;
  b.bytes = bytes;
  for (int r = 0; r < n_; ++r) {
    set(r);
    void* p = nullptr;
    PS_CUDA(cudaMalloc(&p, bytes ? bytes : 16));
    allocations_.push_back(p);
    alloc_dev_.push_back(r);
    b.ptr.push_back(p);
  }
  return b;
}

SyncView GpuContext::sync_view(int r, int channel) const {
  SyncView v{};
  v.self = &sync_[static_cast<size_t>(r)]->ch[channel];
  for (int p = 0; p < kMaxRanks; ++p) v.peer[p] = p < n_ ? &sync_[static_cast<size_t>(p)]->ch[channel] : nullptr;
  v.error = &sync_[static_cast<size_t>(r)]->error;
  v.rank = r;
  v.nranks = n_;
  v.channel = channel;
  return v;
}

void GpuContext::reset_sync() {
  sync_all();
  for (int r = 0; r < n_; ++r) {
    set(r);
    PS_CUDA(cudaMemset(sync_[static_cast<size_t>(r)], 0, sizeof(SyncArea)));
  }
  sync_all();
}

std::vector<uint32_t> GpuContext::sync_errors() {
  sync_all();
  std::vector<uint32_t> out;
  for (int r = 0; r < n_; ++r) {
    set(r);
    uint32_t e = 0;
    PS_CUDA(cudaMemcpy(&e, &sync_[static_cast<size_t>(r)]->error, 4, cudaMemcpyDeviceToHost));
    out.push_back(e);
  }
  return out;
}

void GpuContext::sync_all() const {
  for (int r = 0; r < n_; ++r) {
    set(r);
    PS_CUDA(cudaDeviceSynchronize());
  }
}

bool GpuContext::healthy() const {
  for (int r = 0; r < n_; ++r) {
    if (cudaSetDevice(r) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) return false;
  }
  cudaGetLastError();
  return true;
}

void GpuContext::enqueue_l2_flush() {
  for (int r = 0; r < n_; ++r) {
    set(r);
    PS_CUDA(cudaMemsetAsync(flush_[static_cast<size_t>(r)], r + 1, flush_bytes_, stream(r)));
  }
}

ncclComm_t GpuContext::nccl(int r) {
  if (comms_.empty()) {
    // Policy on the lent machines: NVLink multicast (NVLS) stays off.
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    comms_.resize(static_cast<size_t>(n_));
    std::vector<int> devs(static_cast<size_t>(n_));
    for (int i = 0; i < n_; ++i) devs[static_cast<size_t>(i)] = i;
    PS_NCCL(ncclCommInitAll(comms_.data(), n_, devs.data()));
  }
  return comms_[static_cast<size_t>(r)];
}

cudaEvent_t GpuContext::event(int r, int i) {
  if (i < 0 || i >= kEventPool) throw CudaError("event pool index " + std::to_string(i) + " out of range");
  return events_[static_cast<size_t>(r)][static_cast<size_t>(i)];
}

}  // namespace parascope::bench
