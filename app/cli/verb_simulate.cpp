// `parascope-cli simulate --topology NAME|PATH --workload PATH|SPEC [--set k=v ...] [--sweep k=v1,v2]
// [-o OUT] [--json]`: runs the interconnect simulator and prints the simulated time, algbw/busbw per
// step and per-link peak/mean utilization. -o writes the simulated trace: .pstrace (the native
// format, through trace/io's write_pstrace: kernels, SM lanes, link counters, collective summaries)
// or .json (Chrome trace); with --sweep, -o names a folder that gets one .pstrace per value and
// summary.csv.
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

#include "cli/cli_args.h"
#include "cli/knob_options.h"
#include "cli/verbs.h"
#include "sim/simulation.h"
#include "sim/workload_spec.h"
#include "trace/core/data_table.h"
#include "trace/core/json.h"
#include "trace/core/topology_presets.h"
#include "trace/io/common/atomic_file.h"
#include "trace/io/pstrace/pstrace_writer.h"

namespace parascope::cli {

namespace {

const std::vector<OptionSpec> kOptions = {
    {"--topology", true, false, "preset name (resources/topologies) or topology JSON file", "-t"},
    {"--workload", true, false, "workload JSON file or SPEC, e.g. allreduce:algo=ring,bytes=1GiB,gpus=8", "-w"},
    {"--set", true, true, "knob=value (repeatable; `parascope-cli knobs` lists them)", ""},
    {"--sweep", true, false, "knob=v1,v2,... : one simulation per value", ""},
    {"--output", true, false, "trace file (.json: Chrome trace), or a folder with --sweep", "-o"},
    {"--links", true, false, "how many links to list (busiest first; default 8, 0: all)", ""},
    {"--json", false, false, "machine-readable output (with schema_version)", ""},
    {"--help", false, false, "this help", "-h"},
};

constexpr int kSimulateSchemaVersion = 1;

std::string gbps(double bytes_per_s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GB/s", bytes_per_s / 1e9);
  return buf;
}

std::string bytes_text(double b) { return sim::format_bytes(static_cast<int64_t>(b + 0.5)); }

// A minimal Chrome trace-event writer for the simulated trace until trace/io has its exporters. It
// writes what the Kineto reader understands: kernels as "kernel" X events with device and stream
// args (tid = stream), SM spans as X events on one thread per SM lane, link loads as C events.
// Atomic (AtomicFile): a failed write leaves nothing under `path`.
void write_chrome_json(const Trace& t, const std::string& path) {
  AtomicFile file(path);
  std::ostringstream out;
  out << "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"source\":\"parascope simulate\"},\"traceEvents\":[\n";
  bool first = true;
  auto us = [](TimeNs ns) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%" PRId64 ".%03" PRId64, ns / 1000, (ns % 1000 + 1000) % 1000);
    return std::string(buf);
  };
  auto sep = [&]() -> std::ostream& {
    if (out.tellp() > (1 << 20)) {  // hand full megabytes to the file
      file.write(out.str());
      out.str("");
    }
    if (!first) out << ",\n";
    first = false;
    return out;
  };
  constexpr int64_t kSmTidBase = 1'000'000;  // SM lane n -> tid 1000000 + n
  for (size_t p = 0; p < t.processes.size(); ++p)
    sep() << "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" << p << ",\"args\":{\"name\":" << json_quote(t.processes[p].name) << "}}";
  for (const Track& tr : t.tracks) {
    if (tr.key.kind == TrackKind::kLink) {
      for (size_t i = 0; i < tr.counter.size(); ++i)
        sep() << "{\"ph\":\"C\",\"name\":" << json_quote(t.str(tr.name)) << ",\"pid\":" << tr.key.process << ",\"ts\":"
              << us(tr.counter.time[i]) << ",\"args\":{\"bytes/s\":" << tr.counter.value[i] << "}}";
      continue;
    }
    const bool lane = tr.key.kind == TrackKind::kSmLane;
    const int64_t tid = lane ? kSmTidBase + tr.key.id : tr.key.id;
    if (lane)
      sep() << "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" << tr.key.process << ",\"tid\":" << tid
            << ",\"args\":{\"name\":" << json_quote(t.str(tr.name)) << "}}";
    for (size_t i = 0; i < tr.slices.size(); ++i) {
      sep() << "{\"ph\":\"X\",\"cat\":\"" << (lane ? "sm_span" : "kernel") << "\",\"name\":" << json_quote(t.str(tr.slices.name[i]))
            << ",\"pid\":" << tr.key.process << ",\"tid\":" << tid << ",\"ts\":" << us(tr.slices.start[i])
            << ",\"dur\":" << us(tr.slices.dur[i]) << ",\"args\":{";
      if (!lane) out << "\"device\":" << t.devices[tr.key.device].ordinal << ",\"stream\":" << tr.key.id;
      bool first_arg = lane;
      if (const uint32_t set = tr.slices.args_of(i); set != kNone32) {
        for (const Arg& a : t.args.get(set)) {
          out << (first_arg ? "" : ",") << json_quote(t.str(a.key)) << ":";
          if (a.value.type == ArgValue::Type::kDouble) out << a.value.d;
          else if (a.value.type == ArgValue::Type::kBool) out << (a.value.b ? "true" : "false");
          else out << json_quote(format_arg(t.strings, a.value));
          first_arg = false;
        }
      }
      out << "}}";
    }
  }
  out << "\n]}\n";
  file.write(out.str());
  file.commit();
}

void write_trace(const Trace& t, const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".json") return write_chrome_json(t, path);
  if (ext == ".pstrace") return write_pstrace(t, path);
  throw UsageError("-o " + path + ": unknown trace format '" + ext + "' (use .pstrace or .json)");
}

