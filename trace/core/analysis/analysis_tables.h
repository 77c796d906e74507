// The summary analyses (busy/idle, overlap and exposed communication, kernel statistics,
// collective bandwidth, cross-rank matching, estimated link traffic) as DataTables, so the reports
// (HTML, PDF, CSV) and `parascope-cli stats` (which prints these very tables) show the same rows: exposed communication is
// exposed_communication()'s |M − C| per device, kernel counts are kernel_stats()'s. Cells keep the
// exact values (ns, bytes, fractions); devices are named as device_label() names them.
#pragma once

#include <vector>

#include "trace/core/analysis/busy_idle.h"
#include "trace/core/analysis/collective_bandwidth.h"
#include "trace/core/analysis/collective_matcher.h"
#include "trace/core/analysis/exposed_communication.h"
#include "trace/core/analysis/kernel_stats.h"
#include "trace/core/analysis/link_traffic.h"
#include "trace/core/analysis/overlap.h"
#include "trace/core/data_table.h"

namespace parascope {

// One row per device: window, busy share and the time by what was running (each instant once).
DataTable busy_idle_table(const Trace& trace, const std::vector<BusyIdle>& busy);
// Per device a row ("all" streams: the device's compute, communication, overlap, share of
// communication hidden, exposed communication), then one per stream with communication or compute.
// `overlap` and `exposed` are per device in the same order (compute_overlap, exposed_communication).
DataTable overlap_table(const Trace& trace, const std::vector<DeviceOverlap>& overlap,
                        const std::vector<DeviceExposedCommunication>& exposed);
// The communication kernels exposing the most time, per device, at most `top` per device.
DataTable exposed_by_name_table(const Trace& trace, const std::vector<DeviceExposedCommunication>& exposed, size_t top);
// One row per device (and "all devices" when there are several): kernels, distinct names, kernel time.
DataTable kernel_summary_table(const Trace& trace, const KernelStats& stats);
// The `top` kernel names of one table (all when top is 0) by total time: count, total, mean, p50, p95, min, max.
DataTable kernel_stats_table(const Trace& trace, const KernelStatsTable& table, size_t top);
// Per (device, op) and per op over all devices: count, bytes, time, algbw, busbw, best busbw.
DataTable collectives_table(const Trace& trace, const std::vector<CollectiveOpSummary>& summary);
// One row per cross-rank match: op, group, sequence or order, bytes, ranks, skew, the slowest
// member's time and busbw, the time after the last arrival and its busbw, status. Incomplete
// matches are always listed; complete ones only the first `top` (0: all).
DataTable collective_matching_table(const Trace& trace, const CollectiveMatch& match, size_t top);
// One row per link direction of the estimate: bytes, transfers, active time, mean and peak rate,
// capacity, peak utilization.
DataTable link_traffic_table(const LinkTraffic& traffic);

}  // namespace parascope
