#include "sim/collective_fit.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "sim/minimize.h"
#include "sim/simulation.h"
#include "sim/workload_spec.h"
#include "trace/core/json.h"

namespace parascope::sim {

namespace {

// Bytes one ring step moves per rank for an NCCL row (the profile's x axis): all-reduce,
// reduce-scatter and all-to-all move 1/n of the buffer per step, all-gather and send/recv the
// per-rank input.
double step_bytes(const HarnessRow& r) {
  const double n = r.nranks;
  if (r.op == "sendrecv") return r.bytes;
  if (r.op == "all_gather") return r.bytes / n;
  return r.bytes / n;
}

constexpr double kKnotFactor = 16;

double sq_log_errors(const Topology& topo, const std::vector<const HarnessRow*>& rows) {
  double c = 0;
  for (const HarnessRow* r : rows) {
    const double l = std::log(simulate_harness_row(topo, *r) / r->median_ns);
    c += l * l;
  }
  return c;
}

}  // namespace

NcclFit fit_nccl_profile(const Topology& topo, const std::vector<HarnessRow>& rows, const FitSplit& split,
                         const NcclProfile& structure) {
  // A ring collective runs LL when NCCL's per-rank count is <= structure.ll_max_bytes, all-gather and
  // reduce-scatter by their whole buffer against ll_max_buffer_bytes when set (the harness's
  // all-gather bytes are the gathered output, its reduce-scatter bytes the input: both n counts).
  auto is_ll = [&](const HarnessRow& r) {
    if (!(structure.ll_max_bytes > 0)) return false;
    if (r.op != "all_reduce" && r.op != "all_gather" && r.op != "reduce_scatter") return false;
    if (r.op != "all_reduce" && structure.ll_max_buffer_bytes > 0) return r.bytes <= structure.ll_max_buffer_bytes;
    const double count = r.op == "all_reduce" ? r.bytes : r.bytes / r.nranks;
    return count <= structure.ll_max_bytes;
  };
  std::vector<const HarnessRow*> fit_rows;
  std::set<double> steps, ll_steps;
  for (const HarnessRow& r : rows)
    if (row_role(r, split) == RowRole::kNcclFit) {
      fit_rows.push_back(&r);
      (is_ll(r) ? ll_steps : steps).insert(step_bytes(r));
    }
  NcclFit fit;
  if (fit_rows.empty()) return fit;
  // Knots every factor 16 from the smallest fit step to the largest (the largest always a knot), one
  // set per protocol curve: 6 rates + 3 fixed costs for the 18 fit rows of the default split with one
  // curve, so the curve cannot pass through every row and held-out sizes fall between knots.
  auto knots_of = [](const std::set<double>& st) {
    std::vector<double> knots;
    if (st.empty()) return knots;
    for (double b = *st.begin(); b < *st.rbegin() / 2; b *= kKnotFactor) knots.push_back(b);
    knots.push_back(*st.rbegin());
    return knots;
  };
  const std::vector<double> knots = knots_of(steps), ll_knots = knots_of(ll_steps);
  // Start: 5 us fixed costs, 0.5 us per message, each knot's rate from the nearest fit row of its
  // protocol as if the whole time were data at the ring's 2 copy units per byte.
  std::vector<double> x0 = {std::log(5000.0), std::log(6000.0), std::log(500.0)};
  auto start_rate = [&](double k, bool ll) {
    const HarnessRow* nearest = nullptr;
    for (const HarnessRow* r : fit_rows)
      if (is_ll(*r) == ll && (!nearest || std::fabs(std::log(step_bytes(*r) / k)) < std::fabs(std::log(step_bytes(*nearest) / k))))
        nearest = r;
    const double busy = std::max(1000.0, nearest->median_ns - 5000.0);
    const uint32_t ch = std::max<uint32_t>(1, structure.channels);
    return std::log(std::max(1e8, step_bytes(*nearest) * 2 / (busy * 1e-9) / ch));
  };
  // With the protocols split, each curve is parametrised as its first knot's log rate and log steps
  // |x| >= 0 to the next: a channel never gets slower with a bigger step (a priori). Without it the
  // Simple curve's small-step knots, pinned by send/recv alone, run off to whatever those rows' fixed
  // costs leave (64 KiB at 415 GB/s per channel, 1 MiB at 13). The single curve keeps one free log
  // rate per knot (its fit lands on a rising curve anyway; the monotone form's start ends in a worse
  // local minimum there).
  const bool monotone = !ll_knots.empty();
  auto push_curve = [&](const std::vector<double>& ks, bool ll) {
    double prev = 0;
    for (size_t i = 0; i < ks.size(); ++i) {
      const double lr = start_rate(ks[i], ll);
      x0.push_back(i == 0 || !monotone ? lr : std::max(0.0, lr - prev));
      prev = i == 0 ? lr : std::max(prev, lr);
    }
  };
  push_curve(knots, false);
  push_curve(ll_knots, true);
  // With the split, send/recv's own rate scale on the Simple curve (log, last); 1 without.
  const size_t scale_at = x0.size();
  if (monotone) x0.push_back(0.0);
  auto profile_of = [&](const std::vector<double>& x) {
    NcclProfile p = structure;
    p.collective_latency_ns = std::exp(x[0]);
    p.p2p_latency_ns = std::exp(x[1]);
    p.step_latency_ns = std::exp(x[2]);
    p.channel_rate.clear();
    p.ll_channel_rate.clear();
    auto curve = [&](const std::vector<double>& ks, size_t first, std::vector<std::pair<double, double>>& out) {
      double lr = 0;
      for (size_t i = 0; i < ks.size(); ++i) {
        lr = i == 0 || !monotone ? x[first + i] : lr + std::fabs(x[first + i]);
        out.emplace_back(ks[i], std::exp(lr));
      }
    };
    curve(knots, 3, p.channel_rate);
    curve(ll_knots, 3 + knots.size(), p.ll_channel_rate);
    p.p2p_rate_scale = monotone ? std::exp(x[scale_at]) : 1.0;
    return p;
  };
  Topology t = topo;
  auto cost = [&](const std::vector<double>& x) {
    t.nccl = profile_of(x);
    return sq_log_errors(t, fit_rows);
  };
  // Nelder-Mead ends in local minima on this many knots: a few starts (the fixed costs and every
  // rate scaled), the best wins.
  MinimizeResult best;
  best.value = 1e300;
  int evaluations = 0;
  for (const double f : {1.0, 0.5, 2.0}) {
    std::vector<double> xs = x0;
    for (size_t i = 0; i < 3; ++i) xs[i] += std::log(f);
    for (size_t i = 3; i < scale_at; ++i)
      if (i == 3 || i == 3 + knots.size() || !monotone) xs[i] -= std::log(f);
    MinimizeResult r = minimize(cost, xs, 0.3, 6000, 1e-9);
    evaluations += r.evaluations;
    if (r.value < best.value) best = std::move(r);
  }
  best.evaluations = evaluations;
  fit.profile = profile_of(best.x);
  fit.cost = best.value;
  fit.evaluations = best.evaluations;
  return fit;
}

KernelFit fit_kernel_params(const Topology& topo, const std::vector<HarnessRow>& rows, const FitSplit& split) {
  std::vector<const HarnessRow*> fit_rows;
  for (const HarnessRow& r : rows)
    if (row_role(r, split) == RowRole::kKernelFit) fit_rows.push_back(&r);
  KernelFit fit;
  if (fit_rows.empty()) return fit;
  auto params_of = [](const std::vector<double>& x) {
    KernelFit k;
    k.signal_latency_ns = std::exp(x[0]);
    k.local_copy_GBps_per_sm = std::exp(x[1]);
    k.reduce_cost = std::exp(x[2]);
    k.hbm_GBps = std::exp(x[3]);
    k.block_latency_ns = std::exp(x[4]);
    return k;
  };
  Topology t = topo;
  auto cost = [&](const std::vector<double>& x) {
    apply_kernel_fit(t, params_of(x));
    return sq_log_errors(t, fit_rows);
  };
  const MinimizeResult best = minimize(cost, {std::log(1500.0), std::log(20.0), std::log(1.5), std::log(3000.0), std::log(10.0)}, 0.3, 3000, 1e-9);
  fit = params_of(best.x);
  fit.cost = best.value;
  fit.evaluations = best.evaluations;
  return fit;
}

void apply_kernel_fit(Topology& topo, const KernelFit& fit) {
  for (TopoNode& n : topo.nodes)
    if (n.gpu) {
      n.gpu->signal_latency_ns = fit.signal_latency_ns;
      n.gpu->local_copy_bytes_per_s = fit.local_copy_GBps_per_sm * 1e9;
      n.gpu->reduce_cost = fit.reduce_cost;
      n.gpu->hbm_bytes_per_s = fit.hbm_GBps * 1e9;
      n.gpu->block_latency_ns = fit.block_latency_ns;
    }
}

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
