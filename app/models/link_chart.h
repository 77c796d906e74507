// Link utilization as a ChartSpec: bytes/s per link and direction over a window, each series
// decimated to a min/max band per bucket (decimate_min_max, so a 1 ms spike survives any zoom).
// Where the numbers come from decides the look: measured solid, estimated pale with a dashed edge,
// simulated hatched — as the timeline's counters. x: ms from `origin`; y: GB/s.
#pragma once

#include "models/chart_spec.h"
#include "trace/core/analysis/link_stats.h"

namespace parascope::models {

struct LinkChartOptions {
  Interval window;
  TimeNs origin = 0;            // x = 0 here (the trace start)
  size_t buckets = 600;         // about one per pixel of the plot
  std::vector<size_t> shown;    // counters to draw; empty: all
  std::string title = "Link load";
};

ChartSpec link_chart_spec(const std::vector<LinkCounter>& counters, const LinkChartOptions& options);
// A distinct colour per series index, the same in the chart, the table and the topology view.
ChartColor series_color(size_t i);
SeriesStyle style_of(CounterSource s);

}  // namespace parascope::models
