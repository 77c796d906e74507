// Device side of ProbeRecord (trace/core/probe_record.h): kernels record spans — a block or a
// warp doing compute / communication / waiting between two %globaltimer reads, on SM %smid — into
// a buffer in device memory: a ProbeBufferHeader followed by `capacity` records. Slots come from
// an atomic counter; a span that finds the buffer full is not written but still counts
// (overflow = max(next, capacity) − capacity), so loss is never silent. A null header turns every
// call into a no-op, so kernels keep one code path with probes on or off.
// Cost (docs/history/collector.md, "Tuning log"): one span = two %globaltimer reads, one atomic on the
// header and one 32-byte store. probe_emit issues the header loads and the atomic together (one
// round trip, not three in a row); ProbeReservedSpan takes its slot when the span starts, so the
// atomic's round trip overlaps the span's work and end() only reads the clock and stores.
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

__device__ __forceinline__ uint32_t probe_block_index() {
  return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}

// Writes one record at `r` (32 bytes, the ProbeRecord layout) as two 16-byte stores when `r` is
// 16-byte aligned (a cudaMalloc'ed buffer: header 16 bytes, records 32), else field by field.
__device__ __forceinline__ void probe_store(ProbeRecord* r, uint64_t t_start, uint64_t t_end, uint32_t block,
                                            uint32_t smid, uint8_t warp, uint8_t role, uint32_t tag,
                                            uint32_t launch_id) {
  if ((reinterpret_cast<uintptr_t>(r) & 15u) == 0) {
    uint4* v = reinterpret_cast<uint4*>(r);
    v[0] = make_uint4(static_cast<uint32_t>(t_start), static_cast<uint32_t>(t_start >> 32),
                      static_cast<uint32_t>(t_end), static_cast<uint32_t>(t_end >> 32));
    // bytes 16..31: block, smid (u16) | warp (u8) << 16 | role (u8) << 24, tag, launch_id
    v[1] = make_uint4(block, (smid & 0xffffu) | (static_cast<uint32_t>(warp) << 16) | (static_cast<uint32_t>(role) << 24),
                      tag, launch_id);
    return;
  }
  ProbeRecord x;
  x.t_start_ns = t_start;
  x.t_end_ns = t_end;
  x.block = block;
  x.smid = static_cast<uint16_t>(smid);
  x.warp = warp;
  x.role = role;
  x.tag = tag;
  x.launch_id = launch_id;
  *r = x;
}

// Records one span; call from one thread per span (thread 0 of a block, lane 0 of a warp).
// warp = 0xff marks a whole-block span.
__device__ __forceinline__ void probe_emit(ProbeBufferHeader* h, uint64_t t_start, uint64_t t_end, ProbeRole role,
                                           uint32_t tag, uint8_t warp = 0xff) {
  if (h == nullptr) return;
  // the two header loads and the atomic go out together: nothing here waits for another
  const uint32_t capacity = h->capacity;
  const uint32_t launch_id = h->launch_id;
  const uint32_t slot = atomicAdd(&h->next, 1u);
  const uint32_t smid = probe_smid();
  const uint32_t block = probe_block_index();
  if (slot >= capacity) return;  // counted: next keeps growing past capacity
  probe_store(probe_records(h) + slot, t_start, t_end, block, smid, warp, static_cast<uint8_t>(role), tag, launch_id);
}

// A span of the calling thread's block or warp: construct at the start, end() at the end.
struct ProbeSpan {
  uint64_t t_start;
  __device__ __forceinline__ ProbeSpan() : t_start(probe_now()) {}
  __device__ __forceinline__ void end(ProbeBufferHeader* h, ProbeRole role, uint32_t tag, uint8_t warp = 0xff) const {
    probe_emit(h, t_start, probe_now(), role, tag, warp);
  }
};

// A span whose slot is taken when it starts, by the one thread that will end it (`emitter`:
// thread 0 of the block, lane 0 of the warp): the atomic's round trip overlaps the span's work,
// so end() — a clock read and a store — no longer holds the block at its next barrier. For spans
// inside a kernel (per chunk, before a __syncthreads). The emitter must call end() exactly once:
// a reserved slot that is never ended stays unwritten (holds whatever the buffer held).
struct ProbeReservedSpan {
  uint64_t t_start = 0;
  ProbeBufferHeader* header = nullptr;  // null: not the emitter, or no buffer
  uint32_t index = 0, capacity = 0, launch_id = 0;
  __device__ __forceinline__ ProbeReservedSpan(ProbeBufferHeader* h, bool emitter) {
    t_start = probe_now();
    if (h == nullptr || !emitter) return;
    header = h;
    capacity = h->capacity;
    launch_id = h->launch_id;
    index = atomicAdd(&h->next, 1u);  // not used before end(): the thread does not wait for it here
  }
  __device__ __forceinline__ void end(ProbeRole role, uint32_t tag, uint8_t warp = 0xff) const {
    if (header == nullptr || index >= capacity) return;  // full: counted by `next`
    probe_store(probe_records(header) + index, t_start, probe_now(), probe_block_index(), probe_smid(), warp,
                static_cast<uint8_t>(role), tag, launch_id);
  }
};

}  // namespace parascope
