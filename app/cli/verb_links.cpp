// `parascope-cli links INPUT... [--from T --to T]`: per link and direction, the bytes/s statistics
// the GUI's link dock shows (link_stats.h) — capacity, peak, mean, p50/p90/p99, utilization, bytes —
// for every counter series: measured (the collector's NVLink counters), simulated (a simulated
// trace's links) and estimated (from peer copies and collective sizes, unless --no-estimates).
#include <cstdio>
#include <filesystem>
#include <optional>

#include "cli/cli_args.h"
#include "cli/load_inputs.h"
#include "cli/machine_option.h"
#include "cli/table_output.h"
#include "cli/verbs.h"
#include "trace/core/analysis/link_stats.h"
#include "trace/core/trace_machine.h"

namespace parascope::cli {

namespace {

const std::vector<OptionSpec> kOptions = {
    {"--from", true, false, "window start (relative to the trace start unless --absolute), e.g. 1.5ms", ""},
    {"--to", true, false, "window end; default: the trace end", ""},
    {"--absolute", false, false, "--from/--to are on the trace clock", ""},
    {"--no-estimates", false, false, "only the trace's own link counters (no estimate from copies and collectives)", ""},
    {"--machine", true, false, "also per topology link: 'trace' (its own or inferred), 'auto' (a preset matching its GPUs), or a preset name/file", ""},
    {"--csv", true, false, "also write the table as CSV to this file (with --machine, the topology table to FILE's stem + _topology.csv)", ""},
    {"--json", false, false, "machine-readable output (with schema_version)", ""},
    {"--lenient", false, false, "skip malformed input events and report how many", ""},
    {"--quiet", false, false, "no progress bar", "-q"},
    {"--help", false, false, "this help", "-h"},
};

constexpr int kLinksSchemaVersion = 1;

}  // namespace

int run_links(const VerbArgs& argv) {
  const Args args(kOptions, argv);
  if (args.flag("--help")) {
    std::printf("usage: parascope-cli links [options] INPUT...\n%s", options_help(kOptions).c_str());
    return 0;
  }
  const Trace t = load_inputs(args);
  const auto [span_start, span_end] = t.time_span();
  const TimeWindow w = parse_window(args, span_start, span_end, args.flag("--absolute"));
  const std::vector<LinkCounter> counters = link_counters(t, !args.flag("--no-estimates"));
  // capacities from the machine the trace is matched to (the GUI's and the report's), --machine's when given
  const TraceMachine machine = trace_machine(t, machine_option(t, {args.value("--machine").value_or("")}));
  const DataTable table = link_stats_table(counters, link_stats(counters, {w.start, w.end}, counter_capacities(machine, counters)));
  if (const auto csv = args.value("--csv")) write_csv(table, *csv);
  std::optional<DataTable> topo_table;
  std::string machine_name;
  if (args.value("--machine")) {
    machine_name = machine.topology.name;
    topo_table = topology_link_table(machine, topology_link_loads(machine, counters, {w.start, w.end}));
    if (const auto csv = args.value("--csv")) {
      const std::filesystem::path p(*csv);
      write_csv(*topo_table, (p.parent_path() / (p.stem().string() + "_topology.csv")).string());
    }
  }
  if (args.flag("--json")) {
    JsonValue doc = JsonValue::object({{"schema_version", JsonValue::number(int64_t{kLinksSchemaVersion})},
                                       {"window_start_ns", JsonValue::number(w.start)},
                                       {"window_end_ns", JsonValue::number(w.end)},
                                       {"links", table_json(table)}});
    if (topo_table) {
      doc.set("machine", JsonValue::string(machine_name));
      doc.set("topology_links", table_json(*topo_table));
    }
    std::printf("%s\n", to_json(doc, 1).c_str());
    return 0;
  }
  std::printf("window %s .. %s (%s)\n", format_duration(w.start - span_start).c_str(), format_duration(w.end - span_start).c_str(),
              format_duration(w.end - w.start).c_str());
  std::printf("%s", render_text(table).c_str());
  if (counters.empty()) std::printf("  no link counters, peer copies or sized collectives in this trace\n");
  if (topo_table) std::printf("\nmachine %s\n%s", machine_name.c_str(), render_text(*topo_table).c_str());
  return 0;
}

}  // namespace parascope::cli
