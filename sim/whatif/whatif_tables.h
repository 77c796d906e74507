// A what-if run and a sweep as DataTables (trace/core/data_table.h): the predicted-vs-measured
// comparison (step time, GPU step time, exposed communication overall and per rank), the predicted
// per-link utilization, and the sweep's variants. The GUI's What-if dock, `whatif --csv` and the
// reports show these very rows; the numbers are run_whatif's and run_sweep's, never recomputed.
#pragma once

#include <vector>

#include "sim/whatif/sweep.h"
#include "sim/whatif/what_if.h"
#include "trace/core/data_table.h"

namespace parascope::whatif {

// Rows: step time, GPU step time, exposed communication (max over ranks), then per rank its
// communication and exposed communication. Columns: measured, predicted, diff, diff %.
// `label` names the prediction in the title ("channels=4"; empty: the unchanged replay).
DataTable whatif_comparison_table(const WhatIfSummary& s, const std::string& label = "");

// Predicted bytes and mean/peak utilization per link direction, busiest first.
DataTable whatif_links_table(const WhatIfSummary& s);

// One row per variant in run_sweep's order: the knob values, step, GPU step, exposed
// communication, change against `reference_step_ns` (the unchanged replay; 0: no column), note.
DataTable sweep_table(const std::vector<SweepRow>& rows, double reference_step_ns = 0);

}  // namespace parascope::whatif