JsonValue summary_json(const sim::SimSummary& s, size_t link_limit) {
  JsonValue steps = JsonValue::array();
  for (const auto& c : s.collectives)
    steps.push(JsonValue::object({{"index", JsonValue::number(static_cast<int64_t>(c.index))},
                                  {"op", JsonValue::string(c.name)},
                                  {"algorithm", JsonValue::string(c.algorithm)},
                                  {"bytes", JsonValue::number(c.bytes)},
                                  {"gpus", JsonValue::number(static_cast<int64_t>(c.gpus))},
                                  {"stream", JsonValue::number(static_cast<int64_t>(c.stream))},
                                  {"start_ns", JsonValue::number(static_cast<double>(c.start) / 1000)},
                                  {"time_ns", JsonValue::number(static_cast<double>(c.end - c.start) / 1000)},
                                  {"algbw_GBps", JsonValue::number(c.algbw / 1e9)},
                                  {"busbw_GBps", JsonValue::number(c.busbw / 1e9)}}));
  JsonValue links = JsonValue::array();
  for (size_t i = 0; i < s.resources.size() && (link_limit == 0 || i < link_limit); ++i) {
    const auto& r = s.resources[i];
    links.push(JsonValue::object({{"name", JsonValue::string(r.name)},
                                  {"kind", JsonValue::string(std::string(sim::to_string(r.kind)))},
                                  {"capacity_GBps", JsonValue::number(r.capacity / 1e9)},
                                  {"bytes", JsonValue::number(r.bytes)},
                                  {"peak_GBps", JsonValue::number(r.peak / 1e9)},
                                  {"peak_utilization", JsonValue::number(r.peak_utilization)},
                                  {"mean_utilization", JsonValue::number(r.mean_utilization)}}));
  }
  JsonValue warnings = JsonValue::array();
  for (const auto& w : s.warnings) warnings.push(JsonValue::string(w));
  return JsonValue::object({{"time_ns", JsonValue::number(static_cast<double>(s.makespan) / 1000)},
                            {"messages", JsonValue::number(static_cast<int64_t>(s.messages))},
                            {"steps", std::move(steps)},
                            {"links", std::move(links)},
                            {"warnings", std::move(warnings)}});
}

