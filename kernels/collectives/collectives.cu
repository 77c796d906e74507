// Collective kernels. Data ownership inside a launch never depends on the size: 16-byte vector v
// belongs to block (v / threads) mod grid, TMA tile t to block t mod grid, in every phase and on
// every rank. So block b's per-block barrier with block b of the other ranks orders exactly the
// data those blocks exchanged, and no grid-wide barrier is needed (host/partition.h).
#include "collectives/collectives.h"

#include <algorithm>

#include "device/cuda_check.h"
#include "device/tma_pipe.cuh"
#include "p2p/p2p.h"
#include "parascope/probe.cuh"

namespace parascope::bench {

namespace {

constexpr int kUnroll = 2;
constexpr int kPullUnroll = 4;  // reduce-scatter pull: 4 vectors of every rank in flight per thread
constexpr int kTmaStages1 = 8;  // two-shot phase 1: 8 stages of kCollTile, 4 loads ahead
constexpr int kTmaAhead1 = 4;

__device__ __forceinline__ const int4* cvec(const void* p) { return static_cast<const int4*>(p); }
__device__ __forceinline__ int4* vec(void* p) { return static_cast<int4*>(p); }

// all-reduce, one-shot push: peers' inputs land in my double-buffered scratch
template <typename T>
__global__ void __launch_bounds__(kCollThreads, 1) ar_oneshot_push_kernel(const __grid_constant__ SyncView sv, const __grid_constant__ CollBuffers b, uint64_t nvec,
                                                                       ProbeBufferHeader* probe) {
  const ProbeSpan span;
  const int n = sv.nranks, me = sv.rank;
  const uint32_t e = sync_epoch_begin(sv);
  const uint64_t half = e & 1u;  // launch k and k+1 use different halves; k+2 reuses k's only after
                                 // every rank passed launch k+1's barrier, i.e. finished reading k
  constexpr uint64_t slot_vecs = kOneShotPushMaxBytes / 16;
  const int4* in = cvec(b.in[me]);
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  const uint64_t first = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
  for (uint64_t v = first; v < nvec; v += stride) {
    const int4 x = in[v];
    for (int p = 0; p < n; ++p)
      if (p != me) vec(b.small[p])[(half * n + me) * slot_vecs + v] = x;
  }
  if (threadIdx.x == 0) span.end(probe, ProbeRole::kCommunicate, 0);
  const ProbeSpan wait;
  block_barrier(sv, 0, e);
  if (threadIdx.x == 0) wait.end(probe, ProbeRole::kWait, 0);
  const ProbeSpan reduce;
  const int4* mine = cvec(b.small[me]);
  int4* out = vec(b.out[me]);
  for (uint64_t v = first; v < nvec; v += stride) {
    float acc[8];
    vec_zero(acc);
    for (int p = 0; p < n; ++p) vec_add<T>(acc, p == me ? in[v] : ld_cg(mine + (half * n + p) * slot_vecs + v));
    out[v] = vec_pack<T>(acc);
  }
  sync_epoch_end(sv, e);
  if (threadIdx.x == 0) reduce.end(probe, ProbeRole::kCompute, 0);
}

// all-reduce, LL one-shot: thread v packs its 16-byte input vector into two LL lines (four
// 8-byte words, each {data, epoch}) and stores them into every peer's scratch; then it polls the
// peers' lines for the same vector in its own scratch until every flag equals its epoch, reduces
// in rank order and stores the result. No barrier and no fence: a word's flag and data arrive
// together (host/ll_protocol.h); the epoch makes stale lines unmistakable, so nothing is reset;
// the two scratch halves alternate by epoch parity. The only block-wide step is the epoch update.
__device__ __forceinline__ bool ll_wait(const char* src, uint32_t e, uint64_t (&w)[4], const SyncView& v) {
  uint64_t start = 0;
  for (uint32_t spins = 0;; ++spins) {
    ld_volatile_v2u64(src, w[0], w[1]);
    ld_volatile_v2u64(src + 16, w[2], w[3]);
    if (ll_ready(w[0], e) && ll_ready(w[1], e) && ll_ready(w[2], e) && ll_ready(w[3], e)) return true;
    if ((spins & 255u) == 255u && sync_give_up(v, start, 0)) return false;
  }
}

template <typename T>
__global__ void __launch_bounds__(kLlThreads) ar_oneshot_ll_kernel(const __grid_constant__ SyncView sv, const __grid_constant__ CollBuffers b,
                                                                   uint64_t nvec, ProbeBufferHeader* probe) {
  pdl_wait();               // (PDL launch) the previous kernel finished: its output, our epoch
  pdl_launch_dependents();  // let the next kernel of the stream be scheduled; it waits in pdl_wait
  const ProbeSpan span;
  const int n = sv.nranks, me = sv.rank;
  const uint32_t e = __ldcg(&sv.self->epoch[blockIdx.x]) + 1;
  const uint64_t v = blockIdx.x * static_cast<uint64_t>(kLlThreads) + threadIdx.x;
  const bool active = v < nvec;
  const uint32_t half = ll_half(e);
  int4 x = make_int4(0, 0, 0, 0);
  if (active) {
    x = cvec(b.in[me])[v];
    const uint64_t w0 = ll_pack(static_cast<uint32_t>(x.x), e), w1 = ll_pack(static_cast<uint32_t>(x.y), e);
    const uint64_t w2 = ll_pack(static_cast<uint32_t>(x.z), e), w3 = ll_pack(static_cast<uint32_t>(x.w), e);
    for (int k = 1; k < n; ++k) {
      const int p = (me + k) % n;
      char* dst = static_cast<char*>(b.ll[p]) + ll_line_offset(half, me, n, kLlLinesPerVec * v);
      st_volatile_v2u64(dst, w0, w1);
      st_volatile_v2u64(dst + kLlLineBytes, w2, w3);
    }
  }
  if (threadIdx.x == 0) span.end(probe, ProbeRole::kCommunicate, 0);
  const ProbeSpan wait;
  if (active) {
    float acc[8];
    vec_zero(acc);
    for (int p = 0; p < n; ++p) {
      if (p == me) {
        vec_add<T>(acc, x);
        continue;
      }
      uint64_t w[4];
      ll_wait(static_cast<const char*>(b.ll[me]) + ll_line_offset(half, p, n, kLlLinesPerVec * v), e, w, sv);
      const int4 y = make_int4(static_cast<int>(ll_data(w[0])), static_cast<int>(ll_data(w[1])),
                               static_cast<int>(ll_data(w[2])), static_cast<int>(ll_data(w[3])));
      vec_add<T>(acc, y);
    }
    vec(b.out[me])[v] = vec_pack<T>(acc);
  }
  __syncthreads();  // every thread has read this launch's epoch before it moves on
  if (threadIdx.x == 0) {
    sv.self->epoch[blockIdx.x] = e;
    wait.end(probe, ProbeRole::kWait, 1);
  }
}

// reduce-scatter, pull: my chunk of every rank's input, read where it lies (peers over NVLink,
// L2-only loads), reduced in rank order in one pass: no scratch, no second local pass.
template <typename T>
__global__ void __launch_bounds__(kCollThreads, 1) rs_pull_kernel(const __grid_constant__ SyncView sv, const __grid_constant__ CollBuffers b, uint64_t cv,
                                                               ProbeBufferHeader* probe) {
  const int n = sv.nranks, me = sv.rank;
  const uint32_t e = sync_epoch_begin(sv);
  const ProbeSpan wait0;
  block_barrier(sv, 0, e);  // every input is ready (the peers' kernels are running)
  if (threadIdx.x == 0) wait0.end(probe, ProbeRole::kWait, 0);
  const ProbeSpan work;
  const uint64_t base = static_cast<uint64_t>(me) * cv;
  int4* out = vec(b.out[me]);
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  uint64_t v = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
  for (; v + (kPullUnroll - 1) * stride < cv; v += kPullUnroll * stride) {
    int4 x[2][kPullUnroll];
    float acc[kPullUnroll][8];
#pragma unroll
    for (int u = 0; u < kPullUnroll; ++u) vec_zero(acc[u]);
    // two ranks' loads in flight at a time (all of them for N = 2), then accumulate in rank order
    for (int p0 = 0; p0 < n; p0 += 2) {
      const int np = p0 + 1 < n ? 2 : 1;
#pragma unroll
      for (int q = 0; q < 2; ++q)
        if (q < np) {
#pragma unroll
          for (int u = 0; u < kPullUnroll; ++u) x[q][u] = ld_cg(cvec(b.in[p0 + q]) + base + v + u * stride);
        }
#pragma unroll
      for (int q = 0; q < 2; ++q)
        if (q < np) {
#pragma unroll
          for (int u = 0; u < kPullUnroll; ++u) vec_add<T>(acc[u], x[q][u]);
        }
    }
#pragma unroll
    for (int u = 0; u < kPullUnroll; ++u) out[v + u * stride] = vec_pack<T>(acc[u]);
  }
  for (; v < cv; v += stride) {
    float acc[8];
    vec_zero(acc);
    for (int p = 0; p < n; ++p) vec_add<T>(acc, ld_cg(cvec(b.in[p]) + base + v));
    out[v] = vec_pack<T>(acc);
  }
  if (threadIdx.x == 0) work.end(probe, ProbeRole::kCommunicate, 1);
  const ProbeSpan wait1;
  block_barrier(sv, 1, e);  // nobody reads my input any more
  sync_epoch_end(sv, e);
  if (threadIdx.x == 0) wait1.end(probe, ProbeRole::kWait, 1);
}

// all-reduce, one-shot pull: read every rank's input, reduce locally
template <typename T>
__global__ void __launch_bounds__(kCollThreads, 1) ar_oneshot_pull_kernel(const __grid_constant__ SyncView sv, const __grid_constant__ CollBuffers b, uint64_t nvec,
                                                                       ProbeBufferHeader* probe) {
  const int n = sv.nranks, me = sv.rank;
  const uint32_t e = sync_epoch_begin(sv);
  const ProbeSpan wait0;
  block_barrier(sv, 0, e);  // every input is ready (the peers' kernels are running)
  if (threadIdx.x == 0) wait0.end(probe, ProbeRole::kWait, 0);
  const ProbeSpan work;
  int4* out = vec(b.out[me]);
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  uint64_t v = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
  for (; v + (kUnroll - 1) * stride < nvec; v += kUnroll * stride) {
    float acc[kUnroll][8];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) vec_zero(acc[u]);
    for (int p = 0; p < n; ++p) {
      int4 x[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) x[u] = ld_cg(cvec(b.in[p]) + v + u * stride);
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) vec_add<T>(acc[u], x[u]);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) out[v + u * stride] = vec_pack<T>(acc[u]);
  }
  for (; v < nvec; v += stride) {
    float acc[8];
    vec_zero(acc);
    for (int p = 0; p < n; ++p) vec_add<T>(acc, ld_cg(cvec(b.in[p]) + v));
    out[v] = vec_pack<T>(acc);
  }
  if (threadIdx.x == 0) work.end(probe, ProbeRole::kCommunicate, 1);
  const ProbeSpan wait1;
  block_barrier(sv, 1, e);  // nobody reads my input any more
  sync_epoch_end(sv, e);
  if (threadIdx.x == 0) wait1.end(probe, ProbeRole::kWait, 1);
}

