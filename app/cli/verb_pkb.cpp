// `parascope-cli pkb run|report|solutions|eval`: ParallelKernelBench as Parascope's workload suite
// (docs/pkb.md). `run` drives PKB's own harness under the collector into a suite folder; `report`
// prints what the pkb library (app/pkb) computes per task: PKB's time and where it goes, the task's
// operations, its communication-aware roofline bound and the simulator's design-space exploration
// (text, CSV, or --json for tools); `solutions` writes a PKB "cuda" solutions folder calling
// Parascope's kernels with their predicted speed-ups; `eval` runs PKB's eval on such a folder.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "cli/cli_args.h"
#include "cli/progress.h"
#include "cli/verbs.h"
#include "cli/table_output.h"
#include "pkb/report/suite_report.h"
#include "pkb/solutions/pkb_eval.h"
#include "pkb/solutions/solution_set.h"
#include "pkb/suite/pkb_runner.h"
#include "trace/core/topology_presets.h"

namespace parascope::cli {

namespace {

namespace fs = std::filesystem;

const std::vector<OptionSpec> kRunOptions = {
    {"--pkb", true, false, "the ParallelKernelBench checkout (its run_local.py is what runs)", ""},
    {"--output", true, false, "the suite folder (created; an existing one is resumed)", "-o"},
    {"--problems", true, false, "task numbers, e.g. 1-87 (default) or 1,2,7-8", ""},
    {"--world", true, false, "ranks per task (torchrun --nproc-per-node; default 1)", ""},
    {"--one-gpu", false, false, "each reference as rank 0 of a world of --world N on this GPU (record --world N --rank 0: PKB's worker.py "
                                  "under the stand-in process group; compute measured, collectives recorded, none run)", ""},
    {"--timeout", true, false, "seconds per task before its process tree is ended (default 60)", ""},
    {"--deadline", true, false, "seconds for the whole run: no task starts that could end after it (default none)", ""},
    {"--retry-failed", false, false, "run tasks again that failed before (finished ones are always skipped)", ""},
    {"--keep-record", false, false, "keep each task's whole record/ folder beside its cut trace", ""},
    {"--python", true, false, "the Python that runs PKB (default python3)", ""},
    {"--launcher", true, false, "run_local (default: PKB's run_local.py -> torchrun -> worker.py) or direct (world 1: "
                                "worker.py with torchrun's environment, a few seconds less per task)", ""},
    {"--m", true, false, "PKB's --m (default 1024)", ""},
    {"--n", true, false, "PKB's --n (default 1024)", ""},
    {"--dtype", true, false, "PKB's --dtype (default bfloat16)", ""},
    {"--kinds", true, false, "the collector's --kinds (default: record's default)", ""},
    {"--no-shapes", false, false, "do not record op shapes of the first call (no shape hook)", ""},
    {"--quiet", false, false, "no progress bar and no per-task lines", "-q"},
    {"--help", false, false, "this help", "-h"},
};

std::string self_exe() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("parascope-cli") : p.string();
}

int int_value(const Args& a, const char* name, int def, int lo, int hi) {
  const auto v = a.value(name);
  if (!v) return def;
  char* end = nullptr;
  const long x = std::strtol(v->c_str(), &end, 10);
  if (end == v->c_str() || *end || x < lo || x > hi)
    throw UsageError(std::string(name) + " '" + *v + "' is not an integer in " + std::to_string(lo) + ".." + std::to_string(hi));
  return static_cast<int>(x);
}

double seconds_value(const Args& a, const char* name, double def) {
  const auto v = a.value(name);
  if (!v) return def;
  char* end = nullptr;
  const double x = std::strtod(v->c_str(), &end);
  if (end == v->c_str() || *end || !(x > 0)) throw UsageError(std::string(name) + " '" + *v + "' is not a positive number of seconds");
  return x;
}

int pkb_run(const VerbArgs& argv) {
  const Args args(kRunOptions, argv);
  if (args.flag("--help")) {
    std::printf("usage: parascope-cli pkb run --pkb DIR -o SUITE [options]\n%s", options_help(kRunOptions).c_str());
    return 0;
  }
  if (!args.inputs().empty()) throw UsageError("unexpected argument '" + args.inputs().front() + "'");
  const auto pkb = args.value("--pkb");
  const auto out = args.value("--output");
  if (!pkb) throw UsageError("--pkb DIR is required");
  if (!out) throw UsageError("-o SUITE is required");
  pkb::RunOptions o;
  o.checkout = pkb::open_pkb_checkout(*pkb);
  std::set<int> ids;
  try {
    ids = pkb::parse_problem_range(args.value("--problems").value_or("1-87"));
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  o.tasks = pkb::select_tasks(o.checkout, ids);
  if (o.tasks.empty()) throw UsageError("no task of " + o.checkout.root + " has a number in --problems");
  o.suite_dir = fs::absolute(*out).string();
  o.world = int_value(args, "--world", 1, 1, 1024);
  o.one_gpu = args.flag("--one-gpu");
  o.m = int_value(args, "--m", 1024, 1, 1 << 24);
  o.n = int_value(args, "--n", 1024, 1, 1 << 24);
  o.dtype = args.value("--dtype").value_or("bfloat16");
  o.python = args.value("--python").value_or("python3");
  o.cli = self_exe();
  o.timeout_s = seconds_value(args, "--timeout", 60);
  o.deadline_s = args.value("--deadline") ? seconds_value(args, "--deadline", 0) : 0;
  o.retry_failed = args.flag("--retry-failed");
  o.keep_record = args.flag("--keep-record");
  if (!args.flag("--no-shapes")) o.hook_dir = resources_dir() + "/pkb/python";
  if (const auto k = args.value("--kinds")) o.record_args = {"--kinds", *k};
  const std::string launcher = args.value("--launcher").value_or("run_local");
  if (launcher != "run_local" && launcher != "direct") throw UsageError("--launcher must be run_local or direct");
  o.launcher = launcher == "direct" ? pkb::Launcher::kDirect : pkb::Launcher::kRunLocal;
  if (o.launcher == pkb::Launcher::kDirect && o.world != 1 && !o.one_gpu)
    throw UsageError("--launcher direct runs world 1 only (or with --one-gpu)");

  const bool quiet = args.flag("--quiet");
  Progress progress(quiet || !::isatty(STDERR_FILENO));
  pkb::RunEvents ev;
  ev.started = [&](size_t i, size_t n, const pkb::PkbTask& t) { progress.update("task " + t.stem, i, n); };
  ev.skipped = [&](size_t i, size_t n, const pkb::PkbTask& t) {
    if (!quiet) std::fprintf(stderr, "[%zu/%zu] %-44s already in the suite\n", i + 1, n, t.stem.c_str());
  };
  ev.finished = [&](size_t i, size_t n, const pkb::TaskRecord& r) {
    progress.finish();
    if (quiet) return;
    if (r.status == pkb::TaskStatus::kOk)
      std::fprintf(stderr, "[%zu/%zu] %-44s ok      %5.1f s  trace %s%s\n", i + 1, n, r.stem.c_str(), r.wall_s,
                   r.trace.empty() ? "none" : r.trace.c_str(), r.window.found ? "" : " (timed loop not found)");
    else
      std::fprintf(stderr, "[%zu/%zu] %-44s FAILED  %5.1f s  %s\n", i + 1, n, r.stem.c_str(), r.wall_s, r.reason.c_str());
    std::fflush(stderr);
  };
  const pkb::RunSummary s = pkb::run_suite(o, ev);
  progress.finish();
  std::fprintf(stderr, "pkb run: %d ok, %d failed, %d already in %s, %d not run (deadline)%s\n", s.ok, s.failed, s.skipped,
               o.suite_dir.c_str(), s.not_run, s.not_run ? ": run the same command again to continue" : "");
  return s.not_run ? 3 : 0;
}


const std::vector<OptionSpec> kReportOptions = {
    {"--topology", true, false, "the machine: a preset (h200x2, hgx_h200x8, ...), a topology file, or auto (default: the "
                                "preset with the traces' GPUs)", ""},
    {"--task", true, false, "details of these tasks (numbers, e.g. 12 or 1-8): where the time goes, operations, designs", ""},
    {"--no-designs", false, false, "skip the design-space exploration (no simulations)", ""},
    {"--csv", true, false, "write every table as CSV into this folder", ""},
    {"--json", false, false, "the whole report as JSON (schema_version 1; fields in docs/pkb.md)", ""},
    {"--quiet", false, false, "no progress bar", "-q"},
    {"--help", false, false, "this help", "-h"},
};

int pkb_report(const VerbArgs& argv) {
  const Args args(kReportOptions, argv);
  if (args.flag("--help")) {
    std::printf("usage: parascope-cli pkb report SUITE [options]\n%s", options_help(kReportOptions).c_str());
    return 0;
  }
  if (args.inputs().size() != 1) throw UsageError("one SUITE folder expected");
  pkb::ReportOptions o;
  o.machine = args.value("--topology").value_or("auto");
  o.preset_dir = topology_preset_dir();
  o.explore = !args.flag("--no-designs");
  std::set<int> details;
  if (const auto t = args.value("--task")) {
    try {
      details = pkb::parse_problem_range(*t);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  Progress progress(args.flag("--quiet") || args.flag("--json"));
  o.progress = [&](size_t d, size_t n, const std::string& stem) { progress.update("analysing " + stem, d, n); };
  pkb::SuiteReport r;
  try {
    r = pkb::build_suite_report(args.inputs().front(), o);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  progress.finish();
  if (const auto dir = args.value("--csv")) {
    std::error_code ec;
    fs::create_directories(*dir, ec);
    write_csv(pkb::suite_table(r), *dir + "/pkb_suite.csv");
    for (const auto& t : r.tasks) {
      if (!t.analyzed) continue;
      write_csv(pkb::operations_table(t), *dir + "/" + t.record.stem + "_operations.csv");
      write_csv(pkb::breakdown_table(t), *dir + "/" + t.record.stem + "_breakdown.csv");
      write_csv(pkb::designs_table(t), *dir + "/" + t.record.stem + "_designs.csv");
    }
  }
  if (args.flag("--json")) {
    std::printf("%s\n", to_json(pkb::suite_report_json(r), 1).c_str());
    return 0;
  }
  std::printf("suite %s: world %d, %dx%d %s, %d ok, %d failed; machine %s (%s)\n", r.suite_dir.c_str(), r.suite.world,
              r.suite.m, r.suite.n, r.suite.dtype.c_str(), r.ok, r.failed, r.machine.c_str(), r.ceilings.gpu.c_str());
  std::printf("%s", render_text(pkb::suite_table(r), 48).c_str());
  for (const auto& t : r.tasks) {
    if (!details.count(t.record.id)) continue;
    std::printf("\n== %s: PKB %.3f ms per call (%d timed iterations after %d warm-up)\n", t.record.stem.c_str(),
                t.perf.wall_time_ms_max, t.perf.iterations, t.perf.warmup_iterations);
    if (!t.analyzed) {
      std::printf("  %s\n", t.record.status == pkb::TaskStatus::kOk ? t.analysis_note.c_str() : t.record.reason.c_str());
      continue;
    }
    std::printf("%s", render_text(pkb::breakdown_table(t), 48).c_str());
    std::printf("%s", render_text(pkb::operations_table(t), 40).c_str());
    const auto& b = t.bound;
    std::printf("bound: compute %.2f us, HBM %.2f us, link %.2f us (latency %.2f + bytes %.2f) -> %.2f us, binds %s, gap %.1fx%s%s\n",
                b.compute_s * 1e6, b.hbm_s * 1e6, b.link_s * 1e6, b.link_latency_s * 1e6, b.link_bytes_s * 1e6,
                b.bound_s * 1e6, std::string(pkb::to_string(b.binds)).c_str(), b.gap, b.note.empty() ? "" : "; ",
                b.note.c_str());
    if (!t.designs.designs.empty()) std::printf("%s", render_text(pkb::designs_table(t), 48).c_str());
    std::printf("best: %s -> %.2f us (%.2fx): %s%s%s\n", t.designs.best_label.c_str(), t.designs.best_task_s * 1e6,
                t.designs.best_speedup, t.designs.reason.c_str(), t.designs.note.empty() ? "" : "; ", t.designs.note.c_str());
  }
  return 0;
}


const std::vector<OptionSpec> kSolutionsOptions = {
    {"--output", true, false, "the solutions folder to write ({stem}_cuda.py, parascope_pkb_runtime.py, predictions.json)", "-o"},
    {"--pkb", true, false, "the ParallelKernelBench checkout (which tasks exist, their stems)", ""},
    {"--kernels", true, false, "libparascope_pkb_kernels.so (default: the one built beside this program)", ""},
    {"--suite", true, false, "a suite of the same world: its measured references make the predicted speed-ups", ""},
    {"--world", true, false, "ranks the solutions will run on (default: the suite's, else 1)", ""},
    {"--topology", true, false, "the machine for the predictions (default auto, as pkb report)", ""},
    {"--help", false, false, "this help", "-h"},
};

std::string default_kernels_lib() {
  const fs::path exe = fs::path(self_exe()).parent_path();
  for (const fs::path& c : {exe / "libparascope_pkb_kernels.so", exe / "../lib/libparascope_pkb_kernels.so",
                            exe / "../../kernels/libparascope_pkb_kernels.so"}) {
    std::error_code ec;
    if (fs::exists(c, ec)) return fs::canonical(c, ec).string();
  }
  return (exe / "../../kernels/libparascope_pkb_kernels.so").lexically_normal().string();
}

int pkb_solutions(const VerbArgs& argv) {
  const Args args(kSolutionsOptions, argv);
  if (args.flag("--help")) {
    std::printf("usage: parascope-cli pkb solutions -o DIR --pkb PKB [options]\n%s", options_help(kSolutionsOptions).c_str());
    return 0;
  }
  const auto out = args.value("--output");
  const auto pkb_dir = args.value("--pkb");
  if (!out || !pkb_dir) throw UsageError("-o DIR and --pkb PKB are required");
  const pkb::PkbCheckout checkout = pkb::open_pkb_checkout(*pkb_dir);
  const std::string lib = args.value("--kernels").value_or(default_kernels_lib());
  pkb::SuiteReport suite;
  int world = 1;
  pkb::ReportOptions ro;
  ro.machine = args.value("--topology").value_or("auto");
  ro.preset_dir = topology_preset_dir();
  ro.explore = false;
  if (const auto s = args.value("--suite")) {
    for (const auto& spec : pkb::parascope_solutions()) ro.only.insert(spec.id);
    suite = pkb::build_suite_report(*s, ro);
    world = suite.suite.world;
  }
  world = int_value(args, "--world", world, 1, 1024);
  if (args.value("--suite") && world != suite.suite.world)
    throw UsageError("--world " + std::to_string(world) + " differs from the suite's " + std::to_string(suite.suite.world));
  // --topology's machine; with auto, the one the suite's report chose (the preset with its GPUs)
  const Topology machine = pkb::report_machine(ro.machine == "auto" && args.value("--suite") ? suite.machine : ro.machine,
                                               ro.preset_dir, "");
  std::vector<Topology> others;
  for (const auto& n : pkb::machine_presets(ro.preset_dir)) others.push_back(pkb::load_machine(n, ro.preset_dir));
  const RooflineCeilings ceilings = ceilings_with_datasheet(machine, others);
  std::vector<pkb::SolutionPrediction> predictions;
  for (const auto& spec : pkb::parascope_solutions()) {
    const pkb::PkbTask* t = checkout.find(spec.id);
    if (!t) continue;
    const pkb::TaskReport* measured = nullptr;
    for (const auto& r : suite.tasks)
      if (r.record.stem == t->stem) measured = &r;
    predictions.push_back(pkb::predict_solution(spec, t->stem, measured, machine, ceilings, world));
  }
  const pkb::WrittenSolutions w =
      pkb::write_solutions(*out, checkout, resources_dir() + "/pkb/solutions", lib, predictions);
  std::printf("wrote %zu solutions to %s (kernels: %s); predictions on %s, world %d:\n", w.files.size(), out->c_str(),
              lib.c_str(), machine.name.c_str(), world);
  for (const auto& p : w.predictions) {
    if (p.speedup > 0)
      std::printf("  %-28s %-40s predicted %8.2f us, reference %8.2f us: %.2fx\n", p.stem.c_str(), p.kernel.c_str(),
                  p.task_s * 1e6, p.reference_s * 1e6, p.speedup);
    else
      std::printf("  %-28s %-40s predicted %8.2f us (no measured reference: give --suite)\n", p.stem.c_str(),
                  p.kernel.c_str(), p.task_s * 1e6);
  }
  for (const auto& s : w.skipped) std::printf("  (%s: not in this checkout)\n", s.c_str());
  return 0;
}

const std::vector<OptionSpec> kEvalOptions = {
    {"--pkb", true, false, "the ParallelKernelBench checkout", ""},
    {"--solutions", true, false, "the solutions folder `pkb solutions` wrote", ""},
    {"--suite", true, false, "the suite folder that keeps the results (SUITE/solutions/<stem>.json)", ""},
    {"--problems", true, false, "task numbers (default: every solution in the folder)", ""},
    {"--world", true, false, "ranks (default: the suite's)", ""},
    {"--trials", true, false, "PKB's --trials (default 5, PKB's own)", ""},
    {"--timeout", true, false, "seconds per task (default 300)", ""},
    {"--python", true, false, "the Python that runs PKB (default python3)", ""},
    {"--help", false, false, "this help", "-h"},
};

int pkb_eval(const VerbArgs& argv) {
  const Args args(kEvalOptions, argv);
  if (args.flag("--help")) {
    std::printf("usage: parascope-cli pkb eval --pkb PKB --solutions DIR --suite SUITE [options]\n%s",
                options_help(kEvalOptions).c_str());
    return 0;
  }
  const auto pkb_dir = args.value("--pkb"), sol = args.value("--solutions"), suite = args.value("--suite");
  if (!pkb_dir || !sol || !suite) throw UsageError("--pkb, --solutions and --suite are required");
  pkb::EvalOptions o;
  o.checkout = pkb::open_pkb_checkout(*pkb_dir);
  o.solutions_dir = *sol;
  o.suite_dir = *suite;
  const auto info = pkb::read_suite_info(pkb::SuitePaths{*suite});
  o.world = int_value(args, "--world", info ? info->world : 1, 1, 1024);
  o.trials = int_value(args, "--trials", 5, 1, 1000);
  o.timeout_s = seconds_value(args, "--timeout", 300);
  o.python = args.value("--python").value_or("python3");
  std::set<int> ids;
  if (const auto p = args.value("--problems")) {
    try {
      ids = pkb::parse_problem_range(*p);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  for (const auto& t : o.checkout.tasks) {
    std::error_code ec;
    if ((ids.empty() || ids.count(t.id)) && fs::exists(*sol + "/" + t.stem + "_cuda.py", ec)) o.stems.push_back(t.stem);
  }
  if (o.stems.empty()) throw UsageError(*sol + " has no {stem}_cuda.py for the selected tasks");
  int passed = 0;
  pkb::run_eval(o, [&](const pkb::EvalResult& r) {
    passed += r.correct;
    std::fprintf(stderr, "%-28s %s  trials %d  ref %.4f ms  cuda %.4f ms  measured %.2fx  predicted %.2fx%s%s\n",
                 r.stem.c_str(), r.correct ? "PASS" : "FAIL", r.trials, r.reference_ms, r.solution_ms, r.measured_speedup,
                 r.predicted_speedup, r.reason.empty() ? "" : "  ", r.reason.c_str());
  });
  std::fprintf(stderr, "pkb eval: %d of %zu solutions pass PKB's eval (world %d, %d trials)\n", passed, o.stems.size(),
               o.world, o.trials);
  return passed == static_cast<int>(o.stems.size()) ? 0 : 1;
}

void usage() {
  std::printf(
      "usage: parascope-cli pkb SUBCOMMAND [options]\n"
      "  run        PKB's references through its own harness under the collector, into a suite folder\n"
      "  report     per task: PKB's time and where it goes, operations, roofline bound, best design\n"
      "  solutions  write a PKB \"cuda\" solutions folder that calls Parascope's kernels\n"
      "  eval       run PKB's eval on a solutions folder and keep the results in the suite\n"
      "`parascope-cli pkb SUBCOMMAND --help` describes its options; docs/pkb.md the suite.\n");
}

}  // namespace

int run_pkb(const VerbArgs& argv) {
  if (argv.empty() || argv[0] == "--help" || argv[0] == "-h" || argv[0] == "help") {
    usage();
    return argv.empty() ? 2 : 0;
  }
  const VerbArgs rest(argv.begin() + 1, argv.end());
  if (argv[0] == "run") return pkb_run(rest);
  if (argv[0] == "report") return pkb_report(rest);
  if (argv[0] == "solutions") return pkb_solutions(rest);
  if (argv[0] == "eval") return pkb_eval(rest);
  throw UsageError("unknown pkb subcommand '" + argv[0] + "' (run, report, solutions, eval)");
}

}  // namespace parascope::cli
