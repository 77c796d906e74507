// A one-thread TMA pipeline: job i loads up to one tile from global memory (local or peer) into a
// shared-memory stage with a bulk copy, then bulk-stores the stage to up to kMaxRanks
// destinations (local or peer). S stages, loads issued D jobs ahead; a stage is reloaded only
// after the store that last read it has finished reading (wait_group.read), so up to S − D
// stores stay in flight. Stage parities persist in TmaPipe across calls, so a kernel may run
// several pipelines over the same stages.
#pragma once

#include <cstdint>

#include "device/device_ptx.cuh"
#include "device/sync.cuh"

namespace parascope::bench {

struct TmaJob {
  const void* src;
  void* dst[kMaxRanks];
  int ndst;
  uint32_t bytes;  // ≤ tile, multiple of 16
};

struct TmaPipe {
  unsigned char* smem;  // S × tile bytes, 128-byte aligned
  uint64_t* bar;        // S mbarriers
  uint32_t tile;
  uint32_t phase;       // bit s: parity of the next completion of stage s
};

// Thread 0 only; the other threads of the block must not touch the stages meanwhile.
template <int S>
__device__ __forceinline__ void tma_pipe_init(TmaPipe& p) {
  for (int s = 0; s < S; ++s) mbar_init(&p.bar[s], 1);
  fence_mbar_init();
  fence_proxy_async_shared();
  p.phase = 0;
}

template <int S, int D, class JobFn>
__device__ __forceinline__ void tma_pipe_run(TmaPipe& p, uint64_t count, JobFn job) {
  static_assert(D >= 1 && D <= S, "prefetch distance must be in [1, S]");
  auto issue = [&](uint64_t i) {
    const TmaJob j = job(i);
    const int s = static_cast<int>(i % S);
    mbar_arrive_expect_tx(&p.bar[s], j.bytes);
    bulk_g2s(p.smem + static_cast<size_t>(s) * p.tile, j.src, j.bytes, &p.bar[s]);
  };
  for (uint64_t i = 0; i < count && i < static_cast<uint64_t>(D); ++i) issue(i);
  for (uint64_t i = 0; i < count; ++i) {
    const int s = static_cast<int>(i % S);
    mbar_wait(&p.bar[s], (p.phase >> s) & 1u);
    p.phase ^= 1u << s;
    const TmaJob j = job(i);
    for (int d = 0; d < j.ndst; ++d) bulk_s2g(j.dst[d], p.smem + static_cast<size_t>(s) * p.tile, j.bytes);
    bulk_commit();
    if (i + D < count) {
      bulk_wait_read<S - D>();
      issue(i + D);
    }
  }
  bulk_wait_read<0>();
}

// Everything stored so far is performed, and ordered before later generic-proxy operations
// (the flag store of a barrier or signal).
__device__ __forceinline__ void tma_drain_stores() {
  bulk_wait<0>();
  fence_proxy_async_global();
}

}  // namespace parascope::bench
