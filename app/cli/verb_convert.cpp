// `parascope-cli convert INPUT... -o OUT`: reads any supported input and writes OUT in the format
// its extension names (.pstrace, .json, .json.gz, .pftrace, .sqlite, .csv). Exports are atomic:
// OUT appears only when complete.
#include <cstdio>

#include "cli/cli_args.h"
#include "cli/load_inputs.h"
#include "cli/progress.h"
#include "cli/trace_messages.h"
#include "cli/verbs.h"
#include "trace/core/analysis/link_traffic.h"
#include "trace/io/export/trace_writer.h"

namespace parascope::cli {

namespace {

const std::vector<OptionSpec> kOptions = {
    {"--output", true, false, "output file; its extension picks the format (.json .json.gz .pftrace .sqlite .csv)", "-o"},
    {"--merged", false, false, "JSON: one file holding every rank (for viewers) instead of one file per rank", ""},
    {"--table", true, false, "CSV: which table, slices (default) or kernel-stats", ""},
    {"--estimate-links", false, false, "add estimated per-link bytes/s counter tracks (peer copies, collectives)", ""},
    {"--link-bandwidth", true, false, "link capacity in GB/s per direction for --estimate-links utilization", ""},
    {"--lenient", false, false, "skip malformed input events and report how many", ""},
    {"--quiet", false, false, "no progress bar", "-q"},
    {"--verbose", false, false, "list the trace's notes (how it was made) on stderr, not only their count", "-v"},
    {"--help", false, false, "this help", "-h"},
};

double parse_positive(const std::string& option, const std::string& text) {
  try {
    size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && v > 0) return v;
  } catch (const std::exception&) {
  }
  throw UsageError(option + " needs a positive number, got '" + text + "'");
}

}  // namespace

int run_convert(const VerbArgs& argv) {
  const Args args(kOptions, argv);
  if (args.flag("--help")) {
    std::printf(
        "usage: parascope-cli convert [options] INPUT... -o OUT\n"
        "  JSON output keeps the per-rank layout PyTorch writes: one file per input file, named\n"
        "  OUT with .rank<R> before the extension when there are several (--merged: one file).\n"
        "  The trace's warnings go to stderr; its notes (how it was made) are counted there, listed with -v.\n%s",
        options_help(kOptions).c_str());
    return 0;
  }
  if (args.inputs().empty()) throw UsageError("no input given");
  const auto out = args.value("--output");
  if (!out) throw UsageError("no output given (-o OUT)");
  ExportOptions eo;
  eo.merged_json = args.flag("--merged");
  const ExportFormat format = export_format_from_path(*out);
  if (const auto table = args.value("--table")) {
    if (format != ExportFormat::kCsv) throw UsageError("--table applies to .csv output only");
    if (*table == "slices") eo.csv_table = CsvTable::kSlices;
    else if (*table == "kernel-stats") eo.csv_table = CsvTable::kKernelStats;
    else throw UsageError("--table must be slices or kernel-stats, got '" + *table + "'");
  }
  if (eo.merged_json && format != ExportFormat::kChromeJson) throw UsageError("--merged applies to .json output only");
  std::string why;
  if (!export_available(format, &why)) throw UsageError(*out + ": " + why);

  Trace trace = load_inputs(args);
  if (args.flag("--estimate-links")) {
    LinkTrafficOptions lto;
    if (const auto bw = args.value("--link-bandwidth")) lto.capacity_bytes_per_s = parse_positive("--link-bandwidth", *bw) * 1e9;
    const size_t added = append_link_counter_tracks(trace, estimate_link_traffic(trace, lto));
    std::fprintf(stderr, "added %zu estimated link counter track%s\n", added, added == 1 ? "" : "s");
  } else if (args.value("--link-bandwidth")) {
    throw UsageError("--link-bandwidth needs --estimate-links");
  }
  Progress writing(args.flag("--quiet"));
  eo.progress = [&](uint64_t d, uint64_t t) { writing.update("writing " + *out, d, t); };
  const ExportResult r = write_trace(trace, *out, eo);
  writing.finish();
  for (const std::string& f : r.files) std::printf("wrote %s (%s)\n", f.c_str(), std::string(to_string(r.format)).c_str());
  say_warnings_and_notes(trace, args.flag("--verbose"));
  for (const std::string& w : r.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  return 0;
}

}  // namespace parascope::cli
