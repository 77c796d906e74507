#include "device/cuda_check.h"
#include "device/sync_ops.h"
#include "parascope/probe.cuh"

namespace parascope::bench {

namespace {

__global__ void barrier_kernel(const __grid_constant__ SyncView v, ProbeBufferHeader* probe, uint32_t tag) {
  const ProbeSpan span;
  const uint32_t e = sync_epoch_begin(v);
  block_barrier(v, 0, e);
  sync_epoch_end(v, e);
  if (threadIdx.x == 0) span.end(probe, ProbeRole::kWait, tag);
}

__global__ void signal_kernel(const __grid_constant__ SyncView v, int slot, int dst) { block_signal(v, slot, dst); }

__global__ void wait_kernel(const __grid_constant__ SyncView v, int slot, int src, uint32_t per_op, ProbeBufferHeader* probe, uint32_t tag) {
  if (threadIdx.x != 0) return;
  const ProbeSpan span;
  const uint32_t w = v.self->waited[slot][src] + 1;
  sync_wait_geq(&v.self->counters[slot][src], w * per_op, v, slot);
  v.self->waited[slot][src] = w;
  span.end(probe, ProbeRole::kWait, tag);
}

}  // namespace

void launch_barrier(const SyncView& v, cudaStream_t s, ProbeBufferHeader* probe, uint32_t tag) {
  barrier_kernel<<<1, 32, 0, s>>>(v, probe, tag);
  PS_LAUNCH();
}

void launch_signal(const SyncView& v, cudaStream_t s, int slot, int dst) {
  signal_kernel<<<1, 32, 0, s>>>(v, slot, dst);
  PS_LAUNCH();
}

void launch_wait(const SyncView& v, cudaStream_t s, int slot, int src, uint32_t per_op, ProbeBufferHeader* probe,
                 uint32_t tag) {
  wait_kernel<<<1, 32, 0, s>>>(v, slot, src, per_op, probe, tag);
  PS_LAUNCH();
}

void preload_sync_kernels() {
  cudaFuncAttributes a;
  PS_CUDA(cudaFuncGetAttributes(&a, barrier_kernel));
  PS_CUDA(cudaFuncGetAttributes(&a, signal_kernel));
  PS_CUDA(cudaFuncGetAttributes(&a, wait_kernel));
}

}  // namespace parascope::bench
