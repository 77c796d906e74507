// `parascope-cli stats INPUT...`: the analyses of trace/core/analysis — busy/idle per device,
// communication/compute overlap (device, stream, SM lane), exposed communication, kernel
// statistics, collectives (NCCL algbw/busbw, cross-rank matching) and estimated link traffic.
// Aligned text for people (the analysis tables the reports show, analysis_tables.h); --json (with
// schema_version) for machines.
#include <cinttypes>
#include <cstdio>

#include "cli/cli_args.h"
#include "cli/load_inputs.h"
#include "cli/table_output.h"
#include "cli/trace_messages.h"
#include "cli/verbs.h"
#include "trace/core/analysis/analysis_tables.h"
#include "trace/core/analysis/busy_idle.h"
#include "trace/core/analysis/collective_bandwidth.h"
#include "trace/core/analysis/collective_matcher.h"
#include "trace/core/analysis/exposed_communication.h"
#include "trace/core/analysis/kernel_stats.h"
#include "trace/core/analysis/link_traffic.h"
#include "trace/core/analysis/overlap.h"
#include "trace/core/json.h"

namespace parascope::cli {

namespace {

const std::vector<OptionSpec> kOptions = {
    {"--json", false, false, "machine-readable output (with schema_version)", ""},
    {"--top", true, false, "kernel rows per table in text output (default 10; --json has all)", ""},
    {"--common-window", false, false, "busy/idle over one window spanning all devices instead of each device's own", ""},
    {"--link-bandwidth", true, false, "link capacity in GB/s per direction, for utilization", ""},
    {"--lenient", false, false, "skip malformed input events and report how many", ""},
    {"--quiet", false, false, "no progress bar", "-q"},
    {"--help", false, false, "this help", "-h"},
};

constexpr int kStatsSchemaVersion = 1;

struct Results {
  std::vector<DeviceActivity> activity;
  std::vector<BusyIdle> busy;
  std::vector<DeviceOverlap> overlap;
  std::vector<DeviceExposedCommunication> exposed;
  KernelStats kernels;
  std::vector<CollectiveBandwidth> bandwidth;
  std::vector<CollectiveOpSummary> bandwidth_summary;
  CollectiveMatch match;
  LinkTraffic links;
};

std::string rank_text(const Trace& t, int32_t device) {
  if (device < 0 || static_cast<size_t>(device) >= t.devices.size()) return "-";
  const Device& d = t.devices[static_cast<size_t>(device)];
  const int32_t r = d.process < t.processes.size() ? t.processes[d.process].rank : -1;
  return r >= 0 ? std::to_string(r) : "p" + std::to_string(d.process);
}
std::string gpu_text(const Trace& t, int32_t device) {
  if (device < 0 || static_cast<size_t>(device) >= t.devices.size()) return "-";
  return std::to_string(t.devices[static_cast<size_t>(device)].ordinal);
}

// The analysis tables the reports show (analysis_tables.h), as aligned text.
void print_text(const Trace& t, const Results& r, size_t top) {
  const auto [start, end] = t.time_span();
  std::printf("format   %s, %zu file%s, span %s\n", t.source_format.c_str(), t.source_files.size(),
              t.source_files.size() == 1 ? "" : "s", format_duration(end - start).c_str());
  std::printf("\n%s", render_text(busy_idle_table(t, r.busy)).c_str());
  std::printf("\n%s", render_text(overlap_table(t, r.overlap, r.exposed)).c_str());
  for (const DeviceOverlap& o : r.overlap) {
    if (o.sm_lanes.empty()) continue;
    OverlapTotals sum;
    for (const SmLaneOverlap& l : o.sm_lanes) {
      sum.compute_ns += l.totals.compute_ns;
      sum.communication_ns += l.totals.communication_ns;
      sum.overlap_ns += l.totals.overlap_ns;
    }
    std::printf("  rank %s GPU %s: %zu SM lanes, compute %s, communicate %s, both at once %s (summed over lanes)\n",
                rank_text(t, static_cast<int32_t>(o.device)).c_str(), gpu_text(t, static_cast<int32_t>(o.device)).c_str(),
                o.sm_lanes.size(), format_duration(sum.compute_ns).c_str(), format_duration(sum.communication_ns).c_str(),
                format_duration(sum.overlap_ns).c_str());
  }
  for (const KernelStatsTable& tab : r.kernels.per_device)
    if (!tab.rows.empty()) std::printf("\n%s", render_text(kernel_stats_table(t, tab, top)).c_str());
  if (r.kernels.per_device.size() > 1 && !r.kernels.overall.rows.empty())
    std::printf("\n%s", render_text(kernel_stats_table(t, r.kernels.overall, top)).c_str());
  if (!r.bandwidth.empty()) std::printf("\n%s", render_text(collectives_table(t, r.bandwidth_summary)).c_str());
  if (!r.match.collectives.empty() || !r.match.untimed.empty()) {
    std::printf("\nCross-rank matching: %" PRId64 " complete (%" PRId64 " by sequence number, %" PRId64 " by order), %" PRId64
                " incomplete, %zu collectives unmatched\n",
                r.match.complete, r.match.by_sequence, r.match.by_order, r.match.incomplete, r.match.unmatched.size());
    std::printf("%s", render_text(collective_matching_table(t, r.match, top)).c_str());
    if (r.match.collectives.size() > top)  // the table holds complete and incomplete matches alike
      std::printf("  (%zu more matches not shown, of %" PRId64 " complete and %" PRId64 " incomplete; --json lists all)\n",
                  r.match.collectives.size() - top, r.match.complete, r.match.incomplete);
  }
  std::printf("\n%s", render_text(link_traffic_table(r.links)).c_str());
  if (r.links.unannotated_comm_kernels || r.links.unsized_collectives)
    std::printf("  not included: %" PRId64 " communication kernels without a size annotation, %" PRId64 " unsized collectives\n",
                r.links.unannotated_comm_kernels, r.links.unsized_collectives);
  print_warnings_and_notes(t);
}

JsonValue num(int64_t v) { return JsonValue::number(v); }
JsonValue real(double v) { return JsonValue::number(v); }
JsonValue str(std::string_view s) { return JsonValue::string(std::string(s)); }
JsonValue u64(uint64_t v) { return JsonValue::number(std::to_string(v)); }

JsonValue device_ref(const Trace& t, int32_t device) {
  if (device < 0 || static_cast<size_t>(device) >= t.devices.size()) return JsonValue::null();
  const Device& d = t.devices[static_cast<size_t>(device)];
  const int32_t rank = d.process < t.processes.size() ? t.processes[d.process].rank : -1;
  return JsonValue::object({{"device", num(device)}, {"rank", num(rank)}, {"ordinal", num(d.ordinal)}, {"name", str(d.name)}});
}

JsonValue overlap_json(const OverlapTotals& o) {
  return JsonValue::object({{"compute_ns", num(o.compute_ns)}, {"communication_ns", num(o.communication_ns)},
                            {"overlap_ns", num(o.overlap_ns)}, {"communication_overlapped", real(o.communication_overlapped())},
                            {"compute_overlapped", real(o.compute_overlapped())}});
}

void print_json(const Trace& t, const Results& r) {
  const auto [start, end] = t.time_span();
  JsonValue devices = JsonValue::array();
  for (size_t d = 0; d < t.devices.size(); ++d) {
    const BusyIdle& b = r.busy[d];
    const DeviceOverlap& o = r.overlap[d];
    const DeviceExposedCommunication& e = r.exposed[d];
    JsonValue streams = JsonValue::array();
    for (const StreamOverlap& s : o.streams)
      streams.push(JsonValue::object({{"stream", num(s.stream)}, {"compute_ns", num(s.compute_ns)},
                                      {"communication_ns", num(s.communication_ns)},
                                      {"compute_under_communication_ns", num(s.compute_under_comm_ns)},
                                      {"communication_under_compute_ns", num(s.comm_under_compute_ns)}}));
    JsonValue lanes = JsonValue::array();
    for (const SmLaneOverlap& l : o.sm_lanes) {
      JsonValue lane = overlap_json(l.totals);
      lane.set("sm", num(l.sm));
      lanes.push(std::move(lane));
    }
    JsonValue by_name = JsonValue::array();
    for (const ExposedByName& x : e.by_name)
      by_name.push(JsonValue::object({{"name", str(t.str(x.name))}, {"count", num(x.count)}, {"total_ns", num(x.total_ns)},
                                      {"exposed_ns", num(x.exposed_ns)}}));
    JsonValue dev = device_ref(t, static_cast<int32_t>(d));
    dev.set("busy_idle", JsonValue::object({{"window_start_ns", num(b.window_start)}, {"window_end_ns", num(b.window_end)},
                                            {"overlapped_ns", num(b.overlapped_ns)}, {"compute_only_ns", num(b.compute_only_ns)},
                                            {"communication_only_ns", num(b.communication_only_ns)},
                                            {"memory_only_ns", num(b.memory_only_ns)}, {"sync_only_ns", num(b.sync_only_ns)},
                                            {"idle_ns", num(b.idle_ns)}, {"busy_ns", num(b.busy_ns())},
                                            {"busy_fraction", real(b.busy_fraction())}}));
    dev.set("overlap", overlap_json(o.totals));
    dev.set("streams", std::move(streams));
    dev.set("sm_lanes", std::move(lanes));
    dev.set("exposed_communication", JsonValue::object({{"communication_ns", num(e.communication_ns)}, {"hidden_ns", num(e.hidden_ns)},
                                                        {"exposed_ns", num(e.exposed_ns)},
                                                        {"exposed_fraction", real(e.exposed_fraction())},
                                                        {"by_name", std::move(by_name)}}));
    devices.push(std::move(dev));
  }
  auto kernel_table = [&](const KernelStatsTable& tab) {
    JsonValue rows = JsonValue::array();
    for (const KernelStat& s : tab.rows)
      rows.push(JsonValue::object({{"name", str(t.str(s.name))}, {"category", str(to_string(s.category))}, {"count", num(s.count)},
                                   {"total_ns", num(s.total_ns)}, {"mean_ns", real(s.mean_ns)}, {"p50_ns", num(s.p50_ns)},
                                   {"p95_ns", num(s.p95_ns)}, {"min_ns", num(s.min_ns)}, {"max_ns", num(s.max_ns)}}));
    // probe_kernels: how many of `kernels` are SM probe launches of a device without kernel records
    JsonValue o = JsonValue::object({{"device", device_ref(t, tab.device)}, {"kernels", num(tab.kernels)},
                                     {"probe_kernels", num(tab.probe_kernels)}, {"total_ns", num(tab.total_ns)},
                                     {"rows", std::move(rows)}});
    return o;
  };
  JsonValue per_device = JsonValue::array();
  for (const KernelStatsTable& tab : r.kernels.per_device) per_device.push(kernel_table(tab));
  JsonValue summary = JsonValue::array();
  for (const CollectiveOpSummary& s : r.bandwidth_summary)
    summary.push(JsonValue::object({{"device", device_ref(t, s.device)}, {"op", str(to_string(s.op))}, {"count", num(s.count)},
                                    {"unsized", num(s.unsized)}, {"bytes", u64(s.bytes)}, {"time_ns", num(s.time_ns)},
                                    {"algbw_bytes_per_s", real(s.algbw_bytes_per_s)},
                                    {"busbw_bytes_per_s", real(s.busbw_bytes_per_s)},
                                    {"best_busbw_bytes_per_s", real(s.best_busbw_bytes_per_s)}}));
  JsonValue per_collective = JsonValue::array();
  for (const CollectiveBandwidth& b : r.bandwidth) {
    const CollectiveInfo& c = t.collectives[b.collective];
    per_collective.push(JsonValue::object({{"collective", num(b.collective)}, {"device", device_ref(t, b.device)},
                                           {"op", str(to_string(c.op))}, {"start_ns", num(b.start)}, {"dur_ns", num(b.dur)},
                                           {"bytes", u64(b.bytes)}, {"group_size", num(collective_group_size(t, c))},
                                           {"algbw_bytes_per_s", real(b.algbw_bytes_per_s)},
                                           {"busbw_bytes_per_s", real(b.busbw_bytes_per_s)}}));
  }
  JsonValue matches = JsonValue::array();
  for (const MatchedCollective& m : r.match.collectives) {
    JsonValue members = JsonValue::array();
    for (const CollectiveMember& mm : m.members)
      members.push(JsonValue::object({{"collective", num(mm.collective)}, {"rank", num(mm.rank)}, {"device", device_ref(t, mm.device)},
                                      {"start_ns", num(mm.start)}, {"end_ns", num(mm.end)}}));
    JsonValue missing = JsonValue::array(), dup = JsonValue::array();
    for (int32_t x : m.missing_ranks) missing.push(num(x));
    for (int32_t x : m.duplicate_ranks) dup.push(num(x));
    matches.push(JsonValue::object({{"op", str(to_string(m.op))}, {"group", str(t.str(m.group))},
                                    {"group_ranks", str(t.str(m.group_ranks))}, {"sequence", num(m.sequence)},
                                    {"ordinal", num(m.ordinal)}, {"group_size", num(m.group_size)}, {"bytes", u64(m.bytes)},
                                    {"complete", JsonValue::boolean(m.complete())}, {"consistent", JsonValue::boolean(m.consistent)},
                                    {"missing_ranks", std::move(missing)}, {"duplicate_ranks", std::move(dup)},
                                    {"skew_ns", num(m.skew_ns())}, {"max_duration_ns", num(m.max_duration_ns)},
                                    {"concurrent_ns", num(m.concurrent_ns())}, {"algbw_bytes_per_s", real(m.algbw_bytes_per_s)},
                                    {"busbw_bytes_per_s", real(m.busbw_bytes_per_s)},
                                    {"algbw_concurrent_bytes_per_s", real(m.algbw_concurrent_bytes_per_s)},
                                    {"busbw_concurrent_bytes_per_s", real(m.busbw_concurrent_bytes_per_s)},
                                    {"members", std::move(members)}}));
  }
  JsonValue unmatched = JsonValue::array();
  for (uint32_t u : r.match.unmatched) unmatched.push(num(u));
  JsonValue links = JsonValue::array();
  for (const LinkSeries& s : r.links.links) {
    JsonValue series = JsonValue::array();
    for (size_t i = 0; i < s.time.size(); ++i) series.push(JsonValue::array({num(s.time[i]), real(s.bytes_per_s[i])}));
    links.push(JsonValue::object({{"name", str(s.name)}, {"src", device_ref(t, s.link.src_device == kNoDevice ? -1 : s.link.src_device)},
                                  {"dst", device_ref(t, s.link.dst_device == kNoDevice ? -1 : s.link.dst_device)},
                                  {"source", str("estimated")}, {"bytes", u64(s.bytes)}, {"transfers", num(s.transfers)},
                                  {"active_ns", num(s.active_ns)}, {"peak_bytes_per_s", real(s.peak_bytes_per_s)},
                                  {"capacity_bytes_per_s", real(s.capacity_bytes_per_s)},
                                  {"mean_active_utilization", real(s.mean_active_utilization())},
                                  {"peak_utilization", real(s.peak_utilization())},
                                  {"bytes_per_s", std::move(series)}}));
  }
  JsonValue files = JsonValue::array();
  for (const auto& f : t.source_files) files.push(str(f));
  JsonValue doc = JsonValue::object({
      {"schema_version", num(kStatsSchemaVersion)},
      {"format", str(t.source_format)},
      {"files", std::move(files)},
      {"start_ns", num(start)},
      {"end_ns", num(end)},
      {"devices", std::move(devices)},
      {"kernels", JsonValue::object({{"overall", kernel_table(r.kernels.overall)}, {"per_device", std::move(per_device)}})},
      {"collectives", JsonValue::object({{"summary", std::move(summary)}, {"per_collective", std::move(per_collective)}})},
      {"matching", JsonValue::object({{"complete", num(r.match.complete)}, {"incomplete", num(r.match.incomplete)},
                                      {"by_sequence", num(r.match.by_sequence)}, {"by_order", num(r.match.by_order)},
                                      {"unmatched", std::move(unmatched)}, {"untimed", num(static_cast<int64_t>(r.match.untimed.size()))},
                                      {"collectives", std::move(matches)}})},
      {"links", JsonValue::object({{"source", str("estimated")}, {"peer_copies", num(r.links.peer_copies)},
                                   {"collectives", num(r.links.collectives)},
                                   {"unsized_collectives", num(r.links.unsized_collectives)},
                                   {"unannotated_communication_kernels", num(r.links.unannotated_comm_kernels)},
                                   {"links", std::move(links)}})},
      {"warnings", string_array(t.warnings)},
      {"notes", string_array(t.notes)},
  });
  std::printf("%s\n", to_json(doc, 1).c_str());
}

}  // namespace

int run_stats(const VerbArgs& argv) {
  const Args args(kOptions, argv);
  if (args.flag("--help")) {
    std::printf("usage: parascope-cli stats [options] INPUT...\n%s", options_help(kOptions).c_str());
    return 0;
  }
  const auto top = static_cast<size_t>(args.integer("--top", 10));
  LinkTrafficOptions lto;
  if (const auto v = args.value("--link-bandwidth")) {
    try {
      size_t used = 0;
      const double g = std::stod(*v, &used);
      if (used != v->size() || !(g > 0)) throw std::invalid_argument("");
      lto.capacity_bytes_per_s = g * 1e9;
    } catch (const std::exception&) {
      throw UsageError("--link-bandwidth needs a positive number of GB/s, got '" + *v + "'");
    }
  }
  const Trace t = load_inputs(args);

  Results r;
  const SliceClassifier classify(t);
  r.activity = device_activity(t, classify);
  BusyIdleOptions bo;
  bo.common_window = args.flag("--common-window");
  r.busy = busy_idle(r.activity, bo);
  r.overlap = compute_overlap(r.activity);
  r.exposed = exposed_communication(t, classify, r.activity);
  r.kernels = kernel_stats(t, classify);
  r.bandwidth = collective_bandwidth(t);
  r.bandwidth_summary = summarize_collective_bandwidth(t, r.bandwidth);
  r.match = match_collectives(t);
  r.links = estimate_link_traffic(t, lto);
  if (args.flag("--json")) print_json(t, r);
  else print_text(t, r, top);
  return 0;
}

}  // namespace parascope::cli
