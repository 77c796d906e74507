#include "pkb/report/suite_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "pkb/suite/task_trace.h"
#include "pkb/task/sim_adapter.h"
#include "trace/core/error.h"
#include "trace/core/machine_choice.h"
#include "trace/io/load_trace.h"

namespace parascope::pkb {

namespace fs = std::filesystem;

Topology report_machine(const std::string& choice, const std::string& preset_dir, const std::string& sample_trace,
                        int32_t world) {
  if (choice != "auto") return load_machine(choice, preset_dir);
  if (!sample_trace.empty()) {
    try {  // the machine every verb would choose for this trace (trace/core/machine_choice.h)
      const Trace t = load_trace({sample_trace});
      MachineRequest request;
      request.simulate = true;
      request.gpus = world;
      const MachineChoice c = choose_machine(t, load_presets(preset_dir), request);
      if (!c.topology.nodes.empty()) return c.topology;
    } catch (const std::exception&) {
    }
  }
  return load_machine("h200x2", preset_dir);
}

SuiteReport build_suite_report(const std::string& suite_dir, const ReportOptions& o) {
  SuiteReport r;
  r.suite_dir = suite_dir;
  const SuitePaths p{suite_dir};
  const auto info = read_suite_info(p);
  if (!info) throw InputError({suite_dir, -1, -1, "suite.json"}, "not a pkb suite folder (no suite.json; made by `pkb run`)");
  r.suite = *info;
  std::vector<TaskRecord> records = read_task_records(p);
  if (!o.only.empty())
    records.erase(std::remove_if(records.begin(), records.end(), [&](const TaskRecord& t) { return !o.only.count(t.id); }),
                  records.end());
  std::string sample;
  for (const TaskRecord& t : records)
    if (t.status == TaskStatus::kOk && sample.empty()) sample = task_trace_path(p.task_dir(t.stem), t);
  AnalysisContext ctx;
  ctx.machine = report_machine(o.machine, o.preset_dir, sample, r.suite.world);
  std::vector<Topology> others;
  for (const std::string& n : machine_presets(o.preset_dir)) others.push_back(load_machine(n, o.preset_dir));
  ctx.ceilings = ceilings_with_datasheet(ctx.machine, others);
  ctx.dtype = r.suite.dtype;
  ctx.explore = o.explore;
  r.machine = ctx.machine.name;
  r.ceilings = ctx.ceilings;
  r.latency_floor_s = collective_latency_floor_s(ctx.machine);
  for (size_t i = 0; i < records.size(); ++i) {
    if (o.cancel && o.cancel->load()) break;
    if (o.progress) o.progress(i, records.size(), records[i].stem);
    r.tasks.push_back(analyze_task(p, records[i], ctx));
    (records[i].status == TaskStatus::kOk ? r.ok : r.failed)++;
  }
  std::stable_sort(r.tasks.begin(), r.tasks.end(), [](const TaskReport& a, const TaskReport& b) {
    const double ga = a.bound.gap, gb = b.bound.gap;
    if ((ga > 0) != (gb > 0)) return ga > 0;
    // a bound that leaves ops' work out is too low and its gap too large: those tasks after the others
    if (a.bound.complete != b.bound.complete) return a.bound.complete;
    if (ga != gb) return ga > gb;
    return a.record.id < b.record.id;
  });
  return r;
}

namespace {

DataCell us_cell(double seconds) {
  if (!(seconds > 0)) return text_cell("");
  return duration_cell(static_cast<TimeNs>(std::llround(seconds * 1e9)));
}
DataCell ns_cell(double ns) { return us_cell(ns * 1e-9); }
DataCell x_cell(double v) { return v > 0 ? number_cell(v, v < 10 ? 2 : 1, "x") : text_cell(""); }

std::string category_name(Category c) { return std::string(to_string(c)); }

}  // namespace

DataTable suite_table(const SuiteReport& r) {
  DataTable t;
  t.id = "pkb_suite";
  t.title = "ParallelKernelBench tasks by gap (" + r.machine + ")";
  t.note = "reference: PKB's own time (max over ranks of wall_time_ms); bound: max(compute, HBM, link + latency) on " +
           r.machine + "; gap = reference / bound";
  t.column("id", "", true).column("task").column("status").column("reference", "ns", true).column("bound", "ns", true);
  t.column("gap", "x", true).column("binds").column("best design").column("predicted", "ns", true);
  t.column("speed-up", "x", true).column("note");
  for (const TaskReport& x : r.tasks) {
    const bool ok = x.record.status == TaskStatus::kOk;
    std::string note = ok ? x.analysis_note : x.record.reason;
    if (ok && note.empty()) note = x.bound.note;
    t.add_row({int_cell(x.record.id), text_cell(x.record.stem), text_cell(ok ? "ok" : "failed"), us_cell(x.reference_s),
               us_cell(x.bound.bound_s), x_cell(x.bound.gap),
               text_cell(x.bound.bound_s > 0 ? std::string(to_string(x.bound.binds)) : ""),
               text_cell(x.analyzed ? x.designs.best_label : ""), us_cell(x.analyzed ? x.designs.best_task_s : 0),
               x_cell(x.analyzed ? x.designs.best_speedup : 0), text_cell(note)});
  }
  return t;
}

DataTable operations_table(const TaskReport& x) {
  DataTable t;
  t.id = "pkb_operations";
  t.title = "Operations of one iteration: " + x.record.stem;
  t.note = "GPU ops of PKB's timed iterations in launch order, mean time per iteration; shapes and work from the first "
           "call's NVTX op ranges; collectives from the NCCL profiler plugin";
  t.column("#", "", true).column("op").column("class").column("count", "", true).column("mean", "ns", true);
  t.column("framework op").column("sizes").column("FLOPs", "FLOP", true).column("HBM bytes", "bytes", true);
  t.column("work from").column("collective").column("bytes", "bytes", true).column("group", "ranks", true);
  for (size_t p = 0; p < x.ops.ops.size(); ++p) {
    const IterationOp& o = x.ops.ops[p];
    std::string coll;
    DataCell cb = text_cell(""), cg = text_cell("");
    if (o.collective >= 0) {
      const CollectiveUse& u = x.ops.collectives[static_cast<size_t>(o.collective)];
      coll = std::string(to_string(u.op)) + " #" + std::to_string(u.order + 1);
      cb = bytes_cell(static_cast<double>(u.bytes));
      cg = int_cell(u.group_size);
    }
    t.add_row({int_cell(static_cast<int64_t>(p)), text_cell(o.name), text_cell(category_name(o.category)),
               int_cell(o.count), ns_cell(o.mean_ns), text_cell(o.shape ? o.shape->op : ""),
               text_cell(o.shape ? o.shape->sizes : ""),
               o.shape && o.shape->flops > 0 ? flop_count_cell(o.shape->flops) : text_cell(""),
               o.shape && o.shape->hbm_bytes > 0 ? bytes_cell(o.shape->hbm_bytes) : text_cell(""),
               text_cell(o.shape ? o.shape->work_source : ""), text_cell(coll), cb, cg});
  }
  return t;
}

DataTable breakdown_table(const TaskReport& x) {
  DataTable t;
  t.id = "pkb_breakdown";
  t.title = "Where one iteration goes: " + x.record.stem;
  t.note = "PKB's timed loop on the worker's GPU, per iteration (busy/idle priorities)";
  t.column("part").column("time", "ns", true).column("share", "", true);
  const TaskBreakdown& b = x.breakdown;
  const double w = b.window_ns;
  auto row = [&](const char* name, double ns) { t.add_row({text_cell(name), ns_cell(ns), percent_cell(w > 0 ? ns / w : 0)}); };
  row("compute", b.compute_ns);
  row("communication hidden under compute", b.comm_hidden_ns);
  row("communication exposed", b.comm_exposed_ns);
  row("memory (copies, memsets)", b.memory_ns);
  row("syncs (GPU waits on events)", b.sync_ns);
  row("host gaps (GPU idle)", b.host_gap_ns);
  row("window per iteration", w);
  t.add_row({text_cell("host per iteration (Python loop, event to event)"), ns_cell(b.host_ns), text_cell("")});
  return t;
}

DataTable designs_table(const TaskReport& x) {
  DataTable t;
  t.id = "pkb_designs";
  t.title = "Design space: " + x.record.stem;
  t.note = "each design predicted alone by the simulator; task = PKB's time - the replaced ops' measured time + the "
           "prediction";
  t.column("target").column("design").column("mechanism").column("overlap").column("SMs", "", true);
  t.column("chunk", "bytes", true).column("predicted", "ns", true).column("replaces", "ns", true);
  t.column("task", "ns", true).column("speed-up", "x", true).column("note");
  std::vector<size_t> order(x.designs.designs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Design &da = x.designs.designs[a], &db = x.designs.designs[b];
    if (da.target != db.target) return da.target < db.target;
    if (da.ok != db.ok) return da.ok;
    return da.task_s < db.task_s;
  });
  for (size_t i : order) {
    const Design& d = x.designs.designs[i];
    const DesignTarget& tg = x.designs.targets[static_cast<size_t>(d.target)];
    std::string note = d.ok ? "" : "not applicable: " + d.error;
    if (tg.best == static_cast<int>(i)) note = "best for this target";
    if (d.nccl_model && d.ok) note = "model of the reference (measured " + std::to_string(tg.measured_s * 1e6).substr(0, 6) + " us)";
    t.add_row({text_cell(tg.label), text_cell(d.label), text_cell(d.mechanism), text_cell(d.overlap),
               d.sms ? int_cell(d.sms) : text_cell(""), d.chunk_bytes ? int_cell(d.chunk_bytes) : text_cell(""),
               us_cell(d.ok ? d.predicted_s : 0), us_cell(tg.measured_s), us_cell(d.ok ? d.task_s : 0),
               x_cell(d.ok ? d.speedup : 0), text_cell(note)});
  }
  return t;
}

