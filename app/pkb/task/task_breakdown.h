// Where a task's timed iterations go on its GPU, per iteration: PKB's loop window (first event
// recorded .. last op of the last iteration) split by busy_idle.h's priorities into compute,
// communication hidden under compute and exposed, memory (copies, memsets), syncs (the GPU waiting
// on events) and host gaps (nothing queued: the host was late). The window per iteration beside
// PKB's own number shows how closely the trace and PKB's CUDA events agree. The host's time per
// iteration is the floor no GPU-side change lowers: a loop whose host is slower than its GPU is
// host-bound.
#pragma once

#include "pkb/task/task_window.h"
#include "trace/core/classify.h"

namespace parascope::pkb {

struct TaskBreakdown {
  int iterations = 0;
  int32_t device = -1;           // trace device of the worker's GPU
  double window_ns = 0;          // per iteration
  double compute_ns = 0;         // compute only
  double comm_hidden_ns = 0;     // communication under compute
  double comm_exposed_ns = 0;    // communication alone
  double memory_ns = 0;
  double sync_ns = 0;
  double host_gap_ns = 0;        // idle
  double host_ns = 0;            // the host's time per iteration: event record k .. k+1, mean
  double busy_ns() const { return window_ns - host_gap_ns; }
};

TaskBreakdown task_breakdown(const Trace& trace, const TaskWindow& w, const SliceClassifier& classify);

}  // namespace parascope::pkb
