// Per-link load statistics and the per-pixel envelope a chart draws. A link's load is a counter
// in bytes/s (track.h): each sample's value holds until the next sample, the last one until the
// window's end; time before the first sample is not covered. Statistics are time-weighted over
// the covered part of a window: the mean is bytes / covered time, p(q) is the smallest value v such
// that the load was ≤ v for at least q % of the covered time (so a 1 ms spike on a 1 s window
// moves the peak, not the median). Sources stay apart: measured, estimated and simulated series of
// one link are separate LinkCounters, never mixed.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "trace/core/analysis/intervals.h"
#include "trace/core/data_table.h"
#include "trace/core/trace.h"

namespace parascope {

struct CounterStats {
  TimeNs covered_ns = 0;  // window time with a sample holding
  TimeNs active_ns = 0;   // covered time with a value > 0
  double integral = 0;    // ∫ value dt over the window, value × seconds (bytes for bytes/s)
  double mean = 0;        // integral / covered time; 0 when nothing is covered
  double peak = 0;        // largest value holding for some time inside the window
  double p50 = 0, p90 = 0, p99 = 0;
  size_t samples = 0;     // samples with a time inside the window
};

CounterStats counter_stats(std::span<const TimeNs> time, std::span<const double> value, Interval window);

// One bucket of a decimated series: the least and greatest value holding at any moment in it.
struct MinMax {
  double min = 0, max = 0;
  bool covered = false;  // false: no sample holds anywhere in the bucket
};

// `buckets` equal parts of [window.start, window.end) (bucket i starts at start + len·i/buckets,
// integer division); O(samples in the window + buckets).
std::vector<MinMax> decimate_min_max(std::span<const TimeNs> time, std::span<const double> value, Interval window,
                                     size_t buckets);

// One bytes/s series of one link direction.
struct LinkCounter {
  std::string name;      // "rank 0 GPU 0 → fabric (NVLink tx)"
  CounterSource source = CounterSource::kMeasured;
  Link link;             // ends, direction, medium, port; capacity_bytes_per_s 0 when unknown
  int32_t track = -1;    // the trace's counter track; -1: an estimate computed by link_counters
  std::vector<TimeNs> time;
  std::vector<double> bytes_per_s;
};

// The trace's kLink counter tracks (measured, estimated or simulated), in track order; then, with
// `estimates`, the traffic estimate_link_traffic (link_traffic.h) derives from peer copies and
// collective sizes (source kEstimated) unless the trace already holds estimated link tracks.
std::vector<LinkCounter> link_counters(const Trace& trace, bool estimates = true);

// "rank 0 GPU 0" (or "pid 12 GPU 0", "fabric" for kNoDevice).
std::string device_label(const Trace& trace, uint16_t device);
std::string medium_label(Medium m);  // "NVLink", "PCIe", "InfiniBand"...

// A link direction's capacity and where it comes from ("h200x2 preset (datasheet)"); one function
// decides it for every view (counter_capacities, trace_machine.h).
struct LinkCapacity {
  double bytes_per_s = 0;  // per direction; 0: unknown
  std::string source;      // "" with 0: unknown
};

struct LinkStats {
  size_t counter = 0;    // index into the LinkCounter list
  CounterStats stats;
  double capacity_bytes_per_s = 0;  // 0: unknown
  std::string capacity_source;
  double peak_utilization() const { return capacity_bytes_per_s > 0 ? stats.peak / capacity_bytes_per_s : 0.0; }
  double mean_utilization() const { return capacity_bytes_per_s > 0 ? stats.mean / capacity_bytes_per_s : 0.0; }
};

// `capacities`: per counter, from the machine the trace was matched to (counter_capacities); empty:
// each counter's own Link::capacity_bytes_per_s ("the trace's link record").
std::vector<LinkStats> link_stats(const std::vector<LinkCounter>& counters, Interval window,
                                  const std::vector<LinkCapacity>& capacities = {});

// One row per counter: link, source, capacity and where it comes from, peak, mean, p50, p90, p99, utilizations, bytes, active time.
DataTable link_stats_table(const std::vector<LinkCounter>& counters, const std::vector<LinkStats>& stats);

}  // namespace parascope
