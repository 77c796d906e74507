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
#include "cli/knob_options.h"
#include "cli/load_inputs.h"
#include "cli/machine_option.h"
#include "cli/verbs.h"
#include "sim/knobs.h"

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
  ro.whatif = knob_options(args, "--whatif");  // KnobError: exit 2 with suggestions
  ro.figure_width = static_cast<int>(std::clamp<int64_t>(args.integer("--width", 1200), 400, 4000));
  ro.top = static_cast<size_t>(args.integer("--top", 15));
  if (const auto s = args.value("--step")) ro.step_regex = *s;
  const bool quiet = args.flag("--quiet");
  auto trace = std::make_shared<const Trace>(load_inputs(args));
  const auto [span_start, span_end] = trace->time_span();
  const int64_t base = args.flag("--absolute") ? 0 : span_start;
  for (const std::string& r : args.values("--range")) {
    const size_t colon = r.find(':');
    if (colon == std::string::npos) throw UsageError("--range expects A:B (e.g. 1ms:2.5ms), got '" + r + "'");
    const Interval w{base + parse_time("--range", r.substr(0, colon)), base + parse_time("--range", r.substr(colon + 1))};
    if (w.end <= w.start) throw UsageError("--range " + r + " is empty (B must be after A)");
    ro.ranges.push_back(w);
  }
  ro.presets = cli_presets();
  ro.machine = args.value("--machine").value_or("auto");
  if (ro.machine != "auto" && ro.machine != "trace") machine_option(*trace, {ro.machine});  // a bad name: exit 2 now
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
