// The GPUs one benchmark process drives: devices 0..n-1 of this host with peer access enabled
// both ways, four streams per GPU (main + three helpers for copy pipelines and signals), a SyncArea per GPU,
// symmetric buffers (one allocation per GPU whose pointers every GPU can use), NCCL communicators
// (ncclCommInitAll, created on first use with NCCL_NVLS_ENABLE=0: no multicast objects, ever)
// and an L2-flush buffer. Rank r is device r.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <string>
#include <vector>

#include "device/sync.cuh"

namespace parascope::bench {

// One allocation per rank; ptr[r] lives on device r and is valid on every device (UVA + peer access).
struct SymBuffer {
  std::vector<void*> ptr;
  size_t bytes = 0;
  template <class T = void>
  T* at(int r) const { return static_cast<T*>(ptr[static_cast<size_t>(r)]); }
};

class GpuContext {
 public:
  // Usable GPUs on this host (0 when the driver or the devices are missing).
  static int available_gpus();
  // Throws CudaError when fewer than n GPUs exist or two of them cannot access each other.
  explicit GpuContext(int n);
  ~GpuContext();
  GpuContext(const GpuContext&) = delete;
  GpuContext& operator=(const GpuContext&) = delete;

  int n() const { return n_; }
  void set(int r) const;  // cudaSetDevice(r)
  cudaStream_t stream(int r) const { return streams_[static_cast<size_t>(r)][0]; }
  cudaStream_t aux(int r, int k) const { return streams_[static_cast<size_t>(r)][1 + k]; }
  const cudaDeviceProp& prop(int r) const { return props_[static_cast<size_t>(r)]; }
  int sms(int r = 0) const { return props_[static_cast<size_t>(r)].multiProcessorCount; }
  std::string describe() const;  // "2 x NVIDIA H200 (132 SMs, 141 GiB), peer access all pairs"

  SymBuffer alloc(size_t bytes);  // freed with the context
  SyncView sync_view(int r, int channel) const;
  // Zeroes every SyncArea (flags, epochs, counters, error words); synchronises all GPUs first.
  void reset_sync();
  // Error word of each rank's SyncArea (0 = no timed-out wait); synchronises first.
  std::vector<uint32_t> sync_errors();

  void sync_all() const;
  // True when every device still answers (no sticky error such as an illegal address).
  bool healthy() const;
  // Enqueues an L2 flush (a memset over 2 × L2) on every rank's main stream.
  void enqueue_l2_flush();

  ncclComm_t nccl(int r);  // all communicators are created together on first use

  // Per-device event pool for fork/join inside ops (no timing, reused in stream order).
  static constexpr int kEventPool = 128;
  cudaEvent_t event(int r, int i);

 private:
  int n_ = 0;
  std::vector<cudaDeviceProp> props_;
  std::vector<std::vector<cudaStream_t>> streams_;
  std::vector<SyncArea*> sync_;
  std::vector<void*> allocations_;  // every cudaMalloc, with its device in alloc_dev_
  std::vector<int> alloc_dev_;
  std::vector<void*> flush_;
  size_t flush_bytes_ = 0;
  std::vector<ncclComm_t> comms_;
  std::vector<std::vector<cudaEvent_t>> events_;
};

}  // namespace parascope::bench
