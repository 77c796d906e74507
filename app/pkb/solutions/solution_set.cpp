#include "pkb/solutions/solution_set.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "pkb/suite/suite_folder.h"
#include "pkb/task/sim_adapter.h"
#include "pkb/task/task_bound.h"
#include "trace/core/error.h"
#include "trace/core/json.h"

namespace parascope::pkb {

namespace fs = std::filesystem;

const std::vector<SolutionSpec>& parascope_solutions() {
  static const std::vector<SolutionSpec> k = {
      {1, "1_allreduce_cuda.py", "one-shot pull all-reduce", CollectiveOp::kAllReduce, "allreduce", "ldst_pull", 1, false},
      {2, "2_allgather_cuda.py", "LD/ST push all-gather", CollectiveOp::kAllGather, "allgather", "ldst", 0, false},
      {7, "7_reducescatter_cuda.py", "pull reduce-scatter", CollectiveOp::kReduceScatter, "reducescatter", "ldst_pull", 1,
       false},
      {8, "8_alltoall_cuda.py", "LD/ST push all-to-all", CollectiveOp::kAllToAll, "alltoall", "ldst", 0, false},
      {12, "12_allgather_gemm_cuda.py", "LD/ST push all-gather + cuBLAS GEMM", CollectiveOp::kAllGather, "allgather", "ldst",
       1, true},
      {13, "13_gemm_allreduce_cuda.py", "cuBLAS GEMM + one-shot pull all-reduce", CollectiveOp::kAllReduce, "allreduce",
       "ldst_pull", 0, true},
      {14, "14_gemm_allgather_cuda.py", "cuBLAS GEMM + LD/ST push all-gather", CollectiveOp::kAllGather, "allgather", "ldst",
       1, true},
      {16, "16_gemm_reducescatter_cuda.py", "cuBLAS GEMM + pull reduce-scatter", CollectiveOp::kReduceScatter,
       "reducescatter", "ldst_pull", 0, true},
  };
  return k;
}

namespace {

double gpu_number(const Topology& t, double GpuSpec::*field) {
  for (const TopoNode& n : t.nodes)
    if (n.gpu) return (*n.gpu).*field;
  return 0;
}

}  // namespace

SolutionPrediction predict_solution(const SolutionSpec& s, const std::string& stem, const TaskReport* measured,
                                    const Topology& machine, const RooflineCeilings& c, int world) {
  SolutionPrediction p;
  p.stem = stem;
  p.kernel = s.kernel;
  p.world = world;
  p.machine = machine.name;
  // the collective's per-rank input and buffer from the measured task, else PKB's defaults
  double input = 1024.0 * 1024 * 2, buffer = input;
  int group = world;
  if (measured && measured->analyzed) {
    p.reference_s = measured->reference_s;
    p.host_s = measured->breakdown.host_ns * 1e-9;
    for (const IterationOp& o : measured->ops.ops)
      if (o.shape && o.shape->gemm && o.category == Category::kCompute) p.kept_s += o.mean_ns * 1e-9;
    for (const CollectiveUse& u : measured->ops.collectives)
      if (u.op == s.op) {
        input = static_cast<double>(u.input_bytes);
        buffer = static_cast<double>(u.bytes);
        group = std::max(u.group_size, 1);
        break;
      }
  } else if (measured) {
    p.reference_s = measured->reference_s;
  }
  if (!s.keeps_gemm) p.kept_s = 0;
  const double hbm = c.hbm_bytes_per_s;
  const double launch = gpu_number(machine, &GpuSpec::kernel_latency_ns) * 1e-9;
  if (group >= 2) {
    SimRequest r{s.sim_op,
                 {{"gpus", std::to_string(group)},
                  {"bytes", std::to_string(static_cast<int64_t>(input))},
                  {"algorithm", "one_shot"},
                  {"mechanism", s.mechanism},
                  {"channels", "132"}}};
    const SimAnswer a = simulate_step(machine, r);
    p.kernel_s = a.ok ? a.seconds : 0;
    p.basis = a.ok ? "simulated: " + r.spec() : "not simulated: " + a.error;
  } else if (hbm > 0) {
    // one rank: the kernel reads its input and writes its output once
    p.kernel_s = launch + 2 * buffer / hbm;
    p.basis = "one rank: one HBM pass of " + std::to_string(static_cast<int64_t>(buffer)) + " bytes + the kernel's fixed cost";
  }
  if (hbm > 0) p.copies_s = s.copies * (launch + 2 * buffer / hbm);
  const double gpu = p.kept_s + p.kernel_s + p.copies_s;
  p.task_s = std::max(p.host_s, gpu);
  if (p.reference_s > 0 && p.task_s > 0 && p.kernel_s > 0) p.speedup = p.reference_s / p.task_s;
  return p;
}

namespace {
std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw InputError({p.string(), -1, -1, ""}, "cannot read");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

WrittenSolutions write_solutions(const std::string& dir, const PkbCheckout& checkout, const std::string& templates_dir,
                                 const std::string& kernels_lib, const std::vector<SolutionPrediction>& predictions) {
  WrittenSolutions w;
  w.predictions = predictions;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error(dir + ": cannot create: " + ec.message());
  std::string runtime = read_file(fs::path(templates_dir) / "parascope_pkb_runtime.py");
  const std::string key = "@PARASCOPE_PKB_KERNELS@";
  // PKB's workers run in PKB's folder: a path relative to here would not load there
  const std::string lib = fs::absolute(kernels_lib).lexically_normal().string();
  if (const size_t at = runtime.find(key); at != std::string::npos) runtime.replace(at, key.size(), lib);
  write_text_file(dir + "/parascope_pkb_runtime.py", runtime);
  for (const SolutionSpec& s : parascope_solutions()) {
    const PkbTask* t = checkout.find(s.id);
    const std::string want = s.file.substr(0, s.file.size() - std::string("_cuda.py").size());
    if (!t || t->stem != want) {
      w.skipped.push_back(want);
      continue;
    }
    write_text_file(dir + "/" + s.file, read_file(fs::path(templates_dir) / s.file));
    w.files.push_back(t->stem);
  }
  JsonValue list = JsonValue::array();
  for (const SolutionPrediction& p : predictions)
    list.push(JsonValue::object({{"stem", JsonValue::string(p.stem)},
                                 {"kernel", JsonValue::string(p.kernel)},
                                 {"world", JsonValue::number(int64_t{p.world})},
                                 {"machine", JsonValue::string(p.machine)},
                                 {"reference_us", JsonValue::number(p.reference_s * 1e6)},
                                 {"host_us", JsonValue::number(p.host_s * 1e6)},
                                 {"kept_gemm_us", JsonValue::number(p.kept_s * 1e6)},
                                 {"kernel_us", JsonValue::number(p.kernel_s * 1e6)},
                                 {"copies_us", JsonValue::number(p.copies_s * 1e6)},
                                 {"predicted_us", JsonValue::number(p.task_s * 1e6)},
                                 {"predicted_speedup", p.speedup > 0 ? JsonValue::number(p.speedup) : JsonValue::null()},
                                 {"basis", JsonValue::string(p.basis)}}));
  const auto now = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch());
  const JsonValue doc = JsonValue::object({{"schema_version", JsonValue::number(int64_t{1})},
                                           {"kind", JsonValue::string("parascope-pkb-predictions")},
                                           {"written_unix_ns", JsonValue::number(std::to_string(now.count()))},
                                           {"kernels_lib", JsonValue::string(kernels_lib)},
                                           {"predictions", list}});
  write_text_file(dir + "/predictions.json", to_json(doc, 2) + "\n");
  return w;
}

std::vector<SolutionPrediction> read_predictions(const std::string& dir) {
  std::vector<SolutionPrediction> out;
  const std::string file = dir + "/predictions.json";
  std::error_code ec;
  if (!fs::exists(file, ec)) return out;
  const JsonValue d = load_json_file(file);
  const JsonValue* list = d.find("predictions");
  if (!list || !list->is_array()) throw InputError({file, -1, -1, "$.predictions"}, "expected an array");
  for (const JsonValue& x : list->items()) {
    SolutionPrediction p;
    if (const JsonValue* v = x.find("stem"); v && v->is_string()) p.stem = v->text();
    if (const JsonValue* v = x.find("kernel"); v && v->is_string()) p.kernel = v->text();
    if (const JsonValue* v = x.find("predicted_speedup"); v && v->is_number()) p.speedup = v->as_double();
    if (const JsonValue* v = x.find("predicted_us"); v && v->is_number()) p.task_s = v->as_double() * 1e-6;
    if (const JsonValue* v = x.find("reference_us"); v && v->is_number()) p.reference_s = v->as_double() * 1e-6;
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace parascope::pkb
