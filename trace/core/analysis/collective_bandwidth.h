// Collective sizes and bandwidths by NCCL's definitions (nccl-tests, doc/PERFORMANCE.md):
//   S      = the operation's size as NCCL counts it: max(in, out) elements × element size
//            (all-gather: the gathered output, n × the per-rank input; reduce-scatter: the whole
//            input; all-reduce, broadcast, reduce, send/recv: the buffer)
//   algbw  = S / t, t = the GPU kernel's duration on that rank
//   busbw  = algbw × factor(op, n):  all-reduce 2(n−1)/n;  all-gather, reduce-scatter,
//            all-to-all (n−1)/n;  broadcast, reduce, send, recv, send/recv 1
// busbw is comparable across ops and group sizes against the link speed; factor × S is also
// what each rank pushes onto its links in a ring (link_traffic.h uses it). Unknown sizes or
// group sizes give 0, never a guess.
#pragma once

#include <vector>

#include "trace/core/trace.h"

namespace parascope {

// factor(op, n) above; 0 when n is needed and unknown (n < 1) or the op has no defined factor.
double bus_bandwidth_factor(CollectiveOp op, int32_t ranks);
// S in bytes; 0 when elements or element size are unknown.
uint64_t collective_bytes(const CollectiveInfo& c);
// Group size: CollectiveInfo::group_size, else the number of entries in group_ranks ("[0, 1]").
int32_t collective_group_size(const Trace& trace, const CollectiveInfo& c);
// Global ranks listed in group_ranks ("[0, 1, 2]"); empty when absent or unparsable.
std::vector<int32_t> parse_group_ranks(std::string_view text);
// Bytes one rank sends over its links for this collective: S × factor (recv: 0, the sender counts).
uint64_t collective_wire_bytes(const Trace& trace, const CollectiveInfo& c);

struct CollectiveBandwidth {
  uint32_t collective = 0;  // index into Trace::collectives
  int32_t device = -1;      // trace device of the kernel, -1 without one
  TimeNs start = 0, dur = 0;
  uint64_t bytes = 0;       // S
  double algbw_bytes_per_s = 0;
  double busbw_bytes_per_s = 0;
};

// One row per collective annotation attached to a GPU kernel, in collective order.
std::vector<CollectiveBandwidth> collective_bandwidth(const Trace& trace);

struct CollectiveOpSummary {
  int32_t device = -1;  // -1: all devices
  CollectiveOp op = CollectiveOp::kUnknown;
  int64_t count = 0;
  int64_t unsized = 0;  // no bytes known: excluded from the bandwidth figures
  uint64_t bytes = 0;
  TimeNs time_ns = 0;   // kernel time of the sized ones
  // Time-weighted: sum(S) / sum(t), and the same × factor per row.
  double algbw_bytes_per_s = 0;
  double busbw_bytes_per_s = 0;
  double best_busbw_bytes_per_s = 0;
};

// Per (device, op), then per op over all devices (device −1); sorted by device then op.
std::vector<CollectiveOpSummary> summarize_collective_bandwidth(const Trace& trace,
                                                                const std::vector<CollectiveBandwidth>& rows);

}  // namespace parascope