// two-shot with 16-byte LD/ST: push chunk p to rank p's scratch, reduce own chunk, and for an
// all-reduce push the result to every rank's output. `cv` = vectors per rank chunk.
template <typename T, bool kAllReduce>
__global__ void __launch_bounds__(kCollThreads, 1) twoshot_ldst_kernel(const __grid_constant__ SyncView sv, const __grid_constant__ CollBuffers b, uint64_t cv,
                                                                    ProbeBufferHeader* probe) {
  const int n = sv.nranks, me = sv.rank;
  const uint32_t e = sync_epoch_begin(sv);
  const int4* in = cvec(b.in[me]);
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  const uint64_t first = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
  const ProbeSpan push;
  for (int k = 1; k < n; ++k) {
    const int p = (me + k) % n;
    int4* dst = vec(b.scratch[p]) + static_cast<uint64_t>(me) * cv;
    const int4* src = in + static_cast<uint64_t>(p) * cv;
    uint64_t v = first;
    for (; v + (kUnroll - 1) * stride < cv; v += kUnroll * stride) {
      int4 x[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) x[u] = src[v + u * stride];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) dst[v + u * stride] = x[u];
    }
    for (; v < cv; v += stride) dst[v] = src[v];
  }
  if (threadIdx.x == 0) push.end(probe, ProbeRole::kCommunicate, 0);
  const ProbeSpan wait0;
  block_barrier(sv, 0, e);
  if (threadIdx.x == 0) wait0.end(probe, ProbeRole::kWait, 0);
  const ProbeSpan reduce;
  const int4* scratch = cvec(b.scratch[me]);
  const int4* own = in + static_cast<uint64_t>(me) * cv;
  for (uint64_t v = first; v < cv; v += stride) {
    float acc[8];
    vec_zero(acc);
    for (int p = 0; p < n; ++p) vec_add<T>(acc, p == me ? own[v] : ld_cg(scratch + static_cast<uint64_t>(p) * cv + v));
    const int4 r = vec_pack<T>(acc);
    if constexpr (kAllReduce) {
      for (int k = 0; k < n; ++k) {
        const int p = (me + k) % n;
        vec(b.out[p])[static_cast<uint64_t>(me) * cv + v] = r;
      }
    } else {
      vec(b.out[me])[v] = r;
    }
  }
  if (threadIdx.x == 0) reduce.end(probe, kAllReduce ? ProbeRole::kCommunicate : ProbeRole::kCompute, 1);
  const ProbeSpan wait1;
  block_barrier(sv, 1, e);
  sync_epoch_end(sv, e);
  if (threadIdx.x == 0) wait1.end(probe, ProbeRole::kWait, 1);
}

