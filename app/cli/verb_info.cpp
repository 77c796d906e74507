// `parascope-cli info INPUT...`: ranks, devices, streams, event counts and time span.
#include <cinttypes>
#include <cstdio>

#include "cli/cli_args.h"
#include "cli/progress.h"
#include "cli/verbs.h"
#include "trace/core/json.h"
#include "trace/core/summary.h"
#include "trace/io/load_trace.h"

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

void print_json(const Trace& t, const TraceSummary& s, const LoadReport& report) {
  JsonValue procs = JsonValue::array();
  for (const ProcessSummary& ps : s.processes) {
    const Process& p = t.processes[ps.process];
    JsonValue devs = JsonValue::array();
    for (const DeviceSummary& ds : ps.devices) {
      const Device& d = t.devices[ds.device];
      JsonValue streams = JsonValue::array();
      for (const StreamSummary& ss : ds.streams)
        streams.push(JsonValue::object({{"stream", num(ss.stream_id)},
                                        {"kernels", num(ss.kernels)},
                                        {"memcpys", num(ss.memcpys)},
                                        {"memsets", num(ss.memsets)},
                                        {"syncs", num(ss.syncs)},
                                        {"communication_kernels", num(ss.comm_kernels)},
                                        {"first_ns", num(ss.first)},
                                        {"last_ns", num(ss.last)}}));
      devs.push(JsonValue::object({{"ordinal", num(d.ordinal)},
                                   {"name", JsonValue::string(d.name)},
                                   {"sm_count", num(d.sm_count)},
                                   {"kernels", num(ds.kernels)},
                                   {"memcpys", num(ds.memcpys)},
                                   {"memsets", num(ds.memsets)},
                                   {"syncs", num(ds.syncs)},
                                   {"communication_kernels", num(ds.comm_kernels)},
                                   {"collectives", num(ds.collectives)},
                                   {"sm_spans", num(ds.sm_spans)},
                                   {"memcpy_bytes", JsonValue::number(std::to_string(ds.memcpy_bytes))},
                                   {"first_ns", num(ds.first)},
                                   {"last_ns", num(ds.last)},
                                   {"span_ns", num(ds.last - ds.first)},
                                   {"streams", std::move(streams)}}));
    }
    procs.push(JsonValue::object({{"rank", num(p.rank)},
                                  {"pid", num(p.pid)},
                                  {"host", JsonValue::string(p.host)},
                                  {"name", JsonValue::string(p.name)},
                                  {"source", JsonValue::string(p.source)},
                                  {"clock_offset_ns", num(p.clock_offset_ns)},
                                  {"clock_offset_reason", JsonValue::string(p.clock_offset_reason)},
                                  {"cpu_tracks", num(ps.cpu_tracks)},
                                  {"cpu_slices", num(ps.cpu_slices)},
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
  JsonValue warnings = JsonValue::array();
  for (const auto& w : t.warnings) warnings.push(JsonValue::string(w));
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
                                     {"processes", std::move(procs)},
                                     {"warnings", std::move(warnings)}});
  std::printf("%s\n", to_json(doc, 2).c_str());
}

void print_text(const Trace& t, const TraceSummary& s, const LoadReport& report) {
  std::printf("format   %s, %zu file%s\n", t.source_format.c_str(), report.files.size(), report.files.size() == 1 ? "" : "s");
  for (const auto& m : report.merged)
    std::printf("merged   %zu files of worker %s (one profiling cycle each) into one process\n", m.files.size(), m.worker.c_str());
  std::printf("span     %s  (%" PRId64 " .. %" PRId64 " ns)\n", format_duration(s.end - s.start).c_str(), s.start, s.end);
  std::printf("events   %" PRId64 " slices on %" PRId64 " tracks, %" PRId64 " flows, %" PRId64 " counter samples\n",
              s.slices, s.tracks, s.flows, s.counters);
  for (const ProcessSummary& ps : s.processes) {
    const Process& p = t.processes[ps.process];
    std::printf("\n%s  pid %" PRId64 "%s%s\n", p.rank >= 0 ? ("rank " + std::to_string(p.rank)).c_str() : p.name.c_str(),
                p.pid, p.host.empty() ? "" : ("  host " + p.host).c_str(), ("  " + p.source).c_str());
    std::printf("  clock offset %+" PRId64 " ns (%s)\n", p.clock_offset_ns, p.clock_offset_reason.c_str());
    std::printf("  cpu: %" PRId64 " threads, %" PRId64 " slices\n", ps.cpu_tracks, ps.cpu_slices);
    for (const DeviceSummary& ds : ps.devices) {
      const Device& d = t.devices[ds.device];
      std::printf("  %s\n", device_label(t, d).c_str());
      std::printf("    kernels %" PRId64 " (communication %" PRId64 ", collectives %" PRId64 ")  memcpys %" PRId64
                  "  memsets %" PRId64 "  syncs %" PRId64 "  span %s\n",
                  ds.kernels, ds.comm_kernels, ds.collectives, ds.memcpys, ds.memsets, ds.syncs,
                  format_duration(ds.last - ds.first).c_str());
      for (const StreamSummary& ss : ds.streams)
        std::printf("    stream %-6" PRId64 " kernels %-6" PRId64 " comm %-5" PRId64 " memcpys %-5" PRId64
                    " memsets %-5" PRId64 " span %s\n",
                    ss.stream_id, ss.kernels, ss.comm_kernels, ss.memcpys, ss.memsets,
                    format_duration(ss.last - ss.first).c_str());
    }
  }
  if (!t.warnings.empty()) {
    std::printf("\nwarnings\n");
    for (const auto& w : t.warnings) std::printf("  %s\n", w.c_str());
  }
}

}  // namespace

int run_info(const VerbArgs& argv) {
  const Args args(kOptions, argv);
  if (args.flag("--help")) {
    std::printf("usage: parascope-cli info [options] INPUT...\n%s", options_help(kOptions).c_str());
    return 0;
  }
  if (args.inputs().empty()) throw UsageError("no input given");
  Progress progress(args.flag("--quiet"));
  LoadOptions lo;
  lo.lenient = args.flag("--lenient");
  lo.progress = [&](const std::string& f, uint64_t d, uint64_t tot) { progress.update("reading " + f, d, tot); };
  LoadReport report;
  const Trace t = load_trace(args.inputs(), lo, &report);
  progress.finish();
  const TraceSummary s = summarize(t);
  if (args.flag("--json")) print_json(t, s, report);
  else print_text(t, s, report);
  return 0;
}

}  // namespace parascope::cli
