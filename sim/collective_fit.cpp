#include "sim/collective_fit.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "sim/simulation.h"
#include "sim/workload_spec.h"
#include "trace/core/json.h"

namespace parascope::sim {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

std::string workload_op(const std::string& file_op, const JsonField& where) {
  if (file_op == "all_reduce") return "allreduce";
  if (file_op == "all_gather") return "allgather";
  if (file_op == "reduce_scatter") return "reducescatter";
  if (file_op == "sendrecv") return "sendrecv";
  where.fail("unknown op \"" + file_op + "\"; expected all_reduce, all_gather, reduce_scatter or sendrecv");
}

void set_gpus(Topology& topo, double sm_copy_GBps, double latency_ns) {
  for (TopoNode& n : topo.nodes)
    if (n.gpu) {
      n.gpu->sm_copy_bytes_per_s = sm_copy_GBps * 1e9;
      n.gpu->kernel_latency_ns = latency_ns;
    }
}

}  // namespace

ErrorStats error_stats(const std::vector<double>& errors) {
  ErrorStats s;
  std::vector<double> a;
  for (double e : errors) a.push_back(std::fabs(e));
  std::sort(a.begin(), a.end());
  s.count = a.size();
  if (a.empty()) return s;
  s.max_abs = a.back();
  s.median_abs = a.size() % 2 ? a[a.size() / 2] : (a[a.size() / 2 - 1] + a[a.size() / 2]) / 2;
  return s;
}

std::vector<CollectiveTiming> load_collective_timings(const std::string& path) {
  const JsonValue doc = load_json_file(path);
  JsonField root(doc, path);
  const JsonField rows = root.at("rows");
  std::vector<CollectiveTiming> out;
  for (size_t i = 0; i < rows.size(); ++i) {
    const JsonField r = rows.at(i);
    CollectiveTiming t;
    t.op = workload_op(r.at("op").as_string(), r.at("op"));
    t.dtype = r.at("dtype").as_string();
    t.file_bytes = r.at("bytes").as_double();
    t.world = static_cast<int32_t>(r.get_int("world", 2));
    if (t.world < 1) r.at("world").fail("world must be >= 1");
    t.bytes = t.op == "allgather" ? t.file_bytes / t.world : t.file_bytes;
    t.median_ns = r.at("median_ns").as_double();
    if (!(t.median_ns > 0)) r.at("median_ns").fail("median_ns must be > 0");
    t.p10_ns = r.get_double("p10_ns", t.median_ns);
    t.p90_ns = r.get_double("p90_ns", t.median_ns);
    out.push_back(std::move(t));
  }
  // Launch floor per (op, dtype): the median time of the rows of at most 1 MiB, where GPU work is
  // negligible and the per-call cost of the launching framework shows.
  std::map<std::pair<std::string, std::string>, std::vector<double>> small;
  for (const auto& t : out)
    if (t.bytes <= kMiB) small[{t.op, t.dtype}].push_back(t.median_ns);
  for (auto& t : out) {
    auto it = small.find({t.op, t.dtype});
    if (it == small.end()) continue;
    std::vector<double> v = it->second;
    std::sort(v.begin(), v.end());
    t.launch_floor_ns = v[v.size() / 2];
    t.launch_bound = t.median_ns < 2 * t.launch_floor_ns;
  }
  return out;
}

bool in_fit_set(const CollectiveTiming& t, const CollectiveFitOptions& opt) {
  if (t.launch_bound || t.dtype != opt.fit_dtype) return false;
  for (double b : opt.fit_bytes)
    if (std::fabs(t.bytes - b) < 0.5) return true;
  return false;
}

double simulate_timing(const Topology& topo, const CollectiveTiming& t, const std::vector<std::pair<std::string, std::string>>& knobs) {
  SimulationInput in;
  in.topology = topo;
  WorkloadStep step;
  step.op = t.op;
  in.steps = {step};
  in.overrides = knobs;
  in.overrides.emplace_back("gpus", std::to_string(t.world));
  in.overrides.emplace_back("bytes", std::to_string(static_cast<int64_t>(std::llround(t.bytes))));
  return static_cast<double>(run_simulation(in).summary.makespan) / 1000.0;
}