// two-shot with bulk copies: phase 1 is a TMA pipeline (thread 0) pushing my tiles of every
// peer's chunk into its scratch; phase 2 bulk-loads the N tiles of my chunk, reduces them in
// shared memory (all threads) and bulk-stores the result (all-reduce: to every rank). `cb` =
// bytes per rank chunk.
template <typename T, bool kAllReduce>
__global__ void __launch_bounds__(kCollTmaThreads, 1) twoshot_tma_kernel(const __grid_constant__ SyncView sv, const __grid_constant__ CollBuffers b, uint64_t cb,
                                                                      ProbeBufferHeader* probe) {
  extern __shared__ __align__(128) unsigned char smem[];
  __shared__ __align__(8) uint64_t bar1[kTmaStages1];
  __shared__ __align__(8) uint64_t bar2[2];
  const int n = sv.nranks, me = sv.rank;
  const uint32_t e = sync_epoch_begin(sv);
  const uint64_t tiles = (cb + kCollTile - 1) / kCollTile;
  const uint64_t mine = blockIdx.x < tiles ? (tiles - 1 - blockIdx.x) / gridDim.x + 1 : 0;
  auto tile_off = [&](uint64_t i) { return (blockIdx.x + i * gridDim.x) * static_cast<uint64_t>(kCollTile); };
  auto tile_bytes = [&](uint64_t off) { return static_cast<uint32_t>(cb - off < kCollTile ? cb - off : kCollTile); };
  const char* in = static_cast<const char*>(b.in[me]);

  const ProbeSpan push;
  if (threadIdx.x == 0) {
    TmaPipe pipe{smem, bar1, kCollTile, 0};
    tma_pipe_init<kTmaStages1>(pipe);
    for (int s = 0; s < 2; ++s) mbar_init(&bar2[s], 1);
    fence_mbar_init();
    tma_pipe_run<kTmaStages1, kTmaAhead1>(pipe, mine * static_cast<uint64_t>(n - 1), [&](uint64_t i) {
      const int p = (me + 1 + static_cast<int>(i / mine)) % n;
      const uint64_t off = tile_off(i % mine);
      TmaJob j;
      j.src = in + static_cast<uint64_t>(p) * cb + off;
      j.dst[0] = static_cast<char*>(b.scratch[p]) + static_cast<uint64_t>(me) * cb + off;
      j.ndst = 1;
      j.bytes = tile_bytes(off);
      return j;
    });
    tma_drain_stores();
  }
  if (threadIdx.x == 0) push.end(probe, ProbeRole::kCommunicate, 0);
  const ProbeSpan wait0;
  block_barrier(sv, 0, e);
  if (threadIdx.x == 0) {
    wait0.end(probe, ProbeRole::kWait, 0);
    fence_proxy_async_global();  // the peers' (async-proxy) writes are read by bulk loads next
  }
  const ProbeSpan reduce;
  const char* scratch = static_cast<const char*>(b.scratch[me]);
  const uint64_t stage_bytes = static_cast<uint64_t>(n + 1) * kCollTile;
  auto stage_in = [&](int s, int p) { return smem + s * stage_bytes + static_cast<uint64_t>(p) * kCollTile; };
  auto stage_out = [&](int s) { return smem + s * stage_bytes + static_cast<uint64_t>(n) * kCollTile; };
  auto issue = [&](uint64_t i) {
    const int s = static_cast<int>(i & 1);
    const uint64_t off = tile_off(i);
    const uint32_t bytes = tile_bytes(off);
    mbar_arrive_expect_tx(&bar2[s], bytes * static_cast<uint32_t>(n));
    for (int p = 0; p < n; ++p) {
      const char* src = p == me ? in + static_cast<uint64_t>(me) * cb + off : scratch + static_cast<uint64_t>(p) * cb + off;
      bulk_g2s(stage_in(s, p), src, bytes, &bar2[s]);
    }
  };
  if (threadIdx.x == 0 && mine > 0) issue(0);
  uint32_t phase = 0;
  for (uint64_t i = 0; i < mine; ++i) {
    const int s = static_cast<int>(i & 1);
    if (threadIdx.x == 0 && i + 1 < mine) {
      bulk_wait_read<0>();  // the store that last read stage s^1 (iteration i-1) is done reading
      issue(i + 1);
    }
    mbar_wait(&bar2[s], (phase >> s) & 1u);
    phase ^= 1u << s;
    const uint64_t off = tile_off(i);
    const uint32_t bytes = tile_bytes(off);
    const int nv = static_cast<int>(bytes / 16);
    for (int w = threadIdx.x; w < nv; w += blockDim.x) {
      float acc[8];
      vec_zero(acc);
      for (int p = 0; p < n; ++p) vec_add<T>(acc, reinterpret_cast<const int4*>(stage_in(s, p))[w]);
      reinterpret_cast<int4*>(stage_out(s))[w] = vec_pack<T>(acc);
    }
    fence_proxy_async_shared();  // generic-proxy smem writes (and reads) before the bulk copies
    __syncthreads();
    if (threadIdx.x == 0) {
      if constexpr (kAllReduce) {
        for (int k = 0; k < n; ++k) {
          const int p = (me + k) % n;
          bulk_s2g(static_cast<char*>(b.out[p]) + static_cast<uint64_t>(me) * cb + off, stage_out(s), bytes);
        }
      } else {
        bulk_s2g(static_cast<char*>(b.out[me]) + off, stage_out(s), bytes);
      }
      bulk_commit();
    }
  }
  if (threadIdx.x == 0) {
    tma_drain_stores();
    reduce.end(probe, kAllReduce ? ProbeRole::kCommunicate : ProbeRole::kCompute, 1);
  }
  const ProbeSpan wait1;
  block_barrier(sv, 1, e);
  sync_epoch_end(sv, e);
  if (threadIdx.x == 0) wait1.end(probe, ProbeRole::kWait, 1);
}

