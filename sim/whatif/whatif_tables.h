// A what-if run and a sweep as DataTables (trace/core/data_table.h): the predicted-vs-measured
// comparison (step time, GPU step time, exposed communication overall and per rank, with the
// unchanged replay beside), per step and rank, the per-link utilization, what changed by kernel,
// and the sweep's variants. One schema: the GUI's What-if dock, `whatif --csv` and the reports show
// these very rows (compare.h builds them); the numbers are run_whatif's and run_sweep's, never
// recomputed.
#pragma once

#include <vector>

#include "sim/whatif/sweep.h"
#include "sim/whatif/what_if.h"
#include "trace/core/data_table.h"

namespace parascope::whatif {

// Rows, each named with what it covers: step time, GPU step time and exposed communication per step
// (the step time's mean over steps), exposed communication over the whole trace (max over ranks),
// then per rank its communication and exposed communication over the whole trace. Columns: measured, predicted, diff, diff %, then the
// replay's and the prediction against it (empty without `replay`). `label` names the prediction in
// the title ("channels=4"; empty: the unchanged replay).
DataTable whatif_comparison_table(const WhatIfSummary& s, const std::string& label = "", const WhatIfSummary* replay = nullptr);

// Per step and rank of the replay: measured, replayed, predicted (the prediction's step of the same
// name and process) and predicted against measured.
DataTable whatif_steps_table(const WhatIfSummary& prediction, const WhatIfSummary& replay);

// Predicted bytes and mean/peak utilization per link direction, busiest first; then the replay's
// (empty without `replay`, or for a link the replay did not use).
DataTable whatif_links_table(const WhatIfSummary& s, const WhatIfSummary* replay = nullptr);

// Summed time per kernel name in the replay and in the prediction, largest change first.
DataTable whatif_by_kernel_table(const WhatIfDiff& diff);

// One row per variant in run_sweep's order: the knob values, step, GPU step, exposed
// communication, change against `reference_step_ns` (the unchanged replay; 0: no column), note.
DataTable sweep_table(const std::vector<SweepRow>& rows, double reference_step_ns = 0);

// The same rows for scripts (`whatif --sweep -o DIR`'s summary.csv): the knob values, step_ns,
// gpu_step_ns, exposed_ns (whole ns), vs_replay (a fraction; 0 for failed variants) and error.
DataTable sweep_summary_table(const std::vector<SweepRow>& rows, double reference_step_ns);

}  // namespace parascope::whatif