void print_text(const sim::SimSummary& s, size_t link_limit) {
  std::printf("simulated time %s  (%" PRIu64 " messages)\n", format_duration(ps_to_ns(s.makespan)).c_str(), s.messages);
  std::printf("  %-4s %-20s %-9s %-8s %-5s %-6s %-11s %-11s %s\n", "step", "op", "algo", "bytes", "gpus", "stream", "time", "algbw",
              "busbw");
  for (const auto& c : s.collectives)
    std::printf("  %-4u %-20s %-9s %-8s %-5d %-6u %-11s %-11s %s\n", c.index, c.name.c_str(), c.algorithm.c_str(),
                c.compute ? "-" : bytes_text(c.bytes).c_str(), c.gpus, c.stream, format_duration(ps_to_ns(c.end - c.start)).c_str(),
                c.compute ? "-" : gbps(c.algbw).c_str(), c.compute ? "-" : gbps(c.busbw).c_str());
  if (!s.resources.empty()) {
    std::printf("links and resources (busiest first): capacity, peak, mean utilization\n");
    for (size_t i = 0; i < s.resources.size() && (link_limit == 0 || i < link_limit); ++i) {
      const auto& r = s.resources[i];
      std::printf("  %-32s %-9s %11s  peak %5.1f %%  mean %5.1f %%  %s\n", r.name.c_str(), std::string(sim::to_string(r.kind)).c_str(),
                  gbps(r.capacity).c_str(), 100 * r.peak_utilization, 100 * r.mean_utilization, format_bytes_decimal(r.bytes).c_str());
    }
    if (link_limit && s.resources.size() > link_limit)
      std::printf("  ... %zu more (--links 0 lists all)\n", s.resources.size() - link_limit);
  }
  for (const auto& w : s.warnings) std::printf("warning: %s\n", w.c_str());
}

void sort_resources(sim::SimSummary& s) {
  std::stable_sort(s.resources.begin(), s.resources.end(),
                   [](const auto& a, const auto& b) { return a.mean_utilization > b.mean_utilization; });
}

}  // namespace

