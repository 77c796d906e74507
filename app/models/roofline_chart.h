// The communication-aware roofline (roofline.h) as a ChartSpec: log-log, FLOP per byte (plain
// numbers) against performance in TFLOP/s (y values are TFLOP/s, so the axis reads 1, 10, 100,
// 1000, not 1e+12 .. 1e+15; tooltips give each rate in its own unit, format_flops); the HBM roof
// min(peak, I·HBM) solid and the link roof min(peak, I·link) dashed; each
// kernel with a FLOP count a circle at its HBM intensity and, when it moves bytes over links, a
// square at its link intensity (marker size by its share of kernel time). Kernels without a FLOP
// count cannot be placed: the title says how many, the table lists them.
#pragma once

#include "models/chart_spec.h"
#include "trace/core/analysis/roofline.h"

namespace parascope::models {

// The y axis unit: y values are FLOP/s divided by this.
inline constexpr double kRooflineYUnit = 1e12;  // TFLOP/s

// Point series carry the index of their RooflinePoint in `point_of_series` (-1 for roofs).
ChartSpec roofline_chart_spec(const Trace& trace, const Roofline& roofline, std::vector<int>* point_of_series = nullptr);

}  // namespace parascope::models
