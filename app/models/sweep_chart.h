// A what-if sweep as a ChartSpec: predicted step time (ms) against the first knob of the sweep,
// one line per value of the second knob (a family of curves instead of a heat map, so the same
// chart backend draws it and values stay readable). Built from the sweep's DataTable
// (whatif_tables.h: knob columns, then "step"), so the GUI and the reports draw the same chart.
// Numeric knob values share a numeric axis (log when they span 16x or more); sizes ("1MiB") and
// enums become categories, ordered by size then text. Failed variants are left out.
#pragma once

#include "models/chart_spec.h"
#include "trace/core/data_table.h"

namespace parascope::models {

// `reference_step_ns` > 0 adds a dashed horizontal line: the unchanged replay.
ChartSpec sweep_chart_spec(const DataTable& sweep, double reference_step_ns = 0);

}  // namespace parascope::models