// all-gather, LD/ST push: my input to slot `me` of every rank's output. `cv` = vectors per rank.
__global__ void __launch_bounds__(kCollThreads, 1) ag_ldst_kernel(const __grid_constant__ SyncView sv, const __grid_constant__ CollBuffers b, uint64_t cv,
                                                               ProbeBufferHeader* probe) {
  const int n = sv.nranks, me = sv.rank;
  const uint32_t e = sync_epoch_begin(sv);
  const ProbeSpan wait0;
  block_barrier(sv, 0, e);  // every output is free (the peers' earlier work is done)
  if (threadIdx.x == 0) wait0.end(probe, ProbeRole::kWait, 0);
  const ProbeSpan push;
  const int4* in = cvec(b.in[me]);
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  uint64_t v = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
  for (; v + (kUnroll - 1) * stride < cv; v += kUnroll * stride) {
    int4 x[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) x[u] = in[v + u * stride];
    for (int k = 0; k < n; ++k) {
      int4* dst = vec(b.out[(me + k) % n]) + static_cast<uint64_t>(me) * cv;
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) dst[v + u * stride] = x[u];
    }
  }
  for (; v < cv; v += stride) {
    const int4 x = in[v];
    for (int k = 0; k < n; ++k) vec(b.out[(me + k) % n])[static_cast<uint64_t>(me) * cv + v] = x;
  }
  if (threadIdx.x == 0) push.end(probe, ProbeRole::kCommunicate, 1);
  const ProbeSpan wait1;
  block_barrier(sv, 1, e);  // everything pushed into my output has arrived
  sync_epoch_end(sv, e);
  if (threadIdx.x == 0) wait1.end(probe, ProbeRole::kWait, 1);
}

