#include "device/check_kernels.h"

#include <atomic>
#include <random>
#include <vector>

#include "device/cuda_check.h"

namespace parascope::bench {

namespace {

__global__ void fill_kernel(void* buf, DType t, uint64_t seed, uint32_t stream_id, uint64_t count) {
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t i = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x; i < count; i += stride) {
    const float v = raw_value(seed, stream_id, i);
    if (t == DType::kF32) static_cast<float*>(buf)[i] = v;
    else static_cast<uint16_t*>(buf)[i] = bf16_bits_from_float(v);
  }
}

__device__ void atomic_max_nonneg(double* addr, double v) {
  // non-negative doubles order like their bit patterns
  atomicMax(reinterpret_cast<unsigned long long*>(addr), static_cast<unsigned long long>(__double_as_longlong(v)));
}

__global__ void verify_kernel(const void* out, CheckSpec spec, ErrorStats* acc) {
  ErrorStats s;
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t i = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x; i < spec.count; i += stride) {
    const double o = spec.dtype == DType::kF32 ? static_cast<double>(static_cast<const float*>(out)[i])
                                               : static_cast<double>(bf16_bits_to_float(static_cast<const uint16_t*>(out)[i]));
    accumulate(s, spec.dtype, o, expected_exact(spec.kind, spec.dtype, spec.seed, spec.rank, spec.nranks, spec.c, spec.aux, i));
  }
  // warp reduction, then one atomic per warp
  for (int off = 16; off > 0; off >>= 1) {
    s.sum_sq_err += __shfl_down_sync(0xffffffffu, s.sum_sq_err, off);
    s.sum_sq_ref += __shfl_down_sync(0xffffffffu, s.sum_sq_ref, off);
    s.max_abs_err = fmax(s.max_abs_err, __shfl_down_sync(0xffffffffu, s.max_abs_err, off));
    s.elements += __shfl_down_sync(0xffffffffu, s.elements, off);
    s.nonfinite += __shfl_down_sync(0xffffffffu, s.nonfinite, off);
    s.mismatches += __shfl_down_sync(0xffffffffu, s.mismatches, off);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(&acc->sum_sq_err, s.sum_sq_err);
    atomicAdd(&acc->sum_sq_ref, s.sum_sq_ref);
    atomic_max_nonneg(&acc->max_abs_err, s.max_abs_err);
    atomicAdd(&acc->elements, s.elements);
    atomicAdd(&acc->nonfinite, s.nonfinite);
    atomicAdd(&acc->mismatches, s.mismatches);
  }
}

}  // namespace

uint64_t fresh_seed() {
  static std::atomic<uint64_t> counter{0};
  static const uint64_t base = [] {
    std::random_device rd;
    return (static_cast<uint64_t>(rd()) << 32) ^ rd();
  }();
  return splitmix64(base + counter.fetch_add(1));
}

void enqueue_fill(void* buf, DType t, uint64_t seed, uint32_t stream_id, uint64_t count, cudaStream_t s) {
  fill_kernel<<<528, 256, 0, s>>>(buf, t, seed, stream_id, count);
  PS_LAUNCH();
}

void enqueue_poison(void* buf, uint64_t bytes, cudaStream_t s) { PS_CUDA(cudaMemsetAsync(buf, 0xFF, bytes, s)); }

CheckVerdict verify_output(const void* out, const CheckSpec& spec, cudaStream_t s) {
  ErrorStats* acc = nullptr;
  PS_CUDA(cudaMallocAsync(reinterpret_cast<void**>(&acc), sizeof(ErrorStats), s));
  PS_CUDA(cudaMemsetAsync(acc, 0, sizeof(ErrorStats), s));
  verify_kernel<<<528, 256, 0, s>>>(out, spec, acc);
  PS_LAUNCH();
  ErrorStats dev;
  PS_CUDA(cudaMemcpyAsync(&dev, acc, sizeof dev, cudaMemcpyDeviceToHost, s));
  PS_CUDA(cudaFreeAsync(acc, s));
  PS_CUDA(cudaStreamSynchronize(s));
  CheckVerdict v = judge(dev, spec.dtype, spec.kind, spec.count);
  v.problem = v.problem.empty() ? "" : "device check: " + v.problem;
  const uint64_t bytes = spec.count * static_cast<uint64_t>(dtype_size(spec.dtype));
  if (bytes <= kHostCheckMaxBytes) {
    std::vector<unsigned char> host(bytes);
    PS_CUDA(cudaMemcpyAsync(host.data(), out, bytes, cudaMemcpyDeviceToHost, s));
    PS_CUDA(cudaStreamSynchronize(s));
    const ErrorStats h = check_output_host(spec.kind, spec.dtype, spec.seed, spec.rank, spec.nranks, spec.c, spec.aux,
                                           host.data(), spec.count);
    const CheckVerdict hv = judge(h, spec.dtype, spec.kind, spec.count);
    if (!hv.ok && v.ok) {
      v = hv;
      v.problem = "host check: " + hv.problem;
    }
    if (h.mismatches != dev.mismatches && v.ok) {
      v.ok = false;
      v.problem = "host and device checks disagree (" + std::to_string(h.mismatches) + " vs " +
                  std::to_string(dev.mismatches) + " mismatches)";
    }
  }
  return v;
}

void preload_check_kernels() {
  cudaFuncAttributes a;
  PS_CUDA(cudaFuncGetAttributes(&a, fill_kernel));
  PS_CUDA(cudaFuncGetAttributes(&a, verify_kernel));
}

}  // namespace parascope::bench