namespace {

JsonValue num(double v) { return std::isfinite(v) ? JsonValue::number(v) : JsonValue::null(); }
JsonValue inum(int64_t v) { return JsonValue::number(v); }
JsonValue str(const std::string& s) { return JsonValue::string(s); }
JsonValue us(double seconds) { return num(seconds * 1e6); }

}  // namespace

JsonValue task_report_json(const TaskReport& x) {
  JsonValue ranks = JsonValue::array();
  for (const RankPerf& p : x.perf.ranks)
    ranks.push(JsonValue::object({{"rank", inum(p.rank)},
                                  {"wall_time_ms", num(p.wall_time_ms)},
                                  {"wall_time_std_ms", num(p.wall_time_std_ms)},
                                  {"min_time_ms", num(p.min_time_ms)},
                                  {"max_time_ms", num(p.max_time_ms)}}));
  JsonValue task = JsonValue::object(
      {{"id", inum(x.record.id)},
       {"stem", str(x.record.stem)},
       {"status", str(std::string(to_string(x.record.status)))},
       {"reason", str(x.record.reason)},
       {"reference_ms", x.reference_s > 0 ? num(x.reference_s * 1e3) : JsonValue::null()},
       {"pkb", JsonValue::object({{"wall_time_ms_max", num(x.perf.wall_time_ms_max)},
                                  {"wall_time_ms_mean", num(x.perf.wall_time_ms_mean)},
                                  {"iterations", inum(x.perf.iterations)},
                                  {"warmup_iterations", inum(x.perf.warmup_iterations)},
                                  {"ranks", ranks}})},
       {"run", JsonValue::object({{"wall_s", num(x.record.wall_s)}, {"exit_code", inum(x.record.exit_code)},
                                  {"timed_out", JsonValue::boolean(x.record.timed_out)}})},
       {"trace", JsonValue::object({{"path", str(x.trace_path)},
                                    {"analyzed", JsonValue::boolean(x.analyzed)},
                                    {"note", str(x.analysis_note)},
                                    {"iterations", inum(static_cast<int64_t>(x.window.iterations.size()))},
                                    {"window_per_iteration_us", x.analyzed ? us(x.breakdown.window_ns * 1e-9) : JsonValue::null()}})}});
  if (x.analyzed) {
    const TaskBreakdown& b = x.breakdown;
    task.set("breakdown_us", JsonValue::object({{"compute", us(b.compute_ns * 1e-9)},
                                                {"communication_hidden", us(b.comm_hidden_ns * 1e-9)},
                                                {"communication_exposed", us(b.comm_exposed_ns * 1e-9)},
                                                {"memory", us(b.memory_ns * 1e-9)},
                                                {"sync", us(b.sync_ns * 1e-9)},
                                                {"host_gaps", us(b.host_gap_ns * 1e-9)},
                                                {"host_per_iteration", us(b.host_ns * 1e-9)}}));
    JsonValue ops = JsonValue::array();
    for (size_t p = 0; p < x.ops.ops.size(); ++p) {
      const IterationOp& o = x.ops.ops[p];
      JsonValue j = JsonValue::object({{"position", inum(static_cast<int64_t>(p))},
                                       {"name", str(o.name)},
                                       {"kind", str(std::string(to_string(o.kind)))},
                                       {"category", str(category_name(o.category))},
                                       {"count", inum(o.count)},
                                       {"mean_us", us(o.mean_ns * 1e-9)},
                                       {"collective", o.collective >= 0 ? inum(o.collective) : JsonValue::null()}});
      if (o.shape)
        j.set("shape", JsonValue::object({{"op", str(o.shape->op)},
                                          {"sizes", str(o.shape->sizes)},
                                          {"flops", num(o.shape->flops)},
                                          {"hbm_bytes", num(o.shape->hbm_bytes)},
                                          {"work_from", str(o.shape->work_source)},
                                          {"gemm_mnk", o.shape->gemm ? JsonValue::array({inum(o.shape->m), inum(o.shape->n), inum(o.shape->k)})
                                                                     : JsonValue::null()}}));
      ops.push(std::move(j));
    }
    task.set("operations", std::move(ops));
    JsonValue colls = JsonValue::array();
    for (const CollectiveUse& u : x.ops.collectives)
      colls.push(JsonValue::object({{"order", inum(u.order)},
                                    {"op", str(std::string(to_string(u.op)))},
                                    {"position", inum(u.position)},
                                    {"bytes", num(static_cast<double>(u.bytes))},
                                    {"input_bytes", num(static_cast<double>(u.input_bytes))},
                                    {"wire_bytes", num(static_cast<double>(u.wire_bytes))},
                                    {"group_size", inum(u.group_size)},
                                    {"group", str(u.group)},
                                    {"dtype", str(u.dtype)},
                                    {"algorithm", str(u.algorithm)},
                                    {"protocol", str(u.protocol)},
                                    {"channels", inum(u.channels)},
                                    {"mean_us", us(u.mean_ns * 1e-9)}}));
    task.set("collectives", std::move(colls));
    task.set("work", JsonValue::object({{"flops", num(x.ops.flops)},
                                        {"hbm_bytes", num(x.ops.hbm_bytes)},
                                        {"ops_with_work", inum(x.ops.with_shapes)},
                                        {"ops_without_work", inum(x.ops.without_shapes)},
                                        {"note", str(x.ops.note)}}));
    const TaskBound& bd = x.bound;
    task.set("bound", JsonValue::object({{"compute_us", us(bd.compute_s)},
                                         {"hbm_us", us(bd.hbm_s)},
                                         {"link_us", us(bd.link_s)},
                                         {"link_latency_us", us(bd.link_latency_s)},
                                         {"link_bytes_us", us(bd.link_bytes_s)},
                                         {"latency_floor_us", us(bd.latency_floor_s)},
                                         {"bound_us", bd.bound_s > 0 ? us(bd.bound_s) : JsonValue::null()},
                                         {"binds", str(bd.bound_s > 0 ? std::string(to_string(bd.binds)) : "")},
                                         {"gap", bd.gap > 0 ? num(bd.gap) : JsonValue::null()},
                                         {"note", str(bd.note)}}));
    JsonValue targets = JsonValue::array(), alts = JsonValue::array();
    for (const DesignTarget& tg : x.designs.targets) {
      JsonValue pos = JsonValue::array();
      for (int p : tg.positions) pos.push(inum(p));
      targets.push(JsonValue::object({{"label", str(tg.label)},
                                      {"positions", pos},
                                      {"measured_us", us(tg.measured_s)},
                                      {"best", tg.best >= 0 ? inum(tg.best) : JsonValue::null()},
                                      {"nccl_model", tg.nccl >= 0 ? inum(tg.nccl) : JsonValue::null()}}));
    }
    for (const Design& d : x.designs.designs)
      alts.push(JsonValue::object({{"target", inum(d.target)},
                                   {"label", str(d.label)},
                                   {"algorithm", str(d.algorithm)},
                                   {"mechanism", str(d.mechanism)},
                                   {"overlap", str(d.overlap)},
                                   {"sms", inum(d.sms)},
                                   {"chunk_bytes", inum(d.chunk_bytes)},
                                   {"fused", JsonValue::boolean(d.fused)},
                                   {"nccl_model", JsonValue::boolean(d.nccl_model)},
                                   {"ok", JsonValue::boolean(d.ok)},
                                   {"error", str(d.error)},
                                   {"predicted_us", d.ok ? us(d.predicted_s) : JsonValue::null()},
                                   {"task_us", d.ok ? us(d.task_s) : JsonValue::null()},
                                   {"speedup", d.ok ? num(d.speedup) : JsonValue::null()},
                                   {"workload", str(d.request.spec())}}));
    task.set("designs", JsonValue::object({{"targets", targets},
                                           {"alternatives", alts},
                                           {"reference_us", us(x.designs.reference_s)},
                                           {"best", JsonValue::object({{"label", str(x.designs.best_label)},
                                                                       {"task_us", us(x.designs.best_task_s)},
                                                                       {"speedup", num(x.designs.best_speedup)},
                                                                       {"reason", str(x.designs.reason)}})},
                                           {"note", str(x.designs.note)}}));
  }
  if (x.solution) {
    const SolutionResult& s = *x.solution;
    task.set("solution", JsonValue::object({{"kernel", str(s.kernel)},
                                            {"correct", JsonValue::boolean(s.correct)},
                                            {"trials", inum(s.trials)},
                                            {"reference_ms", num(s.reference_ms)},
                                            {"solution_ms", num(s.solution_ms)},
                                            {"measured_speedup", num(s.measured_speedup)},
                                            {"predicted_speedup", num(s.predicted_speedup)},
                                            {"reason", str(s.reason)}}));
  }
  return task;
}