// all-gather, TMA push: one bulk load per tile, N bulk stores. `cb` = bytes per rank.
__global__ void __launch_bounds__(kTmaThreads) ag_tma_kernel(const __grid_constant__ SyncView sv, const __grid_constant__ CollBuffers b, uint64_t cb,
                                                             ProbeBufferHeader* probe) {
  extern __shared__ __align__(128) unsigned char smem[];
  __shared__ __align__(8) uint64_t bar[kTmaStages];
  const int n = sv.nranks, me = sv.rank;
  const uint32_t e = sync_epoch_begin(sv);
  const ProbeSpan wait0;
  block_barrier(sv, 0, e);
  if (threadIdx.x == 0) {
    wait0.end(probe, ProbeRole::kWait, 0);
    const ProbeSpan push;
    fence_proxy_async_global();
    TmaPipe pipe{smem, bar, kTmaTile, 0};
    tma_pipe_init<kTmaStages>(pipe);
    const uint64_t tiles = (cb + kTmaTile - 1) / kTmaTile;
    const uint64_t mine = blockIdx.x < tiles ? (tiles - 1 - blockIdx.x) / gridDim.x + 1 : 0;
    const char* in = static_cast<const char*>(b.in[me]);
    tma_pipe_run<kTmaStages, kTmaAhead>(pipe, mine, [&](uint64_t i) {
      const uint64_t off = (blockIdx.x + i * gridDim.x) * static_cast<uint64_t>(kTmaTile);
      TmaJob j;
      j.src = in + off;
      j.ndst = n;
      for (int k = 0; k < n; ++k) j.dst[k] = static_cast<char*>(b.out[(me + k) % n]) + static_cast<uint64_t>(me) * cb + off;
      j.bytes = static_cast<uint32_t>(cb - off < kTmaTile ? cb - off : kTmaTile);
      return j;
    });
    tma_drain_stores();
    push.end(probe, ProbeRole::kCommunicate, 1);
  }
  const ProbeSpan wait1;
  block_barrier(sv, 1, e);
  sync_epoch_end(sv, e);
  if (threadIdx.x == 0) wait1.end(probe, ProbeRole::kWait, 1);
}

