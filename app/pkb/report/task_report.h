// Everything `pkb report` and the GUI's suite view say about one task, computed once here: PKB's
// measured time, the trace's timed loop and where it goes, the operations, the bound on the
// machine, the design space, and (when `pkb eval` ran) PKB's verdict on Parascope's solution
// beside its prediction. A task that failed keeps its reason; one whose trace cannot be analysed
// says why in `analysis_note` and still reports PKB's time.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pkb/suite/pkb_perf.h"
#include "pkb/suite/suite_folder.h"
#include "pkb/task/design_space.h"
#include "pkb/task/task_bound.h"
#include "pkb/task/task_breakdown.h"
#include "pkb/task/task_ops.h"

namespace parascope::pkb {

// `pkb eval`'s result for a task (SUITE/solutions/<stem>.json) with the prediction written before it.
struct SolutionResult {
  bool evaluated = false;
  bool correct = false;        // PKB's "all trials match"
  int trials = 0;
  double reference_ms = 0, solution_ms = 0, measured_speedup = 0;
  double predicted_speedup = 0;  // from predictions.json, written by `pkb solutions` before the run
  std::string kernel;            // the Parascope kernel the solution calls
  std::string reason;            // why it did not pass
};

struct TaskReport {
  TaskRecord record;
  PerfSummary perf;
  double reference_s = 0;        // PKB's number (max over ranks of wall_time_ms)
  std::string trace_path;
  bool analyzed = false;
  std::string analysis_note;
  TaskWindow window;
  TaskOps ops;
  TaskBreakdown breakdown;
  TaskBound bound;
  DesignSpace designs;
  std::optional<SolutionResult> solution;
};

struct AnalysisContext {
  Topology machine;
  RooflineCeilings ceilings;
  std::string dtype = "bfloat16";
  bool explore = true;           // run the design space (the simulator)
};

TaskReport analyze_task(const SuitePaths& suite, const TaskRecord& record, const AnalysisContext& ctx);
// The same on a trace already loaded (tests, the GUI).
void analyze_trace(TaskReport& r, const Trace& trace, const AnalysisContext& ctx);

}  // namespace parascope::pkb