CollectiveFit fit_collectives(const Topology& topo, const std::vector<CollectiveTiming>& rows, const CollectiveFitOptions& opt) {
  std::vector<const CollectiveTiming*> fit_rows;
  for (const auto& t : rows)
    if (in_fit_set(t, opt)) fit_rows.push_back(&t);
  CollectiveFit fit;
  auto cost = [&](double sm_copy, double latency) {
    Topology t = topo;
    set_gpus(t, sm_copy, latency);
    double c = 0;
    for (const CollectiveTiming* r : fit_rows) {
      const double l = std::log(simulate_timing(t, *r, opt.knobs) / r->median_ns);
      c += l * l;
    }
    return c;
  };
  // Coarse-to-fine grid: SM copy throughput 200..2000 GB/s, latency 0..100 us.
  double s_lo = 200, s_hi = 2000, l_lo = 0, l_hi = 100'000;
  double best_s = s_lo, best_l = l_lo, best = std::numeric_limits<double>::infinity();
  if (!fit_rows.empty())
    for (int round = 0; round < 4; ++round) {
      constexpr int kSteps = 12;
      for (int i = 0; i <= kSteps; ++i)
        for (int j = 0; j <= kSteps; ++j) {
          const double s = s_lo + (s_hi - s_lo) * i / kSteps, l = l_lo + (l_hi - l_lo) * j / kSteps;
          const double c = cost(s, l);
          if (c < best) {
            best = c;
            best_s = s;
            best_l = l;
          }
        }
      const double ds = (s_hi - s_lo) / kSteps * 1.5, dl = (l_hi - l_lo) / kSteps * 1.5;
      s_lo = std::max(1.0, best_s - ds);
      s_hi = best_s + ds;
      l_lo = std::max(0.0, best_l - dl);
      l_hi = best_l + dl;
    }
  fit.sm_copy_GBps = std::round(best_s);
  fit.kernel_latency_ns = std::round(best_l / 100) * 100;
  Topology fitted = topo;
  set_gpus(fitted, fit.sm_copy_GBps, fit.kernel_latency_ns);
  std::vector<double> fe, he;
  for (const auto& t : rows) {
    CollectivePrediction p;
    p.timing = t;
    p.in_fit = in_fit_set(t, opt);
    p.predicted_ns = simulate_timing(fitted, t, opt.knobs);
    p.error = p.predicted_ns / t.median_ns - 1;
    if (!t.launch_bound) (p.in_fit ? fe : he).push_back(p.error);
    fit.rows.push_back(std::move(p));
  }
  fit.fit = error_stats(fe);
  fit.held_out = error_stats(he);
  return fit;
}

void apply_collective_fit(Topology& topo, const CollectiveFit& fit) { set_gpus(topo, fit.sm_copy_GBps, fit.kernel_latency_ns); }

std::vector<InterferenceTiming> load_interference(const std::string& path) {
  const JsonValue doc = load_json_file(path);
  JsonField root(doc, path);
  const JsonField rows = root.at("rows");
  std::vector<InterferenceTiming> out;
  for (size_t i = 0; i < rows.size(); ++i) {
    const JsonField r = rows.at(i);
    InterferenceTiming t;
    t.gemm_alone_ns = r.at("gemm_alone_ns").as_double();
    t.allreduce_bytes = r.at("allreduce_bytes").as_double();
    t.allreduce_alone_ns = r.at("allreduce_alone_ns").as_double();
    t.concurrent_ns = r.at("gemm_x4_plus_allreduce_concurrent_ns").as_double();
    t.serial_ns = r.at("serial_sum_ns").as_double();
    if (!(t.gemm_alone_ns > 0) || !(t.concurrent_ns > 0)) r.fail("times must be > 0");
    out.push_back(t);
  }
  return out;
}

InterferenceFit fit_interference(const Topology& topo, const std::vector<InterferenceTiming>& rows,
                                 const std::vector<std::pair<std::string, std::string>>& knobs) {
  InterferenceFit fit;
  if (rows.empty()) return fit;
  // The GEMM rate: 2 x 8192^3 FLOP over the median GEMM time.
  std::vector<double> g;
  for (const auto& r : rows) g.push_back(r.gemm_alone_ns);
  std::sort(g.begin(), g.end());
  const double flops = 2.0 * 8192.0 * 8192.0 * 8192.0;
  fit.bf16_TFLOPs = std::round(flops / (g[g.size() / 2] * 1e-9) / 1e12);
  Topology t = topo;
  for (TopoNode& n : t.nodes)
    if (n.gpu) n.gpu->bf16_flops = fit.bf16_TFLOPs * 1e12;
  auto predict = [&](double f, const InterferenceTiming& r) {
    Topology tt = t;
    for (TopoNode& n : tt.nodes)
      if (n.gpu) n.gpu->comm_interference = f;
    SimulationInput in;
    in.topology = tt;
    in.steps = parse_workload_spec("gemm:repeat=4;allreduce:stream=1,bytes=" + std::to_string(static_cast<int64_t>(r.allreduce_bytes)));
    in.overrides = knobs;
    return static_cast<double>(run_simulation(in).summary.makespan) / 1000.0;
  };
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i <= 100; ++i) {  // 0 .. 1 in steps of 0.01
    const double f = i / 100.0;
    double c = 0;
    for (const auto& r : rows) {
      const double l = std::log(predict(f, r) / r.concurrent_ns);
      c += l * l;
    }
    if (c < best) {
      best = c;
      fit.comm_interference = f;
    }
  }
  for (const auto& r : rows) {
    fit.predicted_concurrent_ns.push_back(predict(fit.comm_interference, r));
    fit.errors.push_back(fit.predicted_concurrent_ns.back() / r.concurrent_ns - 1);
  }
  return fit;
}

void apply_interference_fit(Topology& topo, const InterferenceFit& fit) {
  for (TopoNode& n : topo.nodes)
    if (n.gpu) {
      n.gpu->bf16_flops = fit.bf16_TFLOPs * 1e12;
      n.gpu->comm_interference = fit.comm_interference;
    }
}

}  // namespace parascope::sim