// all-to-all, LD/ST push: my block p goes to slot `me` of rank p. `cv` = vectors per pair.
__global__ void __launch_bounds__(kCollThreads, 1) a2a_ldst_kernel(const __grid_constant__ SyncView sv, const __grid_constant__ CollBuffers b, uint64_t cv,
                                                                ProbeBufferHeader* probe) {
  const int n = sv.nranks, me = sv.rank;
  const uint32_t e = sync_epoch_begin(sv);
  const ProbeSpan wait0;
  block_barrier(sv, 0, e);
  if (threadIdx.x == 0) wait0.end(probe, ProbeRole::kWait, 0);
  const ProbeSpan push;
  const int4* in = cvec(b.in[me]);
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  const uint64_t first = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
  for (int k = 0; k < n; ++k) {
    const int p = (me + k) % n;
    const int4* src = in + static_cast<uint64_t>(p) * cv;
    int4* dst = vec(b.out[p]) + static_cast<uint64_t>(me) * cv;
    uint64_t v = first;
    for (; v + (kUnroll - 1) * stride < cv; v += kUnroll * stride) {
      int4 x[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) x[u] = src[v + u * stride];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) dst[v + u * stride] = x[u];
    }
    for (; v < cv; v += stride) dst[v] = src[v];
  }
  if (threadIdx.x == 0) push.end(probe, ProbeRole::kCommunicate, 1);
  const ProbeSpan wait1;
  block_barrier(sv, 1, e);
  sync_epoch_end(sv, e);
  if (threadIdx.x == 0) wait1.end(probe, ProbeRole::kWait, 1);
}

struct ReduceSources {
  const void* p[kMaxRanks];
};

template <typename T>
__global__ void __launch_bounds__(kCollThreads, 1) local_reduce_kernel(int4* out, const __grid_constant__ ReduceSources srcs, int nsrc, uint64_t nvec) {
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t v = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x; v < nvec; v += stride) {
    float acc[8];
    vec_zero(acc);
    for (int k = 0; k < nsrc; ++k) vec_add<T>(acc, ld_cg(cvec(srcs.p[k]) + v));
    out[v] = vec_pack<T>(acc);
  }
}

struct RemoteDsts {
  void* p[kMaxRanks];
};

// Local reduction whose result is also pushed to other GPUs (copy-engine all-reduce, second half).
template <typename T>
__global__ void __launch_bounds__(kCollThreads, 1) reduce_push_kernel(int4* out, const __grid_constant__ RemoteDsts dsts, int ndst,
                                                                   const __grid_constant__ ReduceSources srcs, int nsrc, uint64_t nvec) {
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t v = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x; v < nvec; v += stride) {
    float acc[8];
    vec_zero(acc);
    for (int k = 0; k < nsrc; ++k) vec_add<T>(acc, ld_cg(cvec(srcs.p[k]) + v));
    const int4 r = vec_pack<T>(acc);
    out[v] = r;
    for (int k = 0; k < ndst; ++k) static_cast<int4*>(dsts.p[k])[v] = r;
  }
}

int blocks_for(uint64_t units, uint64_t per_block, int max_blocks) {
  const uint64_t b = (units + per_block - 1) / per_block;
  return static_cast<int>(std::clamp<uint64_t>(b, 1, static_cast<uint64_t>(std::min(max_blocks, kSyncMaxBlocks))));
}

uint32_t twoshot_tma_smem(int n) {
  return std::max<uint32_t>(kTmaStages1 * kCollTile, 2u * static_cast<uint32_t>(n + 1) * kCollTile);
}

}  // namespace

int coll_blocks_ldst(uint64_t vecs, int max_sms) { return blocks_for(vecs, kCollThreads * kUnroll, max_sms); }
int coll_blocks_pull(uint64_t vecs, int max_sms) { return blocks_for(vecs, kCollThreads * kPullUnroll, max_sms); }
int coll_blocks_tma(uint64_t bytes, uint32_t tile, int max_sms) { return blocks_for((bytes + tile - 1) / tile, 1, max_sms); }

void launch_ar_oneshot_push(const SyncView& v, const CollBuffers& b, DType t, uint64_t bytes, cudaStream_t s,
                            ProbeBufferHeader* probe) {
  if (bytes > kOneShotPushMaxBytes) throw CudaError("oneshot_push handles at most 1 MiB");
  if (t == DType::kF32) ar_oneshot_push_kernel<float><<<kOneShotPushBlocks, kCollThreads, 0, s>>>(v, b, bytes / 16, probe);
  else ar_oneshot_push_kernel<__nv_bfloat16><<<kOneShotPushBlocks, kCollThreads, 0, s>>>(v, b, bytes / 16, probe);
  PS_LAUNCH();
}

void launch_ar_oneshot_ll(const SyncView& v, const CollBuffers& b, DType t, uint64_t bytes, bool pdl, cudaStream_t s,
                          ProbeBufferHeader* probe) {
  if (bytes > kLlMaxBytes) throw CudaError("oneshot_ll handles at most 256 KiB");
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(static_cast<unsigned>(ll_blocks(bytes)));
  cfg.blockDim = dim3(kLlThreads);
  cfg.stream = s;
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = pdl ? &attr : nullptr;
  cfg.numAttrs = pdl ? 1 : 0;
  const uint64_t nvec = bytes / 16;
  if (t == DType::kF32) PS_CUDA(cudaLaunchKernelEx(&cfg, ar_oneshot_ll_kernel<float>, v, b, nvec, probe));
  else PS_CUDA(cudaLaunchKernelEx(&cfg, ar_oneshot_ll_kernel<__nv_bfloat16>, v, b, nvec, probe));
  PS_LAUNCH();
}

