// Device side of ProbeRecord (trace/core/probe_record.h): kernels record spans — a block or a
// warp doing compute / communication / waiting between two %globaltimer reads, on SM %smid — into
// a buffer in device memory: a ProbeBufferHeader followed by `capacity` records. Slots come from
// an atomic counter; a span that finds the buffer full is not written but still counts
// (overflow = max(next, capacity) − capacity), so loss is never silent. A null header turns every
// call into a no-op, so kernels keep one code path with probes on or off.
#pragma once

#include <cstdint>

#include "trace/core/probe_record.h"

namespace parascope {

__device__ __forceinline__ uint64_t probe_now() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ uint32_t probe_smid() {
  uint32_t s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

__device__ __forceinline__ ProbeRecord* probe_records(ProbeBufferHeader* h) {
  return reinterpret_cast<ProbeRecord*>(h + 1);
}

// Records one span; call from one thread per span (thread 0 of a block, lane 0 of a warp).
// warp = 0xff marks a whole-block span.
__device__ __forceinline__ void probe_emit(ProbeBufferHeader* h, uint64_t t_start, uint64_t t_end, ProbeRole role,
                                           uint32_t tag, uint8_t warp = 0xff) {
  if (h == nullptr) return;
  const uint32_t slot = atomicAdd(&h->next, 1u);
  if (slot >= h->capacity) return;  // counted: next keeps growing past capacity
  ProbeRecord r;
  r.t_start_ns = t_start;
  r.t_end_ns = t_end;
  r.block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  r.smid = static_cast<uint16_t>(probe_smid());
  r.warp = warp;
  r.role = static_cast<uint8_t>(role);
  r.tag = tag;
  r.launch_id = h->launch_id;
  probe_records(h)[slot] = r;
}

// A span of the calling thread's block or warp: construct at the start, end() at the end.
struct ProbeSpan {
  uint64_t t_start;
  __device__ __forceinline__ ProbeSpan() : t_start(probe_now()) {}
  __device__ __forceinline__ void end(ProbeBufferHeader* h, ProbeRole role, uint32_t tag, uint8_t warp = 0xff) const {
    probe_emit(h, t_start, probe_now(), role, tag, warp);
  }
};

}  // namespace parascope
