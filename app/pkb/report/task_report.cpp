#include "pkb/report/task_report.h"

#include <filesystem>

#include "pkb/suite/task_trace.h"
#include "trace/core/json.h"
#include "trace/io/load_trace.h"

namespace parascope::pkb {

namespace fs = std::filesystem;

void analyze_trace(TaskReport& r, const Trace& trace, const AnalysisContext& ctx) {
  const int iterations = r.perf.iterations;
  const std::vector<TaskWindow> windows = find_task_windows(trace, iterations);
  // the rank PKB's number comes from: the slowest (PKB takes the max); rank order otherwise
  const TaskWindow* w = nullptr;
  for (const TaskWindow& x : windows)
    if (x.found && (!w || x.gpu_ns() > w->gpu_ns())) w = &x;
  if (!w) {
    r.analysis_note = windows.empty() ? "no process of the trace launched GPU work"
                                      : "PKB's timed loop not found: " + windows.front().note;
    return;
  }
  r.window = *w;
  const SliceClassifier classify(trace);
  r.ops = task_ops(trace, *w, classify, ctx.dtype);
  r.breakdown = task_breakdown(trace, *w, classify);
  const double ref = r.reference_s > 0 ? r.reference_s : r.breakdown.window_ns * 1e-9;
  r.bound = task_bound(r.ops, ref, ctx.machine, ctx.ceilings, ctx.dtype);
  if (ctx.explore) r.designs = explore_designs(r.ops, ref, r.breakdown.host_ns * 1e-9, ctx.machine, r.bound.latency_floor_s);
  // a one-GPU recording: the gap is against PKB's time plus NCCL's modelled collectives
  if (r.designs.reference_s > ref && r.bound.bound_s > 0) {
    r.bound.reference_s = r.designs.reference_s;
    r.bound.gap = r.designs.reference_s / r.bound.bound_s;
    r.bound.note += std::string(r.bound.note.empty() ? "" : "; ") +
                    "gap against the one-GPU time plus NCCL's collectives as modelled";
  }
  r.analyzed = true;
}

namespace {
std::optional<SolutionResult> read_solution(const SuitePaths& p, const std::string& stem) {
  const std::string file = p.solutions_dir() + "/" + stem + ".json";
  std::error_code ec;
  if (!fs::exists(file, ec)) return std::nullopt;
  const JsonValue d = load_json_file(file);
  SolutionResult s;
  auto num = [&](const char* k) {
    const JsonValue* v = d.find(k);
    return v && v->is_number() ? v->as_double() : 0.0;
  };
  auto txt = [&](const char* k) {
    const JsonValue* v = d.find(k);
    return v && v->is_string() ? v->text() : std::string();
  };
  const JsonValue* ok = d.find("correct");
  s.evaluated = true;
  s.correct = ok && ok->type() == JsonValue::Type::kBool && ok->as_bool();
  s.trials = static_cast<int>(num("trials"));
  s.reference_ms = num("reference_ms");
  s.solution_ms = num("solution_ms");
  s.measured_speedup = num("measured_speedup");
  s.predicted_speedup = num("predicted_speedup");
  s.kernel = txt("kernel");
  s.reason = txt("reason");
  return s;
}
}  // namespace

TaskReport analyze_task(const SuitePaths& suite, const TaskRecord& record, const AnalysisContext& ctx) {
  TaskReport r;
  r.record = record;
  try {
    r.perf = read_perf_dir(suite.perf_dir(record.stem));
  } catch (const std::exception& e) {
    r.analysis_note = e.what();
  }
  r.reference_s = r.perf.wall_time_ms_max * 1e-3;
  r.solution = read_solution(suite, record.stem);
  if (record.status != TaskStatus::kOk) return r;
  r.trace_path = task_trace_path(suite.task_dir(record.stem), record);
  if (r.trace_path.empty()) {
    r.analysis_note = "no trace";
    return r;
  }
  try {
    const Trace trace = load_trace({r.trace_path});
    analyze_trace(r, trace, ctx);
  } catch (const std::exception& e) {
    r.analysis_note = std::string("trace not analysed: ") + e.what();
  }
  return r;
}

}  // namespace parascope::pkb
