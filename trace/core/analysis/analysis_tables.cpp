#include "trace/core/analysis/analysis_tables.h"

#include "trace/core/analysis/link_stats.h"

namespace parascope {

namespace {

std::string device_text(const Trace& trace, int64_t device) {
  if (device < 0) return "all devices";
  return device_label(trace, static_cast<uint16_t>(device));
}

DataCell fraction_of(TimeNs part, TimeNs whole) {
  return whole > 0 ? percent_cell(static_cast<double>(part) / static_cast<double>(whole)) : text_cell("-");
}

}  // namespace

DataTable busy_idle_table(const Trace& trace, const std::vector<BusyIdle>& busy) {
  DataTable t;
  t.id = "busy_idle";
  t.title = "Busy/idle per device";
  t.note = "each instant counted once, by priority: compute+communication > compute > communication > memory > sync; "
           "window: the device's first to last GPU activity";
  t.column("device").column("window", "ns", true).column("busy", "fraction", true).column("compute+comm", "ns", true)
      .column("compute", "ns", true).column("comm", "ns", true).column("memory", "ns", true).column("sync", "ns", true)
      .column("idle", "ns", true);
  for (const BusyIdle& b : busy)
    t.add_row({text_cell(device_text(trace, b.device)), duration_cell(b.window_ns()), percent_cell(b.busy_fraction()),
               duration_cell(b.overlapped_ns), duration_cell(b.compute_only_ns), duration_cell(b.communication_only_ns),
               duration_cell(b.memory_only_ns), duration_cell(b.sync_only_ns), duration_cell(b.idle_ns)});
  return t;
}

DataTable overlap_table(const Trace& trace, const std::vector<DeviceOverlap>& overlap,
                        const std::vector<DeviceExposedCommunication>& exposed) {
  DataTable t;
  t.id = "overlap";
  t.title = "Communication/compute overlap and exposed communication";
  t.note = "device rows: communication under compute on any stream of the device, exposed = communication time with no "
           "compute running; stream rows: that stream's communication under the device's compute";
  t.column("device").column("stream").column("compute", "ns", true).column("communication", "ns", true)
      .column("overlap", "ns", true).column("comm hidden", "fraction", true).column("exposed comm", "ns", true);
  for (size_t d = 0; d < overlap.size(); ++d) {
    const DeviceOverlap& o = overlap[d];
    const TimeNs exp = d < exposed.size() ? exposed[d].exposed_ns : o.totals.communication_ns - o.totals.overlap_ns;
    t.add_row({text_cell(device_text(trace, o.device)), text_cell("all"), duration_cell(o.totals.compute_ns),
               duration_cell(o.totals.communication_ns), duration_cell(o.totals.overlap_ns),
               fraction_of(o.totals.overlap_ns, o.totals.communication_ns), duration_cell(exp)});
    for (const StreamOverlap& s : o.streams)
      t.add_row({text_cell(device_text(trace, o.device)), text_cell(stream_label(trace.tracks[s.track].key)),
                 duration_cell(s.compute_ns), duration_cell(s.communication_ns), duration_cell(s.comm_under_compute_ns),
                 fraction_of(s.comm_under_compute_ns, s.communication_ns),
                 duration_cell(s.communication_ns - s.comm_under_compute_ns)});
  }
  return t;
}

DataTable exposed_by_name_table(const Trace& trace, const std::vector<DeviceExposedCommunication>& exposed, size_t top) {
  DataTable t;
  t.id = "exposed_by_name";
  t.title = "Exposed communication by kernel";
  t.note = "per device, the communication kernels whose time ran with no compute on the device, most exposed first";
  t.column("device").column("kernel").column("count", "", true).column("total", "ns", true).column("exposed", "ns", true)
      .column("exposed share", "fraction", true);
  for (const DeviceExposedCommunication& e : exposed) {
    size_t n = 0;
    for (const ExposedByName& x : e.by_name) {
      if (top && n++ >= top) break;
      t.add_row({text_cell(device_text(trace, e.device)), text_cell(std::string(trace.str(x.name))), int_cell(x.count),
                 duration_cell(x.total_ns), duration_cell(x.exposed_ns), fraction_of(x.exposed_ns, x.total_ns)});
    }
  }
  return t;
}

DataTable kernel_summary_table(const Trace& trace, const KernelStats& stats) {
  DataTable t;
  t.id = "kernel_summary";
  t.title = "Kernels per device";
  t.note = "GPU kernels on streams (compute and communication), their distinct names and summed duration";
  t.column("device").column("kernels", "", true).column("names", "", true).column("kernel time", "ns", true);
  auto row = [&](const KernelStatsTable& k) {
    t.add_row({text_cell(device_text(trace, k.device)), int_cell(k.kernels), int_cell(static_cast<int64_t>(k.rows.size())),
               duration_cell(k.total_ns)});
  };
  for (const KernelStatsTable& k : stats.per_device) row(k);
  if (stats.per_device.size() != 1) row(stats.overall);
  return t;
}

DataTable kernel_stats_table(const Trace& trace, const KernelStatsTable& table, size_t top) {
  DataTable t;
  t.id = table.device < 0 ? "kernels" : "kernels_device" + std::to_string(table.device);
  t.title = table.device < 0 ? "Kernels, all devices" : "Kernels on " + device_text(trace, table.device);
  t.note = std::to_string(table.kernels) + " kernels, " + format_duration(table.total_ns) +
           (top && table.rows.size() > top ? "; the " + std::to_string(top) + " names with the most time of " +
                                                 std::to_string(table.rows.size())
                                           : std::string()) +
           "; percentiles by nearest rank" +
           (table.collector_kernels ? "; the collector's " + std::string(kCollectorClockSyncKernel) + " (" +
                                          std::to_string(table.collector_kernels) + ") left out"
                                    : std::string()) +
           (table.probe_kernels ? "; " + std::to_string(table.probe_kernels) +
                                      " from SM probe spans (no kernel records: each launch from its first to its last span)"
                                : std::string());
  t.column("kernel").column("kind").column("count", "", true).column("total", "ns", true).column("mean", "ns", true)
      .column("p50", "ns", true).column("p95", "ns", true).column("min", "ns", true).column("max", "ns", true);
  for (size_t i = 0; i < table.rows.size() && (!top || i < top); ++i) {
    const KernelStat& s = table.rows[i];
    t.add_row({text_cell(std::string(trace.str(s.name))), text_cell(s.category == Category::kCommunication ? "comm" : "compute"),
               int_cell(s.count), duration_cell(s.total_ns), DataCell{format_duration(static_cast<TimeNs>(s.mean_ns + 0.5)), s.mean_ns},
               duration_cell(s.p50_ns), duration_cell(s.p95_ns), duration_cell(s.min_ns), duration_cell(s.max_ns)});
  }
  return t;
}

DataTable collectives_table(const Trace& trace, const std::vector<CollectiveOpSummary>& summary) {
  DataTable t;
  t.id = "collectives";
  t.title = "Collectives";
  t.note = "NCCL conventions: algbw = bytes / kernel time; busbw = algbw x 2(n-1)/n all-reduce, (n-1)/n all-gather and "
           "reduce-scatter, 1 point-to-point; time-weighted over the sized operations";
  t.column("device").column("op").column("count", "", true).column("unsized", "", true).column("bytes", "bytes", true)
      .column("time", "ns", true).column("algbw", "bytes/s", true).column("busbw", "bytes/s", true)
      .column("best busbw", "bytes/s", true);
  for (const CollectiveOpSummary& s : summary)
    t.add_row({text_cell(device_text(trace, s.device)), text_cell(std::string(to_string(s.op))), int_cell(s.count),
               int_cell(s.unsized), bytes_cell(static_cast<double>(s.bytes)), duration_cell(s.time_ns),
               rate_cell(s.algbw_bytes_per_s), rate_cell(s.busbw_bytes_per_s), rate_cell(s.best_busbw_bytes_per_s)});
  return t;
}

DataTable collective_matching_table(const Trace& trace, const CollectiveMatch& match, size_t top) {
  DataTable t;
  t.id = "collective_matching";
  t.title = "Matched collectives";
  t.note = "one row per collective matched across ranks (by sequence number, else by order): skew = how long the earliest "
           "rank waited; busbw on the slowest member, and on the time after the last arrival";
  t.column("op").column("group").column("#").column("bytes", "bytes", true).column("ranks", "", true).column("skew", "ns", true)
      .column("slowest", "ns", true).column("busbw", "bytes/s", true).column("after last arrival", "ns", true)
      .column("busbw after last arrival", "bytes/s", true).column("status");
  size_t shown = 0;
  for (const MatchedCollective& m : match.collectives) {
    if (top && shown++ >= top && m.complete()) continue;
    std::string status = m.complete() ? "ok" : "";
    if (!m.missing_ranks.empty()) {
      status = "missing rank";
      for (int32_t x : m.missing_ranks) status += " " + std::to_string(x);
    }
    if (!m.duplicate_ranks.empty()) status += (status.empty() ? "" : "; ") + std::string("duplicate ranks");
    if (!m.consistent) status += "; op/size differ";
    t.add_row({text_cell(std::string(to_string(m.op))), text_cell(std::string(trace.str(m.group))),
               text_cell(m.sequence >= 0 ? "seq " + std::to_string(m.sequence) : std::to_string(m.ordinal)),
               bytes_cell(static_cast<double>(m.bytes)), int_cell(static_cast<int64_t>(m.members.size())), duration_cell(m.skew_ns()),
               duration_cell(m.max_duration_ns), rate_cell(m.busbw_bytes_per_s), duration_cell(m.concurrent_ns()),
               rate_cell(m.busbw_concurrent_bytes_per_s), text_cell(status)});
  }
  return t;
}

DataTable link_traffic_table(const LinkTraffic& traffic) {
  DataTable t;
  t.id = "link_traffic";
  t.title = "Links (estimated from peer copies and collective sizes, not measured)";
  t.note = "per link direction: bytes moved, transfers, time with a transfer in flight, mean rate over that time, peak";
  t.column("link").column("bytes", "bytes", true).column("transfers", "", true).column("active", "ns", true)
      .column("mean rate", "bytes/s", true).column("peak", "bytes/s", true).column("capacity", "bytes/s", true)
      .column("peak util", "fraction", true);
  for (const LinkSeries& s : traffic.links) {
    const double mean = s.active_ns ? static_cast<double>(s.bytes) / (static_cast<double>(s.active_ns) * 1e-9) : 0.0;
    const bool cap = s.capacity_bytes_per_s > 0;
    t.add_row({text_cell(s.name), bytes_cell(static_cast<double>(s.bytes)), int_cell(s.transfers), duration_cell(s.active_ns),
               rate_cell(mean), rate_cell(s.peak_bytes_per_s), cap ? rate_cell(s.capacity_bytes_per_s) : text_cell("?"),
               cap ? percent_cell(s.peak_utilization()) : text_cell("?")});
  }
  return t;
}

}  // namespace parascope
