// Cross-GPU synchronisation through peer memory, for N GPUs of one process (UVA peer pointers).
// Every rank owns a SyncArea; a kernel family owns one channel of it, so families with different
// grids never share counters. Two primitives:
//  - block_barrier: block b of every rank meets block b of every other rank. Each block keeps its
//    own epoch (launch count) in local memory; all ranks launch the same grids in the same order,
//    so epochs agree without any host input, and CUDA-graph replays stay correct. Flags only grow
//    (wrap-safe comparison), so a waiter can never pass on a stale value.
//  - signal/wait counters: a producer block adds 1 to counters[slot][src] on the consumer rank;
//    the consumer's wait kernel counts its own waits, so it waits for `per_op` more each time.
// Every wait gives up after kSyncTimeoutNs and sets the rank's error word: a broken kernel fails
// its row instead of hanging the run. The host resets all channels between experiments.
#pragma once

#include <cstdint>

#include "device/device_ptx.cuh"

namespace parascope::bench {

inline constexpr int kMaxRanks = 8;
inline constexpr int kSyncMaxBlocks = 264;   // 2 per SM on a 132-SM H200
inline constexpr int kSyncSlots = 4;         // barriers per launch
inline constexpr int kSyncCounterSlots = 64; // signal slots (chunks) per channel
inline constexpr uint64_t kSyncTimeoutNs = 4'000'000'000ull;

enum SyncChannelId : int {
  kChBarrier = 0,       // barrier_kernel (copy-engine collectives, fused ops)
  kChOneShotPush = 1,
  kChOneShotPull = 2,
  kChTwoShotLdst = 3,
  kChTwoShotTma = 4,
  kChAllGatherLdst = 5,
  kChAllGatherTma = 6,
  kChReduceScatterLdst = 7,
  kChReduceScatterTma = 8,
  kChAllToAllLdst = 9,
  kChSignal = 10,       // signal/wait counters of the fused kernels
  kChFusedBarrier = 11, // barrier_kernel of the fused kernels' communication stream
  kChOneShotLl = 12,    // LL one-shot all-reduce: only its per-block epochs (flags travel with the data)
  kChReduceScatterPull = 13,
  kChCeSignal = 14,     // signal/wait counters of the copy-engine push collectives
  kSyncChannels = 15,
};

struct SyncChannel {
  uint32_t flags[kSyncSlots][kSyncMaxBlocks][kMaxRanks];  // [slot][block][source rank], written by peers
  uint32_t epoch[kSyncMaxBlocks];                         // local: launches each block has taken part in
  uint32_t counters[kSyncCounterSlots][kMaxRanks];        // [slot][source rank], incremented by peers
  uint32_t waited[kSyncCounterSlots][kMaxRanks];          // local: waits done on each counter
};

struct SyncArea {
  SyncChannel ch[kSyncChannels];
  uint32_t error;        // 0 = fine; else 0x1000 | channel << 4 | slot of the first timed-out wait
  uint32_t error_count;
};

// Passed by value to kernels: this rank's channel and every rank's channel.
struct SyncView {
  SyncChannel* self;
  SyncChannel* peer[kMaxRanks];
  uint32_t* error;
  int rank;
  int nranks;
  int channel;
};

// Called every 256 spins of a wait: true when the wait must give up — an earlier wait on this rank
// gave up, or this one has lasted kSyncTimeoutNs (then the error word records channel and slot).
__device__ __forceinline__ bool sync_give_up(const SyncView& v, uint64_t& start, int slot) {
  if (ld_volatile(v.error) != 0) return true;
  const uint64_t now = globaltimer();
  if (start == 0) start = now;
  else if (now - start > kSyncTimeoutNs) {
    atomicCAS(v.error, 0u, 0x1000u | (static_cast<uint32_t>(v.channel) << 4) | static_cast<uint32_t>(slot));
    atomicAdd(v.error + 1, 1u);
    return true;
  }
  return false;
}

// Spins until *p ≥ target (wrap-safe). Gives up, recording an error, after kSyncTimeoutNs or as
// soon as an earlier wait on this rank has given up.
__device__ __forceinline__ bool sync_wait_geq(const uint32_t* p, uint32_t target, const SyncView& v, int slot) {
  uint64_t start = 0;
  for (uint32_t spins = 0;; ++spins) {
    if (static_cast<int32_t>(ld_acquire_sys(p) - target) >= 0) return true;
    if ((spins & 255u) == 255u && sync_give_up(v, start, slot)) return false;
  }
}

// Start of a launch: this block's epoch for the launch (same value on every rank).
__device__ __forceinline__ uint32_t sync_epoch_begin(const SyncView& v) {
  __shared__ uint32_t e;
  if (threadIdx.x == 0) e = v.self->epoch[blockIdx.x] + 1;
  __syncthreads();
  return e;
}
__device__ __forceinline__ void sync_epoch_end(const SyncView& v, uint32_t e) {
  if (threadIdx.x == 0) v.self->epoch[blockIdx.x] = e;
}

// Block b of this rank and block b of every other rank: everything each wrote before the
// barrier (to any GPU) is visible to all of them after it. All threads of the block call it.
__device__ __forceinline__ void block_barrier(const SyncView& v, int slot, uint32_t e) {
  __syncthreads();
  const int p = static_cast<int>(threadIdx.x);
  if (p < v.nranks && p != v.rank) {
    __threadfence_system();
    st_release_sys(&v.peer[p]->flags[slot][blockIdx.x][v.rank], e);
    sync_wait_geq(&v.self->flags[slot][blockIdx.x][p], e, v, slot);
  }
  __syncthreads();
}

// Producer side: after this block's part of `slot` is written to rank `dst`, count it there.
// Call from all threads of the block.
__device__ __forceinline__ void block_signal(const SyncView& v, int slot, int dst) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence_system();
    atomicAdd_system(&v.peer[dst]->counters[slot][v.rank], 1u);
  }
}

}  // namespace parascope::bench
