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
double step_bytes(const HarnessRow& r) { return r.op == "sendrecv" ? r.bytes : r.bytes / r.nranks; }

// Knots every factor 4 of ring-step size: the fit grid has a row every factor 2 (16^k and 2 x 4^k
// sizes), so each knot interval holds about two rows and the curve cannot pass through every row.
constexpr double kKnotFactor = 4;

double sq_log_errors(const Topology& topo, const std::vector<const HarnessRow*>& rows) {
  double c = 0;
  for (const HarnessRow* r : rows) {
    const double l = std::log(simulate_harness_row(topo, *r) / r->median_ns);
    c += l * l;
  }
  return c;
}

// The profile key of a harness op (the workload's names).
std::string curve_op(const std::string& harness_op) {
  if (harness_op == "all_reduce") return "allreduce";
  if (harness_op == "all_gather") return "allgather";
  if (harness_op == "reduce_scatter") return "reducescatter";
  return "sendrecv";
}

// Solves the small dense system a x = b (Gaussian elimination with partial pivoting).
std::vector<double> solve(std::vector<std::vector<double>> a, std::vector<double> b) {
  const size_t n = b.size();
  for (size_t c = 0; c < n; ++c) {
    size_t piv = c;
    for (size_t r = c + 1; r < n; ++r)
      if (std::fabs(a[r][c]) > std::fabs(a[piv][c])) piv = r;
    std::swap(a[c], a[piv]);
    std::swap(b[c], b[piv]);
    for (size_t r = c + 1; r < n; ++r) {
      const double f = a[r][c] / a[c][c];
      for (size_t k = c; k < n; ++k) a[r][k] -= f * a[c][k];
      b[r] -= f * b[c];
    }
  }
  std::vector<double> x(n);
  for (size_t c = n; c-- > 0;) {
    double v = b[c];
    for (size_t k = c + 1; k < n; ++k) v -= a[c][k] * x[k];
    x[c] = v / a[c][c];
  }
  return x;
}

// One curve (an op and a protocol) and its fit rows.
struct CurveRows {
  std::string op;
  bool ll = false;
  std::vector<const HarnessRow*> rows;
  std::vector<double> knots;
};

}  // namespace

