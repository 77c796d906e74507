// After a task ran under `record`: its record/ folder loaded as one trace, PKB's timed loop found
// (task_window.h) and the trace cut to the first call and the loop (trace/core/trace_cut.h), written
// as trace.pstrace beside it. The warm-up iterations are what is left out (500 of PKB's 601 calls),
// which keeps a suite of 87 tasks small enough to carry. Without a window the record/ stays.
#pragma once

#include <string>
#include <vector>

#include "pkb/suite/suite_folder.h"

namespace parascope::pkb {

struct TaskTraceResult {
  StoredWindow window;
  std::string trace;                  // "trace.pstrace", "record" or "" (no trace files)
  std::vector<std::string> warnings;
};

// `iterations`: PKB's timed iterations (its perf file), 0 when unknown. `keep_record`: leave the
// record/ folder even after a cut.
TaskTraceResult finish_task_trace(const std::string& task_dir, int iterations, bool keep_record);

// The trace of a finished task: trace.pstrace, else the record/ folder; empty when it has none.
std::string task_trace_path(const std::string& task_dir, const TaskRecord& t);

}  // namespace parascope::pkb
