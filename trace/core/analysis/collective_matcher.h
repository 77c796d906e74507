// Cross-rank collective matching: which collective annotations on different ranks are one NCCL
// operation. Within a process group (name + ranks text), members match by sequence number when
// they carry one (Kineto "Seq"); otherwise by order of appearance per (group, op) on each rank —
// the k-th all-reduce of group "0" on rank 0 matches the k-th on rank 1. A match is complete when
// every rank of the group (from "Process Group Ranks", else 0..n−1 by group size) appears exactly
// once; anything else is reported with its missing or duplicated ranks, never silently dropped.
// Times are on the trace clock, so skew includes any clock error between the ranks' files.
#pragma once

#include <vector>

#include "trace/core/trace.h"

namespace parascope {

struct CollectiveMember {
  uint32_t collective = 0;  // index into Trace::collectives
  int32_t rank = -1;        // global rank
  int32_t device = -1;      // trace device of its kernel, -1 without one
  TimeNs start = 0, end = 0;  // its kernel (or CPU op when there is no kernel)
};

struct MatchedCollective {
  StringId group = kEmptyString;
  StringId group_ranks = kEmptyString;
  CollectiveOp op = CollectiveOp::kUnknown;
  int64_t sequence = -1;  // matched by sequence number; -1: matched by order
  int64_t ordinal = -1;   // matched by order: the k (0-based) of (group, op)
  int32_t group_size = 0;
  uint64_t bytes = 0;     // S (collective_bandwidth.h) of the first member
  std::vector<CollectiveMember> members;  // sorted by rank
  std::vector<int32_t> missing_ranks;
  std::vector<int32_t> duplicate_ranks;
  bool consistent = true;  // every member agrees on op and bytes
  TimeNs first_start = 0, last_start = 0, first_end = 0, last_end = 0;
  TimeNs max_duration_ns = 0;  // the slowest member's duration
  // On the slowest member, as nccl-tests reports: algbw = S / max duration, busbw = algbw × factor.
  // A rank that arrives early waits inside its kernel, so this understates the links when ranks
  // are skewed; the *_concurrent figures use the time after the last rank arrived instead.
  double algbw_bytes_per_s = 0, busbw_bytes_per_s = 0;
  double algbw_concurrent_bytes_per_s = 0, busbw_concurrent_bytes_per_s = 0;

  bool complete() const { return !members.empty() && missing_ranks.empty() && duplicate_ranks.empty(); }
  TimeNs skew_ns() const { return last_start - first_start; }  // how long the earliest rank waited
  TimeNs concurrent_ns() const { return last_end - last_start; }  // from the last arrival to the last end
};

struct CollectiveMatch {
  std::vector<MatchedCollective> collectives;  // complete and incomplete, by first_start
  int64_t complete = 0, incomplete = 0;
  int64_t by_sequence = 0, by_order = 0;       // how complete matches were found
  std::vector<uint32_t> unmatched;             // collective indexes in incomplete matches
  std::vector<uint32_t> untimed;               // neither a kernel nor a CPU op: cannot be ordered
};

CollectiveMatch match_collectives(const Trace& trace);

}  // namespace parascope
