// Kernel statistics by kernel name, per device and over the whole trace: count, total, mean, p50,
// p95, min, max of durations, and the kernel's category (compute or communication).
// Percentiles are nearest-rank: p(q) is the ceil(q/100 · n)-th smallest duration (1-based), so
// it is always a duration that occurred. Rows are sorted by total time, largest first, ties by
// name text, so output is deterministic. The collector's clock-sync kernel is left out (counted).
// A device with no kernel records (a probe-only trace: parascope-bench --probe without the
// collector) counts its SM probe spans instead: each launch (span name, launch id) is one execution
// of the kernel the probe buffer names, lasting from its first span's start to its last span's end
// on that device; communication when its name says so or its spans only communicate or wait (the
// role the classifier gives each span), else compute. Spans named only by their role (a buffer
// without a kernel name) are no kernel's.
#pragma once

#include <string_view>
#include <vector>

#include "trace/core/classify.h"
#include "trace/core/trace.h"

namespace parascope {

struct KernelStat {
  StringId name = kEmptyString;
  Category category = Category::kCompute;
  int64_t count = 0;
  TimeNs total_ns = 0;
  double mean_ns = 0;
  TimeNs p50_ns = 0, p95_ns = 0, min_ns = 0, max_ns = 0;
};

// The kernel Parascope's own collector launches once per GPU to align its clocks
// (trace/collector/clock_sync.h): not the user's work, so the statistics leave it out and count it.
inline constexpr std::string_view kCollectorClockSyncKernel = "parascope_clock_sync";

struct KernelStatsTable {
  int32_t device = -1;  // trace device index; -1: the whole trace
  int64_t kernels = 0;
  int64_t collector_kernels = 0;  // kCollectorClockSyncKernel launches left out of the rows and counts
  int64_t probe_kernels = 0;      // executions (in `kernels`) taken from SM probe spans, no kernel record
  TimeNs total_ns = 0;
  std::vector<KernelStat> rows;
};

struct KernelStats {
  KernelStatsTable overall;
  std::vector<KernelStatsTable> per_device;  // one per trace device, in device order
};

// Nearest-rank percentile of sorted values (q in (0, 100]); 0 for an empty list.
TimeNs nearest_rank_percentile(const std::vector<TimeNs>& sorted, double q);

KernelStats kernel_stats(const Trace& trace, const SliceClassifier& classify);
KernelStats kernel_stats(const Trace& trace);

}  // namespace parascope
