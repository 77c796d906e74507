// Collective kernels over N GPUs of one process (UVA peer pointers, in-kernel cross-GPU sync).
// Each launcher enqueues the calling rank's kernel on stream `s` of the current device; every
// rank must launch the same kernel with the same arguments (except its rank) in the same order.
//   all-reduce:     oneshot_ll (≤ 256 KiB: LL words carry data and flag, no barrier, no fence;
//                   optionally with programmatic dependent launch),
//                   oneshot_push (≤ 1 MiB: push to peers' double-buffered scratch, one barrier),
//                   oneshot_pull (read every peer's input), twoshot_ldst (push reduce-scatter +
//                   push all-gather, 16-byte LD/ST), twoshot_tma (the same with bulk copies)
//   all-gather:     ldst (push), tma (push: one load, N bulk stores)
//   reduce-scatter: ldst, tma (push chunks to their owner's scratch, owner reduces),
//                   pull (read my chunk of every peer's input, reduce, one pass)
//   all-to-all:     ldst (push)
// Buffer conventions (bytes per rank): all-reduce in/out B, scratch B; all-gather in B/N, out B;
// reduce-scatter in B, out B/N, scratch B; all-to-all in/out B. Sizes: multiples of 16·N bytes.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "device/sync.cuh"
#include "host/ll_protocol.h"
#include "host/test_data.h"
#include "trace/core/probe_record.h"

namespace parascope::bench {

struct CollBuffers {
  void* in[kMaxRanks];
  void* out[kMaxRanks];
  void* scratch[kMaxRanks];
  void* small[kMaxRanks];  // one-shot push scratch: [2 halves][N slots][kOneShotPushMaxBytes]
  void* ll[kMaxRanks];     // LL scratch: ll_scratch_bytes(N), zero before the first LL launch
};

inline constexpr uint64_t kOneShotPushMaxBytes = 1ull << 20;
inline constexpr int kOneShotPushBlocks = 16;
inline constexpr int kCollThreads = 512;
inline constexpr int kCollTmaThreads = 256;
inline constexpr uint32_t kCollTile = 8 * 1024;  // two-shot TMA tile (both phases)
inline constexpr int kDefaultTmaSms = 32;
inline uint64_t oneshot_push_scratch_bytes(int nranks) { return 2ull * static_cast<uint64_t>(nranks) * kOneShotPushMaxBytes; }

// Blocks used for `bytes` by each launcher with at most `max_sms` blocks (what the rows report).
int coll_blocks_ldst(uint64_t bytes_per_block_unit, int max_sms);
int coll_blocks_tma(uint64_t bytes, uint32_t tile, int max_sms);

void launch_ar_oneshot_push(const SyncView& v, const CollBuffers& b, DType t, uint64_t bytes, cudaStream_t s,
                            ProbeBufferHeader* probe = nullptr);
// pdl: launched with programmatic stream serialization (the launch overlaps the previous kernel's
// tail; the kernel waits for it before touching memory).
void launch_ar_oneshot_ll(const SyncView& v, const CollBuffers& b, DType t, uint64_t bytes, bool pdl, cudaStream_t s,
                          ProbeBufferHeader* probe = nullptr);
void launch_ar_oneshot_pull(const SyncView& v, const CollBuffers& b, DType t, uint64_t bytes, int max_sms,
                            cudaStream_t s, ProbeBufferHeader* probe = nullptr);
// kind: all-reduce (bytes = buffer) or reduce-scatter (bytes = input)
void launch_twoshot_ldst(const SyncView& v, const CollBuffers& b, DType t, bool all_reduce, uint64_t bytes,
                         int max_sms, cudaStream_t s, ProbeBufferHeader* probe = nullptr);
void launch_twoshot_tma(const SyncView& v, const CollBuffers& b, DType t, bool all_reduce, uint64_t bytes, int max_sms,
                        cudaStream_t s, ProbeBufferHeader* probe = nullptr);
// Reduce-scatter by pulling: barrier, out = Σ_p in_p[my chunk] (fixed rank order), barrier.
void launch_rs_pull(const SyncView& v, const CollBuffers& b, DType t, uint64_t bytes, int max_sms, cudaStream_t s,
                    ProbeBufferHeader* probe = nullptr);
int coll_blocks_pull(uint64_t vecs, int max_sms);
// bytes = gathered output
void launch_ag_ldst(const SyncView& v, const CollBuffers& b, uint64_t bytes, int max_sms, cudaStream_t s,
                    ProbeBufferHeader* probe = nullptr);
void launch_ag_tma(const SyncView& v, const CollBuffers& b, uint64_t bytes, int max_sms, cudaStream_t s,
                   ProbeBufferHeader* probe = nullptr);
void launch_a2a_ldst(const SyncView& v, const CollBuffers& b, uint64_t bytes, int max_sms, cudaStream_t s,
                     ProbeBufferHeader* probe = nullptr);
// out[i] = Σ_k src[k][i] over `count` elements (local memory), all SMs.
void launch_local_reduce(DType t, void* out, const void* const* srcs, int nsrc, uint64_t count, cudaStream_t s);
// The same, and the result also stored (16-byte stores) to `nremote` other places (peer memory).
void launch_reduce_push(DType t, void* out, void* const* remote, int nremote, const void* const* srcs, int nsrc,
                        uint64_t count, cudaStream_t s);

void preload_collective_kernels();

}  // namespace parascope::bench
