// Host launchers of the small synchronisation kernels: a full barrier of all ranks on one stream
// (one block), a signal from one rank to another, and the matching wait — the stream-ordered
// glue between copy-engine copies, cuBLAS GEMMs and communication kernels on different GPUs.
// They are graph-capturable and need no host input per launch (see sync.cuh).
#pragma once

#include <cuda_runtime.h>

#include "device/sync.cuh"
#include "trace/core/probe_record.h"

namespace parascope::bench {

// All ranks that launch this on `channel` meet; probe records a wait span when given.
void launch_barrier(const SyncView& v, cudaStream_t s, ProbeBufferHeader* probe = nullptr, uint32_t tag = 0);
// Adds 1 to counters[slot][v.rank] on rank dst (after everything before it on the stream).
void launch_signal(const SyncView& v, cudaStream_t s, int slot, int dst);
// Waits until counters[slot][src] on this rank has grown by `per_op` since the previous wait.
void launch_wait(const SyncView& v, cudaStream_t s, int slot, int src, uint32_t per_op,
                 ProbeBufferHeader* probe = nullptr, uint32_t tag = 0);
// Loads the sync kernels on the current device (lazy loading must not happen while a peer spins).
void preload_sync_kernels();

}  // namespace parascope::bench
