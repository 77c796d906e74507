/* ProbeRecord: one intra-kernel span written by device code (parascope/probe.cuh) and read by the
 * collector, the bench harness and the trace model. 32 bytes, plain data, identical layout on host
 * and device; the static_asserts pin the layout because records are copied raw from GPU memory
 * and stored raw in .pstrace chunks. Times are %globaltimer nanoseconds (the collector aligns them
 * to the CUPTI clock per device). This header must stay valid C++ for nvcc and host compilers. */
#pragma once

#include <cstddef>
#include <cstdint>

namespace parascope {

enum class ProbeRole : uint8_t { kCompute = 0, kCommunicate = 1, kWait = 2, kOther = 3 };

struct ProbeRecord {
  uint64_t t_start_ns;  // %globaltimer at span start
  uint64_t t_end_ns;    // %globaltimer at span end
  uint32_t block;       // linear block index in the grid
  uint16_t smid;        // %smid
  uint8_t warp;         // warp within the block (0xff: whole block)
  uint8_t role;         // ProbeRole
  uint32_t tag;         // user tag: chunk index, pipeline stage, peer...
  uint32_t launch_id;   // which launch of the buffer's kernel (host increments per launch)
};

static_assert(sizeof(ProbeRecord) == 32, "ProbeRecord is a 32-byte wire format");
static_assert(offsetof(ProbeRecord, t_start_ns) == 0);
static_assert(offsetof(ProbeRecord, t_end_ns) == 8);
static_assert(offsetof(ProbeRecord, block) == 16);
static_assert(offsetof(ProbeRecord, smid) == 20);
static_assert(offsetof(ProbeRecord, warp) == 22);
static_assert(offsetof(ProbeRecord, role) == 23);
static_assert(offsetof(ProbeRecord, tag) == 24);
static_assert(offsetof(ProbeRecord, launch_id) == 28);

/* Header of a probe buffer in device memory: records follow it. `next` is the atomic slot
 * counter; slots at or beyond `capacity` are not written and count as overflow, never silently:
 * overflow = max(next, capacity) - capacity. */
struct ProbeBufferHeader {
  uint32_t magic;       // kProbeMagic
  uint32_t capacity;    // records that fit after the header
  uint32_t next;        // atomically incremented by device code
  uint32_t launch_id;   // copied into each record by the device helper
};
static_assert(sizeof(ProbeBufferHeader) == 16);

inline constexpr uint32_t kProbeMagic = 0x50524231u;  // "PRB1"

}  // namespace parascope
