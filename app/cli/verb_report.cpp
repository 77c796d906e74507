// `parascope-cli report INPUT... [--whatif KNOB=VALUE ...] [--range A:B ...] -o report.{html,pdf}`:
// the report the GUI's File → Export report… writes, from the same library (app/report): machine
// and trace metadata, timeline images of the whole trace and of the chosen ranges, overlap and
// exposed communication, link utilization and the machine's links, the roofline, kernel and
// collective statistics, and with --whatif the predicted-vs-measured comparison. --csv DIR writes
// every table as CSV, --figures DIR every figure as PNG and SVG. Needs the Qt build: without Qt it
// says so and exits 2.
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "cli/cli_args.h"
#include "cli/machine_option.h"
#include "cli/progress.h"
#include "cli/verbs.h"
#include "sim/knobs.h"
#include "sim/simulation.h"
#include "trace/io/load_trace.h"

#ifdef PARASCOPE_CLI_HAS_REPORT
#include "report/report_builder.h"
#include "report/report_files.h"
#endif

namespace parascope::cli {

namespace {

const std::vector<OptionSpec> kOptions = {
    {"--output", true, false, "the report: .html (one self-contained file) or .pdf", "-o"},
    {"--whatif", true, true, "KNOB=VALUE (repeatable): add the what-if comparison for these knobs (`whatif --help` lists them)", ""},
    {"--range", true, true, "A:B (repeatable): also a timeline and overlap of this range, e.g. 1ms:2.5ms from the trace start", ""},
    {"--absolute", false, false, "--range times are on the trace clock", ""},
    {"--machine", true, false, "the machine: 'auto' (default: the trace's topology, else a preset with its GPUs), 'trace', or a preset name/file", ""},
    {"--step", true, false, "what-if steps: regex over NVTX/annotation ranges (when there is no ProfilerStep#N)", ""},
    {"--csv", true, false, "also write every table as DIR/<table>.csv", ""},
    {"--figures", true, false, "also write every figure as DIR/<figure>.png and .svg", ""},
    {"--width", true, false, "figure width in pixels (default 1200)", ""},
    {"--top", true, false, "rows the PDF shows of long tables (default 15; the HTML and CSV have all)", ""},
    {"--lenient", false, false, "skip malformed input events and report how many", ""},
    {"--quiet", false, false, "no progress", "-q"},
    {"--help", false, false, "this help", "-h"},
};

[[maybe_unused]] size_t positive(const Args& args, const std::string& name, size_t fallback) {
  const auto v = args.value(name);
  if (!v) return fallback;
  try {
    size_t used = 0;
    const long long n = std::stoll(*v, &used);
    if (used != v->size() || n < 1) throw std::invalid_argument("");
    return static_cast<size_t>(n);
  } catch (const std::exception&) {
    throw UsageError(name + " needs a positive integer, got '" + *v + "'");
  }
}

}  // namespace

int run_report(const VerbArgs& argv) {
  const Args args(kOptions, argv);
  if (args.flag("--help")) {
    std::printf("usage: parascope-cli report INPUT... [--whatif KNOB=VALUE ...] [--range A:B ...] -o report.{html,pdf}\n%s",
                options_help(kOptions).c_str());
#ifndef PARASCOPE_CLI_HAS_REPORT
    std::printf("\nThis parascope-cli was built without Qt: `report` needs the Qt build (Qt 6 Widgets, Charts, Svg).\n");
#endif
    return 0;
  }
#ifndef PARASCOPE_CLI_HAS_REPORT
  std::fprintf(stderr,
               "parascope-cli report: reports are drawn by the Qt render library, and this parascope-cli was built without Qt.\n"
               "  Install Qt 6 (Widgets, Charts, Svg; scripts/install-deps.sh) and configure with -DPARASCOPE_GUI=ON or AUTO,\n"
               "  or use `stats`, `links --csv`, `roofline --csv` and `whatif --json` for the same numbers.\n");
  return 2;
#else
  if (args.inputs().empty()) throw UsageError("no INPUT given");
  const auto out = args.value("--output");
  if (!out) throw UsageError("-o report.html or -o report.pdf is required");
  try {
    report::report_format_for(*out);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  // fail before the work, not after it
  if (const auto parent = std::filesystem::path(*out).parent_path(); !parent.empty() && !std::filesystem::is_directory(parent))
    throw std::runtime_error(*out + ": the directory " + parent.string() + " does not exist");
  report::ReportOptions ro;
  ro.inputs = args.inputs();
  for (const std::string& kv : args.values("--whatif")) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) throw UsageError("--whatif expects KNOB=VALUE, got '" + kv + "'");
    sim::knob_registry().parse(kv.substr(0, eq), kv.substr(eq + 1));  // KnobError: exit 2 with suggestions
    ro.whatif.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
  }
  ro.figure_width = static_cast<int>(std::clamp<size_t>(positive(args, "--width", 1200), 400, 4000));
  ro.top = positive(args, "--top", 15);
  if (const auto s = args.value("--step")) ro.step_regex = *s;
  const bool quiet = args.flag("--quiet");

  Progress progress(quiet);
  LoadOptions lo;
  lo.lenient = args.flag("--lenient");
  lo.progress = [&](const std::string& f, uint64_t d, uint64_t t) { progress.update("reading " + f, d, t); };
  auto trace = std::make_shared<const Trace>(load_trace(args.inputs(), lo));
  progress.finish();
  const auto [span_start, span_end] = trace->time_span();
  const int64_t base = args.flag("--absolute") ? 0 : span_start;
  for (const std::string& r : args.values("--range")) {
    const size_t colon = r.find(':');
    if (colon == std::string::npos) throw UsageError("--range expects A:B (e.g. 1ms:2.5ms), got '" + r + "'");
    const Interval w{base + parse_time("--range", r.substr(0, colon)), base + parse_time("--range", r.substr(colon + 1))};
    if (w.end <= w.start) throw UsageError("--range " + r + " is empty (B must be after A)");
    ro.ranges.push_back(w);
  }
  for (const std::string& n : sim::preset_names(topology_preset_dir())) {
    try {
      ro.presets.push_back(sim::find_topology(n, topology_preset_dir()));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "parascope-cli report: skipping preset %s: %s\n", n.c_str(), e.what());
    }
  }
  if (const auto m = args.value("--machine"); m && *m != "auto") {
    ro.machine = machine_option(*trace, *m);
    ro.match_preset = *m != "trace";  // 'trace': its own topology or the one inferred from it
  }
  if (!quiet) ro.progress = [](const std::string& what) { std::fprintf(stderr, "report: %s\n", what.c_str()); };

  const auto app = report::offscreen_application();
  const report::ReportDocument doc = report::build_report(trace, ro);
  const size_t bytes = report::write_report(doc, *out);
  size_t figures = doc.figures().size(), tables = doc.tables().size();
  std::printf("%s: %zu bytes, %zu sections, %zu tables, %zu figures\n", out->c_str(), bytes, doc.sections.size(), tables, figures);
  if (const auto dir = args.value("--csv")) {
    const auto files = report::write_report_csv(doc, *dir);
    std::printf("%s: %zu CSV files\n", dir->c_str(), files.size());
  }
  if (const auto dir = args.value("--figures")) {
    const auto files = report::write_report_figures(doc, *dir);
    std::printf("%s: %zu figure files (PNG and SVG)\n", dir->c_str(), files.size());
  }
  return 0;
#endif
}

}  // namespace parascope::cli
