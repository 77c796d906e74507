// `parascope-cli info INPUT...`: ranks, devices, streams, event counts and time span.
#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "cli/cli_args.h"
#include "cli/load_inputs.h"
#include "cli/trace_messages.h"
#include "cli/verbs.h"
#include "trace/core/clock_alignment.h"
#include "trace/core/counter_unit.h"
#include "trace/core/data_table.h"
#include "trace/core/json.h"
#include "trace/core/summary.h"

namespace parascope::cli {

namespace {

const std::vector<OptionSpec> kOptions = {
    {"--json", false, false, "machine-readable output (with schema_version)", ""},
    {"--lenient", false, false, "skip malformed events and report how many", ""},
    {"--quiet", false, false, "no progress bar", "-q"},
    {"--help", false, false, "this help", "-h"},
};

constexpr int kInfoSchemaVersion = 1;

std::string device_label(const Trace& t, const Device& d) {
  std::string s = "GPU " + std::to_string(d.ordinal);
  if (!d.name.empty()) s += "  " + d.name;
  if (d.sm_count) s += " (" + std::to_string(d.sm_count) + " SMs)";
  if (!d.pci_bus_id.empty()) s += "  " + d.pci_bus_id;
  (void)t;
  return s;
}

JsonValue num(int64_t v) { return JsonValue::number(v); }

JsonValue counter_json(const Trace& t, const CounterSummary& c) {
  const Track& tr = t.tracks[c.track];
  return JsonValue::object({{"name", JsonValue::string(std::string(t.str(tr.name)))},
                            {"kind", JsonValue::string(std::string(to_string(tr.key.kind)))},
                            {"source", JsonValue::string(std::string(to_string(tr.counter_source)))},
                            {"unit", JsonValue::string(std::string(t.str(tr.unit)))},
                            {"samples", num(c.samples)},
                            {"peak", JsonValue::number(c.peak)},
                            {"integral", JsonValue::number(c.integral)},
                            {"first_ns", num(c.first)},
                            {"last_ns", num(c.last)}});
}

// How the process's clock was put on the common timeline (clock_alignment.h), as the GUI's rank
// header and the report say it.
JsonValue clock_json(const Trace& t, const ClockAlignment& a) {
  return JsonValue::object({{"text", JsonValue::string(a.text)},
                            {"label", JsonValue::string(a.label)},
                            {"details", JsonValue::string(a.details)},
                            {"basis", JsonValue::string(to_string(a.basis))},
                            {"aligned", JsonValue::boolean(a.aligned)},
                            {"reference_rank", num(t.processes[a.reference].rank)},
                            {"reference_pid", num(t.processes[a.reference].pid)},
                            {"shift_ns", num(a.shift_ns)}});
}

void print_json(const Trace& t, const TraceSummary& s, const LoadReport& report) {
  const std::vector<ClockAlignment> clocks = clock_alignments(t);
  JsonValue procs = JsonValue::array();
  for (const ProcessSummary& ps : s.processes) {
    const Process& p = t.processes[ps.process];
    JsonValue pcounters = JsonValue::array();
    for (const CounterSummary& c : ps.counters) pcounters.push(counter_json(t, c));
    JsonValue devs = JsonValue::array();
    for (const DeviceSummary& ds : ps.devices) {
      const Device& d = t.devices[ds.device];
      JsonValue streams = JsonValue::array();
      for (const StreamSummary& ss : ds.streams)
        streams.push(JsonValue::object({{"stream", num(ss.stream_id)},
                                        {"name", JsonValue::string(std::string(t.str(t.tracks[ss.track].name)))},
                                        {"kernels", num(ss.kernels)},
                                        {"memcpys", num(ss.memcpys)},
                                        {"memsets", num(ss.memsets)},
                                        {"syncs", num(ss.syncs)},
                                        {"communication_kernels", num(ss.comm_kernels)},
                                        {"first_ns", num(ss.first)},
                                        {"last_ns", num(ss.last)}}));
      JsonValue counters = JsonValue::array();
      for (const CounterSummary& c : ds.counters) counters.push(counter_json(t, c));
      devs.push(JsonValue::object({{"ordinal", num(d.ordinal)},
                                   {"name", JsonValue::string(d.name)},
                                   {"pci_bus_id", JsonValue::string(d.pci_bus_id)},
                                   {"uuid", JsonValue::string(d.uuid)},
                                   {"sm_count", num(d.sm_count)},
                                   {"memory_bytes", JsonValue::number(std::to_string(d.memory_bytes))},
                                   {"has_events", JsonValue::boolean(ds.has_events)},
                                   {"kernels", num(ds.kernels)},
                                   {"memcpys", num(ds.memcpys)},
                                   {"memsets", num(ds.memsets)},
                                   {"syncs", num(ds.syncs)},
                                   {"communication_kernels", num(ds.comm_kernels)},
                                   {"collectives", num(ds.collectives)},
                                   {"peer_memcpys", num(ds.peer_memcpys)},
                                   {"sm_spans", num(ds.sm_spans)},
                                   {"sm_lanes", num(ds.sm_lanes)},
                                   {"memcpy_bytes", JsonValue::number(std::to_string(ds.memcpy_bytes))},
                                   {"first_ns", num(ds.first)},
                                   {"last_ns", num(ds.last)},
                                   {"span_ns", num(ds.last - ds.first)},
                                   {"streams", std::move(streams)},
                                   {"counters", std::move(counters)}}));
    }
    procs.push(JsonValue::object({{"rank", num(p.rank)},
                                  {"pid", num(p.pid)},
                                  {"host", JsonValue::string(p.host)},
                                  {"name", JsonValue::string(p.name)},
                                  {"source", JsonValue::string(p.source)},
                                  {"clock_offset_ns", num(p.clock_offset_ns)},
                                  {"clock_offset_reason", JsonValue::string(p.clock_offset_reason)},
                                  {"clock", clock_json(t, clocks[ps.process])},
                                  {"cpu_tracks", num(ps.cpu_tracks)},
                                  {"cpu_slices", num(ps.cpu_slices)},
                                  {"api_calls", num(ps.api_calls)},
                                  {"nvtx", num(ps.nvtx)},
                                  {"cpu_ops", num(ps.cpu_ops)},
                                  {"profiler_overhead", num(ps.overhead)},
                                  {"counters", std::move(pcounters)},
                                  {"devices", std::move(devs)}}));
  }
  JsonValue files = JsonValue::array();
  for (const auto& f : report.files)
    files.push(JsonValue::object({{"file", JsonValue::string(f.file)},
                                  {"events", num(f.events)},
                                  {"json_bytes", JsonValue::number(std::to_string(f.json_bytes))},
                                  {"rank", num(f.rank)},
                                  {"skipped_events", num(f.skipped)},
                                  {"unknown_phases", num(f.unknown_phases)},
                                  {"flows", num(f.flows)},
                                  {"unbound_flow_events", num(f.unbound_flow_events)},
                                  {"async_slices", num(f.async_slices)},
                                  {"clock_offset_ns", num(f.clock_offset_ns)},
                                  {"clock_offset_reason", JsonValue::string(f.clock_offset_reason)}}));
  JsonValue merged = JsonValue::array();
  for (const auto& m : report.merged) {
    JsonValue files_of = JsonValue::array();
    for (const auto& f : m.files) files_of.push(JsonValue::string(f));
    merged.push(JsonValue::object({{"worker", JsonValue::string(m.worker)}, {"files", std::move(files_of)}}));
  }
  JsonValue doc = JsonValue::object({{"schema_version", num(kInfoSchemaVersion)},
                                     {"format", JsonValue::string(t.source_format)},
                                     {"files", std::move(files)},
                                     {"merged_workers", std::move(merged)},
                                     {"start_ns", num(s.start)},
                                     {"end_ns", num(s.end)},
                                     {"span_ns", num(s.end - s.start)},
                                     {"tracks", num(s.tracks)},
                                     {"slices", num(s.slices)},
                                     {"flows", num(s.flows)},
                                     {"counter_samples", num(s.counters)},
                                     {"collectives", num(static_cast<int64_t>(t.collectives.size()))},
                                     {"processes", std::move(procs)},
                                     {"warnings", string_array(t.warnings)},
                                     {"notes", string_array(t.notes)}});
  std::printf("%s\n", to_json(doc, 2).c_str());
}

// One line per counter track: name, source, samples, peak in its unit and (for bytes/s) the bytes it adds up to.
void print_counter(const Trace& t, const CounterSummary& c, const char* indent) {
  const Track& tr = t.tracks[c.track];
  std::string extra = ", peak " + format_counter_value(t, tr, c.peak);
  if (counter_unit(t, tr) == CounterUnit::kBytesPerS)
    extra += ", " + format_bytes_decimal(c.integral) + " in " + format_duration(c.last - c.first);
  std::printf("%s%s  %s, %" PRId64 " samples%s\n", indent, std::string(t.str(tr.name)).c_str(),
              std::string(to_string(tr.counter_source)).c_str(), c.samples, extra.c_str());
}

// The device's GPU work: totals, then one line per stream with events.
void print_streams(const Trace& t, const DeviceSummary& ds) {
  std::printf("    kernels %" PRId64 " (communication %" PRId64 ", collectives %" PRId64 ")  memcpys %" PRId64, ds.kernels,
              ds.comm_kernels, ds.collectives, ds.memcpys);
  if (ds.peer_memcpys) std::printf(" (peer %" PRId64 ")", ds.peer_memcpys);
  std::printf("  memsets %" PRId64 "  syncs %" PRId64 "  span %s\n", ds.memsets, ds.syncs, format_duration(ds.last - ds.first).c_str());
  int width = 13;  // "stream 123456"; longer labels (stand-in streams) widen the device's column
  for (const StreamSummary& ss : ds.streams) width = std::max(width, static_cast<int>(stream_label(t.tracks[ss.track].key).size()));
  for (const StreamSummary& ss : ds.streams) {
    const std::string label = stream_label(t.tracks[ss.track].key);
    std::printf("    %-*s kernels %-6" PRId64 " comm %-5" PRId64 " memcpys %-5" PRId64 " memsets %-5" PRId64
                " syncs %-5" PRId64 " span %s\n",
                width, label.c_str(), ss.kernels, ss.comm_kernels, ss.memcpys, ss.memsets, ss.syncs, format_duration(ss.last - ss.first).c_str());
  }
}

void print_text(const Trace& t, const TraceSummary& s, const LoadReport& report) {
  const std::vector<ClockAlignment> clocks = clock_alignments(t);
  std::printf("format   %s, %zu file%s\n", t.source_format.c_str(), report.files.size(), report.files.size() == 1 ? "" : "s");
  for (const auto& m : report.merged)
    std::printf("merged   %zu files of worker %s (one profiling cycle each) into one process\n", m.files.size(), m.worker.c_str());
  std::printf("span     %s  (%" PRId64 " .. %" PRId64 " ns)\n", format_duration(s.end - s.start).c_str(), s.start, s.end);
  std::printf("events   %" PRId64 " slices on %" PRId64 " tracks, %" PRId64 " flows, %" PRId64 " counter samples, %zu collectives\n",
              s.slices, s.tracks, s.flows, s.counters, t.collectives.size());
  for (const ProcessSummary& ps : s.processes) {
    const Process& p = t.processes[ps.process];
    const std::string label = p.rank >= 0 ? "rank " + std::to_string(p.rank) : p.name;
    const std::string pid = "pid " + std::to_string(p.pid);
    std::printf("\n%s%s%s%s\n", label.c_str(), label == pid ? "" : ("  " + pid).c_str(),
                p.host.empty() ? "" : ("  host " + p.host).c_str(), ("  " + p.source).c_str());
    std::printf("  %s\n", clocks[ps.process].text.c_str());
    if (ps.cpu_tracks == 0 && ps.nvtx_tracks == 0) std::printf("  cpu: none recorded");
    else std::printf("  cpu: %" PRId64 " threads, %" PRId64 " slices", ps.cpu_tracks, ps.cpu_slices);
    if (ps.api_calls || ps.nvtx || ps.cpu_ops || ps.overhead)
      std::printf(" (API calls %" PRId64 ", NVTX %" PRId64 ", CPU ops %" PRId64 ", profiler overhead %" PRId64 ")",
                  ps.api_calls, ps.nvtx, ps.cpu_ops, ps.overhead);
    if (ps.nvtx_tracks) std::printf("; %" PRId64 " NVTX domain tracks", ps.nvtx_tracks);
    std::printf("\n");
    for (const CounterSummary& c : ps.counters) print_counter(t, c, "  counter ");
    for (const DeviceSummary& ds : ps.devices) {
      const Device& d = t.devices[ds.device];
      if (!ds.has_events) {
        std::printf("  %s: no activity recorded by this process (named by a copy or link)\n", device_label(t, d).c_str());
        continue;
      }
      std::printf("  %s\n", device_label(t, d).c_str());
      if (!ds.streams.empty()) print_streams(t, ds);
      if (ds.sm_lanes)
        std::printf("    SM lanes %" PRId64 ", %" PRId64 " spans (%" PRId64 "..%" PRId64 " per SM)\n", ds.sm_lanes,
                    ds.sm_spans, ds.sm_spans_min, ds.sm_spans_max);
      for (const CounterSummary& c : ds.counters) print_counter(t, c, "    ");
    }
  }
  print_warnings_and_notes(t);
}

}  // namespace

int run_info(const VerbArgs& argv) {
  const Args args(kOptions, argv);
  if (args.flag("--help")) {
    std::printf("usage: parascope-cli info [options] INPUT...\n%s", options_help(kOptions).c_str());
    return 0;
  }
  LoadReport report;
  const Trace t = load_inputs(args, &report);
  const TraceSummary s = summarize(t);
  if (args.flag("--json")) print_json(t, s, report);
  else print_text(t, s, report);
  return 0;
}

}  // namespace parascope::cli
