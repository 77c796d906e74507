// The stand-in's records of one process (standin_records.h) into the trace model, beside the
// compute the collector measured in the same file:
//   - RecordedWorld (trace/core/recorded_world.h): rank, world size, every group created;
//   - per collective or point-to-point call: its host call ("stand-in all_reduce", the call's own
//     time) on the calling thread, and a zero-length communication kernel on its group's
//     stand-in stream (one per group and device, as NCCL has one stream per communicator; ids from
//     kStandInStreamBase, track.h; named "stand-in collectives, group G [ranks], called on
//     stream S (not measured)", S the streams the program issued the calls on) with a
//     CollectiveInfo (op, dtype, elements, group, group rank, per-group sequence), placed where an
//     infinitely fast network would have run it: after the call and after the last operation
//     launched on the calling stream before the call;
//   - flows: launch (call -> kernel), dependency (that last operation -> kernel: NCCL's event wait
//     on the calling stream), dependency (kernel -> the first operation launched on the waiting
//     stream after a wait(), or -> a blocking host call "stand-in wait" for CPU tensors, barriers
//     and waits with no stream).
// Nothing here is a measured duration of communication; the what-if replay fills it in.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "trace/core/trace_builder.h"
#include "trace/io/collector/standin_records.h"

namespace parascope {

struct StandInImportHooks {
  std::function<uint32_t()> process;
  std::function<uint32_t(uint32_t ordinal)> device;
  std::function<uint32_t(uint32_t tid)> thread_track;
  std::function<void(const std::string&)> warn;
};

struct StandInImportReport {
  int64_t ops = 0, waits = 0, stream_dependencies = 0, wait_dependencies = 0, host_waits = 0;
};

// Call after every other event of the file was added (launch flows included): it reads the
// builder's provisional slices to find what was launched on each stream when.
// `realtime_offset_ns` is added to the records' CLOCK_REALTIME times (the file's clock sync; 0 when
// the collector's clock is CLOCK_REALTIME itself).
StandInImportReport import_standin(TraceBuilder& b, const standin::Records& records, int64_t realtime_offset_ns,
                                   const StandInImportHooks& hooks);

}  // namespace parascope