int run_simulate(const VerbArgs& argv) {
  const Args args(kOptions, argv);
  if (args.flag("--help")) {
    std::printf("usage: parascope-cli simulate --topology NAME|PATH --workload PATH|SPEC [options]\n%s\npresets:",
                options_help(kOptions).c_str());
    for (const auto& n : preset_names()) std::printf(" %s", n.c_str());
    std::printf("\nworkload ops:");
    for (const auto& o : sim::workload_ops()) std::printf(" %s", o.c_str());
    std::printf("\n");
    return 0;
  }
  if (!args.inputs().empty()) throw UsageError("unexpected argument '" + args.inputs().front() + "'");
  const auto topo_arg = args.value("--topology");
  const auto work_arg = args.value("--workload");
  if (!topo_arg) throw UsageError("--topology is required");
  if (!work_arg) throw UsageError("--workload is required");
  const auto link_limit = static_cast<size_t>(args.integer("--links", 8, 0));

  sim::SimulationInput in;
  try {
    in.topology = find_topology(*topo_arg);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  in.steps = sim::parse_workload(*work_arg);
  in.overrides = knob_options(args, "--set");
  const auto out_path = args.value("--output");
  const bool json = args.flag("--json");

  std::vector<sim::KnobValue> sweep_values;
  std::string sweep_name;
  if (const auto sw = args.value("--sweep")) {
    std::tie(sweep_name, sweep_values) = sim::parse_sweep(sim::knob_registry(), *sw);
    if (out_path) std::filesystem::create_directories(*out_path);
  }

  auto run_one = [&](const sim::KnobSettings& extra, const std::string& trace_path, double& wall) {
    sim::SimulationInput one = in;
    one.overrides.merge(extra);
    one.want_trace = !trace_path.empty();
    const auto t0 = std::chrono::steady_clock::now();
    sim::SimulationOutput out = sim::run_simulation(one);
    wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    sort_resources(out.summary);
    if (out.trace) write_trace(*out.trace, trace_path);
    return out;
  };

  const std::string calib = std::string(to_string(in.topology.calibration));
  if (sweep_values.empty()) {
    double wall = 0;
    const sim::SimulationOutput out = run_one({}, out_path.value_or(""), wall);
    if (json) {
      JsonValue doc = summary_json(out.summary, link_limit);
      doc.set("schema_version", JsonValue::number(static_cast<int64_t>(kSimulateSchemaVersion)));
      doc.set("topology", JsonValue::string(in.topology.name));
      doc.set("calibration", JsonValue::string(calib));
      doc.set("workload", JsonValue::string(*work_arg));
      doc.set("wall_seconds", JsonValue::number(wall));
      std::printf("%s\n", to_json(doc, 2).c_str());
    } else {
      std::printf("topology %s (%s, %zu GPUs)  workload %s\n", in.topology.name.c_str(), calib.c_str(), in.topology.gpu_count(),
                  work_arg->c_str());
      print_text(out.summary, link_limit);
      std::printf("wall time %.3f s\n", wall);
      if (out_path) std::printf("trace written to %s\n", out_path->c_str());
    }
    return 0;
  }

  // Sweep: one simulation per value; a table (or JSON array), and with -o a trace per value + CSV.
  JsonValue runs = JsonValue::array();
  std::string csv = sweep_name + ",time_ns,step0_algbw_GBps,step0_busbw_GBps,messages,wall_seconds\n";
  if (!json) std::printf("topology %s (%s)  workload %s  sweep %s\n  %-12s %-11s %-11s %-11s\n", in.topology.name.c_str(), calib.c_str(),
                         work_arg->c_str(), sweep_name.c_str(), sweep_name.c_str(), "time", "algbw", "busbw");
  for (const sim::KnobValue& value : sweep_values) {
    const std::string v = sim::knob_registry().format(sweep_name, value);
    sim::KnobSettings point;
    point.set_value(sweep_name, value);
    std::string trace_path;
    if (out_path) trace_path = (std::filesystem::path(*out_path) / (sweep_name + "=" + v + ".pstrace")).string();
    double wall = 0;
    const sim::SimulationOutput out = run_one(point, trace_path, wall);
    const auto& s = out.summary;
    const double algbw = s.collectives.empty() ? 0 : s.collectives[0].algbw, busbw = s.collectives.empty() ? 0 : s.collectives[0].busbw;
    char line[256];
    std::snprintf(line, sizeof line, "%s,%.3f,%.3f,%.3f,%" PRIu64 ",%.4f\n", v.c_str(), static_cast<double>(s.makespan) / 1000, algbw / 1e9,
                  busbw / 1e9, s.messages, wall);
    csv += line;
    if (json) {
      JsonValue run = summary_json(s, link_limit);
      run.set("value", JsonValue::string(v));
      run.set("wall_seconds", JsonValue::number(wall));
      runs.push(std::move(run));
    } else {
      std::printf("  %-12s %-11s %-11s %-11s\n", v.c_str(), format_duration(ps_to_ns(s.makespan)).c_str(), gbps(algbw).c_str(),
                  gbps(busbw).c_str());
    }
  }
  if (out_path) {
    AtomicFile summary((std::filesystem::path(*out_path) / "summary.csv").string());
    summary.write(csv);
    summary.commit();
    if (!json) std::printf("traces and summary.csv written to %s\n", out_path->c_str());
  }
  if (json)
    std::printf("%s\n", to_json(JsonValue::object({{"schema_version", JsonValue::number(static_cast<int64_t>(kSimulateSchemaVersion))},
                                                   {"topology", JsonValue::string(in.topology.name)},
                                                   {"calibration", JsonValue::string(calib)},
                                                   {"workload", JsonValue::string(*work_arg)},
                                                   {"sweep", JsonValue::string(sweep_name)},
                                                   {"runs", std::move(runs)}}),
                                2)
                            .c_str());
  return 0;
}

}  // namespace parascope::cli