void launch_rs_pull(const SyncView& v, const CollBuffers& b, DType t, uint64_t bytes, int max_sms, cudaStream_t s,
                    ProbeBufferHeader* probe) {
  const uint64_t cv = bytes / 16 / static_cast<uint64_t>(v.nranks);
  const int g = coll_blocks_pull(cv, max_sms);
  if (t == DType::kF32) rs_pull_kernel<float><<<g, kCollThreads, 0, s>>>(v, b, cv, probe);
  else rs_pull_kernel<__nv_bfloat16><<<g, kCollThreads, 0, s>>>(v, b, cv, probe);
  PS_LAUNCH();
}

void launch_ar_oneshot_pull(const SyncView& v, const CollBuffers& b, DType t, uint64_t bytes, int max_sms, cudaStream_t s,
                            ProbeBufferHeader* probe) {
  const int g = coll_blocks_ldst(bytes / 16, max_sms);
  if (t == DType::kF32) ar_oneshot_pull_kernel<float><<<g, kCollThreads, 0, s>>>(v, b, bytes / 16, probe);
  else ar_oneshot_pull_kernel<__nv_bfloat16><<<g, kCollThreads, 0, s>>>(v, b, bytes / 16, probe);
  PS_LAUNCH();
}

void launch_twoshot_ldst(const SyncView& v, const CollBuffers& b, DType t, bool all_reduce, uint64_t bytes, int max_sms,
                         cudaStream_t s, ProbeBufferHeader* probe) {
  const uint64_t cv = bytes / 16 / static_cast<uint64_t>(v.nranks);
  const int g = coll_blocks_ldst(cv, max_sms);
  if (t == DType::kF32) {
    if (all_reduce) twoshot_ldst_kernel<float, true><<<g, kCollThreads, 0, s>>>(v, b, cv, probe);
    else twoshot_ldst_kernel<float, false><<<g, kCollThreads, 0, s>>>(v, b, cv, probe);
  } else {
    if (all_reduce) twoshot_ldst_kernel<__nv_bfloat16, true><<<g, kCollThreads, 0, s>>>(v, b, cv, probe);
    else twoshot_ldst_kernel<__nv_bfloat16, false><<<g, kCollThreads, 0, s>>>(v, b, cv, probe);
  }
  PS_LAUNCH();
}

void launch_twoshot_tma(const SyncView& v, const CollBuffers& b, DType t, bool all_reduce, uint64_t bytes, int max_sms,
                        cudaStream_t s, ProbeBufferHeader* probe) {
  const uint64_t cb = bytes / static_cast<uint64_t>(v.nranks);
  const int g = coll_blocks_tma(cb, kCollTile, max_sms);
  const uint32_t smem = twoshot_tma_smem(v.nranks);
  if (t == DType::kF32) {
    if (all_reduce) twoshot_tma_kernel<float, true><<<g, kCollTmaThreads, smem, s>>>(v, b, cb, probe);
    else twoshot_tma_kernel<float, false><<<g, kCollTmaThreads, smem, s>>>(v, b, cb, probe);
  } else {
    if (all_reduce) twoshot_tma_kernel<__nv_bfloat16, true><<<g, kCollTmaThreads, smem, s>>>(v, b, cb, probe);
    else twoshot_tma_kernel<__nv_bfloat16, false><<<g, kCollTmaThreads, smem, s>>>(v, b, cb, probe);
  }
  PS_LAUNCH();
}

void launch_ag_ldst(const SyncView& v, const CollBuffers& b, uint64_t bytes, int max_sms, cudaStream_t s,
                    ProbeBufferHeader* probe) {
  const uint64_t cv = bytes / 16 / static_cast<uint64_t>(v.nranks);
  ag_ldst_kernel<<<coll_blocks_ldst(cv, max_sms), kCollThreads, 0, s>>>(v, b, cv, probe);
  PS_LAUNCH();
}

void launch_ag_tma(const SyncView& v, const CollBuffers& b, uint64_t bytes, int max_sms, cudaStream_t s,
                   ProbeBufferHeader* probe) {
  const uint64_t cb = bytes / static_cast<uint64_t>(v.nranks);
  ag_tma_kernel<<<coll_blocks_tma(cb, kTmaTile, max_sms), kTmaThreads, kTmaStages * kTmaTile, s>>>(v, b, cb, probe);
  PS_LAUNCH();
}