NcclFit fit_nccl_profile(const Topology& topo, const std::vector<HarnessRow>& rows, const FitSplit& split,
                         const NcclProfile& structure) {
  // A ring collective runs LL when NCCL's per-rank count is <= structure.ll_max_bytes, all-gather and
  // reduce-scatter by their whole buffer against ll_max_buffer_bytes when set (the harness's
  // all-gather bytes are the gathered output, its reduce-scatter bytes the input: both n counts).
  auto is_ll = [&](const HarnessRow& r) {
    if (!r.protocol.empty()) return r.protocol == "ll";  // NCCL_PROTO forced (LL128 rows are not modelled)
    if (!(structure.ll_max_bytes > 0)) return false;
    if (r.op != "all_reduce" && r.op != "all_gather" && r.op != "reduce_scatter") return false;
    if (r.op != "all_reduce" && structure.ll_max_buffer_bytes > 0) return r.bytes <= structure.ll_max_buffer_bytes;
    const double count = r.op == "all_reduce" ? r.bytes : r.bytes / r.nranks;
    return count <= structure.ll_max_bytes;
  };
  std::vector<const HarnessRow*> fit_rows;
  std::map<std::pair<std::string, bool>, CurveRows> curves;
  for (const HarnessRow& r : rows)
    if (row_role(r, split) == RowRole::kNcclFit) {
      fit_rows.push_back(&r);
      CurveRows& c = curves[{curve_op(r.op), is_ll(r)}];
      c.op = curve_op(r.op);
      c.ll = is_ll(r);
      c.rows.push_back(&r);
    }
  NcclFit fit;
  if (fit_rows.empty()) return fit;
  for (auto& [key, c] : curves) {
    std::set<double> st;
    for (const HarnessRow* r : c.rows) st.insert(step_bytes(*r));
    for (double b = *st.begin(); b < *st.rbegin() / 2; b *= kKnotFactor) c.knots.push_back(b);
    c.knots.push_back(*st.rbegin());
  }
  // Separable: given the fixed costs, a row's time depends on one number, its curve's rate at its step,
  // and falls as that rate rises. So each row's rate is solved for (regula falsi on the log rate), and
  // each curve's knots are the weighted least-squares fit of those rates in log-log space, the weight
  // of a row its time's sensitivity to the rate (d log t / d log rate: latency-bound rows say little
  // about the rate). Nelder-Mead then moves only the fixed costs, on the squared log time errors.
  Topology t = topo;
  auto set_curve = [](NcclProfile& p, const CurveRows& c, std::vector<std::pair<double, double>> knots) {
    NcclProfile::Curves& dst = p.op_channel_rate[c.op];
    (c.ll ? dst.ll : dst.simple) = std::move(knots);
  };
  // Simple's fixed cost beyond LL's is fitted too when rows ran Simple where NCCL would pick LL
  // (NCCL_PROTO forced): both protocols measured at one size separate that cost from Simple's rate.
  // Otherwise it stays structure's a-priori value (NCCL's own latency model).
  bool fit_simple_extra = false;
  for (const HarnessRow* r : fit_rows)
    if (r->protocol == "simple") {
      HarnessRow chosen = *r;
      chosen.protocol.clear();
      fit_simple_extra = fit_simple_extra || is_ll(chosen);
    }
  std::map<const HarnessRow*, double> last_rate;  // each row's solved log rate, the next solve's start
  auto profile_of = [&](const std::vector<double>& x) {
    NcclProfile p = structure;
    p.collective_latency_ns = std::exp(x[0]);
    p.p2p_latency_ns = std::exp(x[1]);
    p.step_latency_ns = std::exp(x[2]);
    if (fit_simple_extra) {
      p.simple_extra_ns = std::exp(x[3]);
      p.simple_extra_per_step_ns = std::exp(x[4]);
    }
    p.p2p_rate_scale = 1;
    p.op_channel_rate.clear();
    // Placeholders, so every op has a curve while its rows are solved one at a time.
    for (const auto& [key, c] : curves) set_curve(p, c, {{1.0, 1e10}});
    for (const auto& entry : curves) {
      const CurveRows& c = entry.second;  // not a structured binding: lambdas below capture it (clang 14)
      std::vector<double> target(c.rows.size()), weight(c.rows.size());
      t.nccl = p;
      for (size_t i = 0; i < c.rows.size(); ++i) {
        const HarnessRow& r = *c.rows[i];
        auto time_at = [&](double log_rate) {
          set_curve(*t.nccl, c, {{1.0, std::exp(log_rate)}});
          return simulate_harness_row(t, r);
        };
        // Solve log(time(x) / goal) = 0 for the log rate x (time falls as x rises): a bracket around
        // the row's rate of the previous evaluation (the fixed costs move little between evaluations),
        // widened until it holds the root, then regula falsi (Illinois) to 1e-5.
        const double kLo = std::log(1e7), kHi = std::log(2e12);  // 0.01 .. 2000 GB/s per channel
        double goal = r.median_ns;
        auto f = [&](double lr) { return std::log(time_at(lr) / goal); };
        double& start = last_rate[c.rows[i]];
        if (start == 0) start = std::log(1e10);
        double a = std::max(kLo, start - 0.3), b = std::min(kHi, start + 0.3);
        double fa = f(a), fb = f(b);
        while (fa < 0 && a > kLo) { b = a; fb = fa; a = std::max(kLo, a - 1.5); fa = f(a); }
        while (fb > 0 && b < kHi) { a = b; fa = fb; b = std::min(kHi, b + 1.5); fb = f(b); }
        if (fb > 0) {
          // A row the links or HBM bound (measured faster than the model at any rate: the topology's
          // NVLink rate is send/recv's 1 GiB rate within 2 %) asks for a rate just high enough to
          // reach that bound: 1 % above it.
          goal = 1.01 * time_at(kHi);
          a = kLo; b = kHi; fa = f(a); fb = f(b);
        }
        double root = fa <= 0 ? a : b;
        if (fa > 0 && fb < 0) {
          int side = 0;
          for (int it = 0; it < 40; ++it) {
            root = (a * fb - b * fa) / (fb - fa);
            const double fx = f(root);
            if (std::fabs(fx) < 1e-5) break;
            if (fx > 0) {
              a = root; fa = fx;
              if (side == 1) fb /= 2;
              side = 1;
            } else {
              b = root; fb = fx;
              if (side == -1) fa /= 2;
              side = -1;
            }
          }
        }
        start = root;
        target[i] = root;
        const double d = 0.1;
        weight[i] = std::fabs(std::log(time_at(target[i] + d) / time_at(target[i]))) / d;
      }
      // Least squares over the knots' log rates: row i sits at fraction f between knots a and b (or
      // before the first knot, on its extrapolated slope; after the last, on it), plus a small pull of
      // each knot toward its neighbours so a knot without rows stays defined.
      const size_t k = c.knots.size();
      std::vector<std::vector<double>> a(k, std::vector<double>(k, 0.0));
      std::vector<double> b(k, 0.0);
      auto add = [&](const std::vector<std::pair<size_t, double>>& coef, double y, double w2) {
        for (const auto& [i, ci] : coef) {
          for (const auto& [j, cj] : coef) a[i][j] += w2 * ci * cj;
          b[i] += w2 * ci * y;
        }
      };
      for (size_t i = 0; i < c.rows.size(); ++i) {
        const double s = step_bytes(*c.rows[i]);
        std::vector<std::pair<size_t, double>> coef;
        if (k == 1 || s >= c.knots.back()) {
          coef = {{k - 1, 1.0}};
        } else {
          size_t j = 1;
          while (j + 1 < k && c.knots[j] < s) ++j;
          const double f = std::log(s / c.knots[j - 1]) / std::log(c.knots[j] / c.knots[j - 1]);
          coef = {{j - 1, 1.0 - f}, {j, f}};
        }
        add(coef, target[i], weight[i] * weight[i] + 1e-6);
      }
      for (size_t j = 0; j + 1 < k; ++j) add({{j, 1.0}, {j + 1, -1.0}}, 0.0, 1e-4);
      const std::vector<double> y = solve(a, b);
      std::vector<std::pair<double, double>> knots;
      for (size_t j = 0; j < k; ++j) knots.emplace_back(c.knots[j], std::exp(y[j]));
      set_curve(p, c, std::move(knots));
    }
    // Ops without their own rows (and profiles read by older code) keep the default curves: all-reduce's.
    const auto ar = p.op_channel_rate.find("allreduce");
    const NcclProfile::Curves& def = ar != p.op_channel_rate.end() ? ar->second : p.op_channel_rate.begin()->second;
    p.channel_rate = def.simple;
    p.ll_channel_rate = def.ll;
    return p;
  };
  auto cost = [&](const std::vector<double>& x) {
    t.nccl = profile_of(x);
    return sq_log_errors(t, fit_rows);
  };
  // A few starts (the fixed costs scaled), the best wins.
  MinimizeResult best;
  best.value = 1e300;
  int evaluations = 0;
  for (const double f : {1.0, 0.5, 2.0}) {
    std::vector<double> xs = {std::log(5000.0 * f), std::log(6000.0 * f), std::log(500.0 * f)};
    if (fit_simple_extra) {
      xs.push_back(std::log(std::max(100.0, structure.simple_extra_ns) * f));
      xs.push_back(std::log(std::max(100.0, structure.simple_extra_per_step_ns) * f));
    }
    MinimizeResult r = minimize(cost, xs, 0.3, 300, 1e-7);
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

InterferenceFit fit_interference(const Topology& topo, const std::vector<InterferenceTiming>& rows, const KnobSettings& knobs,
                                 const std::vector<double>& fit_bytes) {
  InterferenceFit fit;
  if (rows.empty()) return fit;
  for (const auto& r : rows)
    fit.fitted.push_back(std::find(fit_bytes.begin(), fit_bytes.end(), r.allreduce_bytes) != fit_bytes.end());
  if (std::find(fit.fitted.begin(), fit.fitted.end(), true) == fit.fitted.end()) fit.fitted.assign(rows.size(), true);
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
    for (size_t ri = 0; ri < rows.size(); ++ri) {
      if (!fit.fitted[ri]) continue;
      const double l = std::log(predict(f, rows[ri]) / rows[ri].concurrent_ns);
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
