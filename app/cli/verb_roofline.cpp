// `parascope-cli roofline INPUT... [--machine auto|trace|NAME]`: every kernel name placed against
// the compute, HBM and link ceilings of the machine (roofline.h) — achieved FLOP/s, intensities,
// attainable, bound, and where the FLOP count came from — as the GUI's roofline dock shows it.
#include <cstdio>

#include "cli/cli_args.h"
#include "cli/load_inputs.h"
#include "cli/machine_option.h"
#include "cli/table_output.h"
#include "cli/verbs.h"
#include "trace/core/analysis/roofline.h"

namespace parascope::cli {

namespace {

const std::vector<OptionSpec> kOptions = {
    {"--machine", true, false, "ceilings from: 'auto' (default: the trace's topology, else a preset with its GPUs), 'trace', or a preset name/file", ""},
    {"--top", true, false, "rows in text output (default 20; --json and --csv have all)", ""},
    {"--csv", true, false, "also write the table as CSV to this file", ""},
    {"--json", false, false, "machine-readable output (with schema_version)", ""},
    {"--lenient", false, false, "skip malformed input events and report how many", ""},
    {"--quiet", false, false, "no progress bar", "-q"},
    {"--help", false, false, "this help", "-h"},
};

constexpr int kRooflineSchemaVersion = 1;

}  // namespace

int run_roofline(const VerbArgs& argv) {
  const Args args(kOptions, argv);
  if (args.flag("--help")) {
    std::printf("usage: parascope-cli roofline [options] INPUT...\n%s", options_help(kOptions).c_str());
    return 0;
  }
  const auto top = static_cast<size_t>(args.integer("--top", 20));
  const Trace t = load_inputs(args);
  const TraceMachine machine = trace_machine(t, machine_option(t, {args.value("--machine").value_or("auto")}));
  std::vector<Topology> others;
  for (const Preset& p : cli_presets()) others.push_back(p.topology);
  const RooflineCeilings ceilings = ceilings_with_datasheet(machine.topology, others);
  const Roofline r = compute_roofline(t, ceilings);
  const DataTable table = roofline_table(t, r);
  if (const auto csv = args.value("--csv")) write_csv(table, *csv);
  if (args.flag("--json")) {
    JsonValue doc = JsonValue::object({{"schema_version", JsonValue::number(int64_t{kRooflineSchemaVersion})},
                                       {"machine", JsonValue::string(machine.topology.name)},
                                       {"ceilings", JsonValue::object({{"gpu", JsonValue::string(ceilings.gpu)},
                                                                       {"bf16_flops_per_s", JsonValue::number(ceilings.bf16_flops)},
                                                                       {"fp32_flops_per_s", JsonValue::number(ceilings.fp32_flops)},
                                                                       {"hbm_bytes_per_s", JsonValue::number(ceilings.hbm_bytes_per_s)},
                                                                       {"link_bytes_per_s", JsonValue::number(ceilings.link_bytes_per_s)},
                                                                       {"peaks_from", JsonValue::string(ceilings.peaks_from)}})},
                                       {"kernels", JsonValue::number(r.kernels)},
                                       {"kernels_with_flops", JsonValue::number(r.kernels_with_flops)},
                                       {"kernels_in_op_ranges_without_shapes", JsonValue::number(r.kernels_in_ops_without_shapes)},
                                       {"roofline", table_json(table)}});
    std::printf("%s\n", to_json(doc, 1).c_str());
    return 0;
  }
  DataTable shown = table;
  if (shown.rows.size() > top) shown.rows.resize(top);
  std::printf("%s", render_text(shown, 50).c_str());
  if (table.rows.size() > top) std::printf("  (%zu more; --csv or --json lists all)\n", table.rows.size() - top);
  return 0;
}

}  // namespace parascope::cli
