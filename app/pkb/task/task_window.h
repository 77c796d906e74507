// Where PKB's timed loop sits in a trace of its worker (utils/performance.py): after the warm-up
// and a device synchronise, one CUDA event is recorded before the first timed call and one after
// each call (torch creates each event at its first record: cudaEventCreate* then cudaEventRecord*
// on the worker's thread), then a synchronise and one cudaEventElapsedTime per event pair plus one
// for the total. So the run of elapsed-time calls gives the iteration count, and the create→record
// pairs between the synchronise after the warm-up and the one before those calls delimit the
// iterations on the host (events destroyed at once are c10d's; with k kept records per iteration,
// every k-th is PKB's); each
// iteration's GPU work is what its host interval launched (launch flows). The task's first call
// (before the worker's first cudaDeviceSynchronize after a launch) is where the shape hook recorded
// op shapes.
#pragma once

#include <string>
#include <vector>

#include "trace/core/trace.h"

namespace parascope::pkb {

struct Iteration {
  TimeNs host_start = 0, host_end = 0;  // event record k .. event record k+1
  TimeNs gpu_start = 0, gpu_end = 0;    // first start .. last end of what it launched (0, 0: nothing)
  std::vector<EventRef> gpu_ops;        // kernels, copies, memsets it launched, in launch order
};

struct TaskWindow {
  bool found = false;
  std::string note;               // why it was not found, or what looked odd
  uint32_t process = 0;           // the worker process
  uint32_t thread_track = 0;      // its thread that ran the loop
  TimeNs first_sync_end = 0;      // end of the first cudaDeviceSynchronize after a launch (the first call before it)
  TimeNs loop_host_start = 0;     // start of the create→record pair before the first timed call
  TimeNs loop_end = 0;            // end of the last elapsed-time call
  TimeNs gpu_start = 0, gpu_end = 0;  // event 0 recorded .. last GPU op of the last iteration
  std::vector<Iteration> iterations;
  std::vector<EventRef> first_call_ops;  // GPU ops launched before the first synchronise, in order
  TimeNs gpu_ns() const { return gpu_end - gpu_start; }
};

// One window per process that launched GPU work, by process index. `iterations`: PKB's count from
// its perf file (0: take the elapsed-time calls' count).
std::vector<TaskWindow> find_task_windows(const Trace& trace, int iterations = 0);

// The time ranges worth keeping of a task's trace: everything up to the first synchronise, and
// the timed loop from its first event to its last elapsed-time call (each window's own).
std::vector<std::pair<TimeNs, TimeNs>> kept_ranges(const Trace& trace, const std::vector<TaskWindow>& windows);

}  // namespace parascope::pkb