JsonValue suite_report_json(const SuiteReport& r) {
  JsonValue tasks = JsonValue::array();
  for (const TaskReport& t : r.tasks) tasks.push(task_report_json(t));
  const RooflineCeilings& c = r.ceilings;
  return JsonValue::object({{"schema_version", inum(kReportSchemaVersion)},
                            {"kind", str("parascope-pkb-report")},
                            {"suite", JsonValue::object({{"path", str(r.suite_dir)},
                                                         {"pkb_root", str(r.suite.pkb_root)},
                                                         {"world", inum(r.suite.world)},
                                                         {"one_gpu", JsonValue::boolean(r.suite.one_gpu)},
                                                         {"m", inum(r.suite.m)},
                                                         {"n", inum(r.suite.n)},
                                                         {"dtype", str(r.suite.dtype)}})},
                            {"machine", JsonValue::object({{"name", str(r.machine)},
                                                           {"gpu", str(c.gpu)},
                                                           {"bf16_flops_per_s", num(c.bf16_flops)},
                                                           {"hbm_bytes_per_s", num(c.hbm_bytes_per_s)},
                                                           {"link_bytes_per_s", num(c.link_bytes_per_s)},
                                                           {"latency_floor_us", us(r.latency_floor_s)},
                                                           {"peaks_from", str(c.peaks_from)}})},
                            {"tasks_ok", inum(r.ok)},
                            {"tasks_failed", inum(r.failed)},
                            {"tasks", tasks}});
}

}  // namespace parascope::pkb