void launch_a2a_ldst(const SyncView& v, const CollBuffers& b, uint64_t bytes, int max_sms, cudaStream_t s,
                     ProbeBufferHeader* probe) {
  const uint64_t cv = bytes / 16 / static_cast<uint64_t>(v.nranks);
  a2a_ldst_kernel<<<coll_blocks_ldst(cv, max_sms), kCollThreads, 0, s>>>(v, b, cv, probe);
  PS_LAUNCH();
}

void launch_local_reduce(DType t, void* out, const void* const* srcs, int nsrc, uint64_t count, cudaStream_t s) {
  ReduceSources r{};
  for (int k = 0; k < nsrc; ++k) r.p[k] = srcs[k];
  const uint64_t nvec = count * static_cast<uint64_t>(dtype_size(t)) / 16;
  const int g = static_cast<int>(std::clamp<uint64_t>((nvec + kCollThreads - 1) / kCollThreads, 1, 264));
  if (t == DType::kF32) local_reduce_kernel<float><<<g, kCollThreads, 0, s>>>(static_cast<int4*>(out), r, nsrc, nvec);
  else local_reduce_kernel<__nv_bfloat16><<<g, kCollThreads, 0, s>>>(static_cast<int4*>(out), r, nsrc, nvec);
  PS_LAUNCH();
}

void launch_reduce_push(DType t, void* out, void* const* remote, int nremote, const void* const* srcs, int nsrc,
                        uint64_t count, cudaStream_t s) {
  ReduceSources r{};
  for (int k = 0; k < nsrc; ++k) r.p[k] = srcs[k];
  RemoteDsts d{};
  for (int k = 0; k < nremote; ++k) d.p[k] = remote[k];
  const uint64_t nvec = count * static_cast<uint64_t>(dtype_size(t)) / 16;
  const int g = static_cast<int>(std::clamp<uint64_t>((nvec + kCollThreads - 1) / kCollThreads, 1, 132));
  if (t == DType::kF32) reduce_push_kernel<float><<<g, kCollThreads, 0, s>>>(static_cast<int4*>(out), d, nremote, r, nsrc, nvec);
  else reduce_push_kernel<__nv_bfloat16><<<g, kCollThreads, 0, s>>>(static_cast<int4*>(out), d, nremote, r, nsrc, nvec);
  PS_LAUNCH();
}

void preload_collective_kernels() {
  cudaFuncAttributes a;
  PS_CUDA(cudaFuncGetAttributes(&a, ar_oneshot_ll_kernel<float>));
  PS_CUDA(cudaFuncGetAttributes(&a, ar_oneshot_ll_kernel<__nv_bfloat16>));
  PS_CUDA(cudaFuncGetAttributes(&a, rs_pull_kernel<float>));
  PS_CUDA(cudaFuncGetAttributes(&a, rs_pull_kernel<__nv_bfloat16>));
  PS_CUDA(cudaFuncGetAttributes(&a, reduce_push_kernel<float>));
  PS_CUDA(cudaFuncGetAttributes(&a, reduce_push_kernel<__nv_bfloat16>));
  PS_CUDA(cudaFuncGetAttributes(&a, ar_oneshot_push_kernel<float>));
  PS_CUDA(cudaFuncGetAttributes(&a, ar_oneshot_push_kernel<__nv_bfloat16>));
  PS_CUDA(cudaFuncGetAttributes(&a, ar_oneshot_pull_kernel<float>));
  PS_CUDA(cudaFuncGetAttributes(&a, ar_oneshot_pull_kernel<__nv_bfloat16>));
  PS_CUDA(cudaFuncGetAttributes(&a, twoshot_ldst_kernel<float, true>));
  PS_CUDA(cudaFuncGetAttributes(&a, twoshot_ldst_kernel<float, false>));
  PS_CUDA(cudaFuncGetAttributes(&a, twoshot_ldst_kernel<__nv_bfloat16, true>));
  PS_CUDA(cudaFuncGetAttributes(&a, twoshot_ldst_kernel<__nv_bfloat16, false>));
  const int smem = static_cast<int>(twoshot_tma_smem(kMaxRanks));
  PS_CUDA(cudaFuncSetAttribute(twoshot_tma_kernel<float, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  PS_CUDA(cudaFuncSetAttribute(twoshot_tma_kernel<float, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  PS_CUDA(cudaFuncSetAttribute(twoshot_tma_kernel<__nv_bfloat16, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  PS_CUDA(cudaFuncSetAttribute(twoshot_tma_kernel<__nv_bfloat16, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  PS_CUDA(cudaFuncGetAttributes(&a, ag_ldst_kernel));
  PS_CUDA(cudaFuncSetAttribute(ag_tma_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kTmaStages * kTmaTile));
  PS_CUDA(cudaFuncGetAttributes(&a, a2a_ldst_kernel));
  PS_CUDA(cudaFuncGetAttributes(&a, local_reduce_kernel<float>));
  PS_CUDA(cudaFuncGetAttributes(&a, local_reduce_kernel<__nv_bfloat16>));
}

}  // namespace parascope::bench
