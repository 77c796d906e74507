#include "p2p/p2p.h"

#include "device/cuda_check.h"
#include "device/tma_pipe.cuh"
#include "parascope/probe.cuh"

namespace parascope::bench {

namespace {

constexpr int kUnroll = 4;

__global__ void __launch_bounds__(kLdstThreads) ldst_copy_kernel(int4* __restrict__ dst, const int4* __restrict__ src,
                                                                 uint64_t nvec, ProbeBufferHeader* probe, uint32_t tag) {
  const ProbeSpan span;
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  uint64_t i = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
  for (; i + (kUnroll - 1) * stride < nvec; i += kUnroll * stride) {
    int4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = ld_cg(src + i + u * stride);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) dst[i + u * stride] = v[u];
  }
  for (; i < nvec; i += stride) dst[i] = ld_cg(src + i);
  __syncthreads();
  if (threadIdx.x == 0) span.end(probe, ProbeRole::kCommunicate, tag);
}

__global__ void __launch_bounds__(kTmaThreads) tma_copy_kernel(char* dst, const char* src, uint64_t bytes,
                                                               ProbeBufferHeader* probe, uint32_t tag) {
  extern __shared__ __align__(128) unsigned char smem[];
  __shared__ __align__(8) uint64_t bar[kTmaStages];
  if (threadIdx.x != 0) return;
  const ProbeSpan span;
  TmaPipe p{smem, bar, kTmaTile, 0};
  tma_pipe_init<kTmaStages>(p);
  const uint64_t tiles = (bytes + kTmaTile - 1) / kTmaTile;
  const uint64_t count = blockIdx.x < tiles ? (tiles - 1 - blockIdx.x) / gridDim.x + 1 : 0;
  tma_pipe_run<kTmaStages, kTmaAhead>(p, count, [&](uint64_t i) {
    const uint64_t off = (blockIdx.x + i * gridDim.x) * static_cast<uint64_t>(kTmaTile);
    TmaJob j;
    j.src = src + off;
    j.dst[0] = dst + off;
    j.ndst = 1;
    j.bytes = static_cast<uint32_t>(bytes - off < kTmaTile ? bytes - off : kTmaTile);
    return j;
  });
  tma_drain_stores();
  span.end(probe, ProbeRole::kCommunicate, tag);
}

}  // namespace

const char* p2p_mech_name(P2PMech m) {
  switch (m) {
    case P2PMech::kCe: return "ce";
    case P2PMech::kTma: return "tma";
    case P2PMech::kLdstPush: return "ldst_push";
    case P2PMech::kLdstPull: return "ldst_pull";
    case P2PMech::kTmaPull: return "tma_pull";
  }
  return "?";
}

void launch_ldst_copy(void* dst, const void* src, uint64_t bytes, int blocks, cudaStream_t s, ProbeBufferHeader* probe,
                      uint32_t tag, int threads) {
  if (threads < 32 || threads > kLdstThreads || threads % 32) throw CudaError("LD/ST copy threads must be 32..1024, a multiple of 32");
  ldst_copy_kernel<<<blocks, threads, kOneBlockPerSmSmem, s>>>(static_cast<int4*>(dst), static_cast<const int4*>(src),
                                                                     bytes / 16, probe, tag);
  PS_LAUNCH();
}

void launch_tma_copy(void* dst, const void* src, uint64_t bytes, int blocks, cudaStream_t s, ProbeBufferHeader* probe,
                     uint32_t tag) {
  tma_copy_kernel<<<blocks, kTmaThreads, kTmaStages * kTmaTile, s>>>(static_cast<char*>(dst), static_cast<const char*>(src),
                                                                      bytes, probe, tag);
  PS_LAUNCH();
}

void preload_p2p_kernels() {
  PS_CUDA(cudaFuncSetAttribute(ldst_copy_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kOneBlockPerSmSmem));
  PS_CUDA(cudaFuncSetAttribute(tma_copy_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kTmaStages * kTmaTile));
}

P2POp::P2POp(GpuContext& ctx, const SymBuffer& src, const SymBuffer& dst, P2PConfig cfg, int a, int b)
    : ctx_(ctx), src_(src), dst_(dst), cfg_(cfg), a_(a), b_(b) {}

std::string P2POp::name() const {
  return std::string("p2p_") + p2p_mech_name(cfg_.mech) + (cfg_.bidirectional ? "_bi" : "_uni");
}

std::vector<int> P2POp::devices() const {
  if (cfg_.bidirectional) return {a_, b_};
  return {cfg_.mech == P2PMech::kLdstPull || cfg_.mech == P2PMech::kTmaPull ? b_ : a_};
}

int P2POp::threads() const {
  switch (cfg_.mech) {
    case P2PMech::kCe: return 0;
    case P2PMech::kTma:
    case P2PMech::kTmaPull: return kTmaThreads;
    default: return cfg_.threads > 0 ? cfg_.threads : kLdstThreads;
  }
}

void P2POp::one_way(int from, int to, ProbeBufferHeader* probe) {
  void* dst = dst_.at(to);
  const void* src = src_.at(from);
  switch (cfg_.mech) {
    case P2PMech::kCe:
      ctx_.set(from);
      PS_CUDA(cudaMemcpyPeerAsync(dst, to, src, from, cfg_.bytes, ctx_.stream(from)));
      break;
    case P2PMech::kLdstPush:
      ctx_.set(from);
      launch_ldst_copy(dst, src, cfg_.bytes, cfg_.sms, ctx_.stream(from), probe, 0, threads());
      break;
    case P2PMech::kLdstPull:
      ctx_.set(to);
      launch_ldst_copy(dst, src, cfg_.bytes, cfg_.sms, ctx_.stream(to), probe, 0, threads());
      break;
    case P2PMech::kTma:
      ctx_.set(from);
      launch_tma_copy(dst, src, cfg_.bytes, cfg_.sms, ctx_.stream(from), probe, 0);
      break;
    case P2PMech::kTmaPull:
      ctx_.set(to);
      launch_tma_copy(dst, src, cfg_.bytes, cfg_.sms, ctx_.stream(to), probe, 0);
      break;
  }
}

void P2POp::enqueue() {
  const bool pull = cfg_.mech == P2PMech::kLdstPull || cfg_.mech == P2PMech::kTmaPull;
  one_way(a_, b_, pull ? probe_b_ : probe_a_);
  if (cfg_.bidirectional) one_way(b_, a_, pull ? probe_a_ : probe_b_);
}

}  // namespace parascope::bench
