// `parascope-cli calibrate RAW.json [RAW2.json...] -o TOPOLOGY [--base NAME|PATH] [--kernels FILE]...
// [--nccl-channels N] [--nccl-ll-max BYTES] [--nccl-ll-max-buffer BYTES] [--nccl-channel-bytes BYTES] [--nccl-simple-extra NS]
// [--nccl-simple-extra-step NS] [--interference FILE] [--json]`: fits the copy-engine, LD/ST and TMA (push and
// pull) models to raw P2P sweeps (DESIGN.md "Calibration"), writes them into the base topology
// (default: the preset named by the sweep's "machine"), marks it measured, and prints each
// mechanism's residuals. With --kernels (parascope-bench result files, CUDA graphs) it also takes the
// launch floor from their graph_floor rows, fits NCCL's profile and the direct kernels' shared
// parameters on the rows the split names (docs/accuracy.md), and reports every other row as a
// validation row (scored, not fitted; not blind); with --interference the GEMM rate and the compute/communication interference. The written
// file carries it all under "calibration_fit".
#include <cstdio>
#include <fstream>
#include <optional>

#include "cli/cli_args.h"
#include "cli/verbs.h"
#include "sim/accuracy.h"
#include "sim/calibration.h"
#include "sim/collective_fit.h"
#include "sim/knobs.h"
#include "trace/core/topology_json.h"
#include "trace/core/topology_presets.h"
#include "trace/io/common/atomic_file.h"

namespace parascope::cli {

namespace {

const std::vector<OptionSpec> kOptions = {
    {"--output", true, false, "topology JSON to write", "-o"},
    {"--base", true, false, "topology to start from (preset name or file; default: the sweep's machine)", ""},
    {"--kernels", true, true, "parascope-bench result file (nccl.json, all_reduce.json, ...): fits NCCL's profile and the "
                              "direct kernels' parameters on the split's rows, the rest scored as validation (repeatable)", ""},
    {"--nccl-channels", true, false, "channels NCCL ran with (default 24: its kernels' grid in the captured traces)", ""},
    {"--nccl-ll-max", true, false, "NCCL's logged choice (NCCL_DEBUG_SUBSYS=TUNING): ring collectives run LL up to this per-rank "
     "count in bytes, on their own knots (default 0: one curve)", ""},
    {"--nccl-ll-max-buffer", true, false, "NCCL's logged choice: all-gather and reduce-scatter run LL while their whole buffer "
     "(n x the per-rank count) is at most this many bytes (default 0: the per-rank count against --nccl-ll-max)", ""},
    {"--nccl-channel-bytes", true, false, "NCCL's logged choice: a ring collective on B buffer bytes runs on B / this many "
     "channels when that is fewer (default 0: always --nccl-channels)", ""},
    {"--nccl-simple-extra", true, false, "with --nccl-ll-max: Simple's fixed cost over LL's in ns, from NCCL's latency model "
     "(tuning table: Simple minus LL base latency; not fitted; default 0)", ""},
    {"--nccl-simple-extra-step", true, false, "with --nccl-ll-max: Simple's extra fixed cost per ring step in ns (NCCL's "
     "hwLat Simple minus LL; default 0)", ""},
    {"--interference", true, false, "GEMM + all-reduce timings (interference.json) to fit the interference", ""},
    {"--comm-slowdown", true, false, "the machine's a-priori slow-down of communication beside compute (a fraction, "
     "measured on other data than the traces a what-if replays: the replay's default comm_slowdown; default 0)", ""},
    {"--comm-slowdown-source", true, false, "where --comm-slowdown was measured (text kept in the topology)", ""},
    {"--json", false, false, "machine-readable fit and residuals (with schema_version)", ""},
    {"--help", false, false, "this help", "-h"},
};

constexpr int kCalibrateSchemaVersion = 2;

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

// What the command line asks for, parsed: the sweeps, the base topology, NCCL's logged structure.
struct Request {
  std::string out_path;
  sim::RawCalibration raw;
  Topology topo;
  uint32_t nccl_channels = 24;
  NcclProfile nccl_structure;
  std::vector<sim::HarnessRow> rows;  // --kernels, de-duplicated
  std::optional<std::string> interference;
};

// A byte count or nanoseconds: a non-negative number, 0 when absent.
double non_negative(const Args& args, const char* name) {
  const auto v = args.value(name);
  if (!v) return 0;
  try {
    const double b = std::stod(*v);
    if (b < 0) throw std::invalid_argument("negative");
    return b;
  } catch (const std::exception&) {
    throw UsageError(std::string(name) + " expects a byte count, got '" + *v + "'");
  }
}

Request parse_request(const Args& args) {
  Request q;
  if (args.inputs().empty()) throw UsageError("expected at least one raw calibration file");
  const auto out = args.value("--output");
  if (!out) throw UsageError("-o TOPOLOGY.json is required");
  q.out_path = *out;
  q.raw = sim::load_raw_calibrations(args.inputs());
  const std::string base_name = args.value("--base").value_or(q.raw.machine);
  if (base_name.empty()) throw UsageError("the sweep names no machine: give --base NAME|PATH");
  try {
    q.topo = find_topology(base_name);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  q.nccl_channels = static_cast<uint32_t>(args.integer("--nccl-channels", 24, 1, 128));
  q.nccl_structure.channels = q.nccl_channels;
  q.nccl_structure.ll_max_bytes = non_negative(args, "--nccl-ll-max");
  q.nccl_structure.ll_max_buffer_bytes = non_negative(args, "--nccl-ll-max-buffer");
  q.nccl_structure.channel_min_bytes = non_negative(args, "--nccl-channel-bytes");
  // A priori, from NCCL's latency model (its tuning table), not fitted: Simple's fixed cost over LL's.
  q.nccl_structure.simple_extra_ns = non_negative(args, "--nccl-simple-extra");
  q.nccl_structure.simple_extra_per_step_ns = non_negative(args, "--nccl-simple-extra-step");
  for (const std::string& path : args.values("--kernels"))
    for (auto& r : sim::load_harness_rows(path)) q.rows.push_back(std::move(r));
  q.rows = sim::unique_rows(q.rows);
  q.interference = args.value("--interference");
  return q;
}

// The command that made the file, as it goes into calibration_source.
std::string command_line(const Args& args, const Request& q) {
  std::string command = "parascope-cli calibrate " + join(args.inputs(), " ");
  for (const auto& k : args.values("--kernels")) command += " --kernels " + k;
  if (args.value("--nccl-channels")) command += " --nccl-channels " + std::to_string(q.nccl_channels);
  for (const char* name : {"--nccl-ll-max", "--nccl-ll-max-buffer", "--nccl-channel-bytes", "--nccl-simple-extra",
                           "--nccl-simple-extra-step", "--interference", "--comm-slowdown"})
    if (const auto v = args.value(name)) command += std::string(" ") + name + " " + *v;
  if (const auto v = args.value("--comm-slowdown-source")) command += " --comm-slowdown-source '" + *v + "'";
  return command;
}

struct Fits {
  double floor_ns = 0;  // the launch floor of the graph_floor rows
  sim::CalibrationFit mechanisms;
  std::optional<sim::NcclFit> nccl;
  std::optional<sim::KernelFit> kernels;
  std::optional<sim::InterferenceFit> inter;
  std::optional<sim::AccuracyReport> acc;
  JsonValue doc;  // calibration_fit
};

// The fits in their order, each written into `topo`: the launch floor (what the SM mechanisms'
// setup is measured beyond), the mechanisms, the direct kernels' parameters, NCCL's profile on top
// of them (its rows also pay the signal, HBM and reduce costs fitted there), the interference; then
// every harness row against the result.
Fits fit_all(Request& q) {
  Fits f;
  Topology& topo = q.topo;
  f.floor_ns = sim::graph_floor_ns(q.rows);
  if (f.floor_ns > 0)
    for (TopoNode& n : topo.nodes)
      if (n.gpu) n.gpu->kernel_latency_ns = f.floor_ns;
  f.mechanisms = sim::fit_calibration(q.raw);
  sim::apply_calibration(topo, f.mechanisms);
  f.doc = sim::calibration_fit_json(f.mechanisms);
  const sim::FitSplit split;
  if (!q.rows.empty()) {
    // NCCL's measured profile replaces the aggregate SM copy model it was a stand-in for.
    for (TopoNode& n : topo.nodes)
      if (n.gpu) n.gpu->sm_copy_bytes_per_s = 0;
    f.kernels = sim::fit_kernel_params(topo, q.rows, split);
    if (f.kernels->evaluations > 0) sim::apply_kernel_fit(topo, *f.kernels);
    f.nccl = sim::fit_nccl_profile(topo, q.rows, split, q.nccl_structure);
    if (!f.nccl->profile.channel_rate.empty()) topo.nccl = f.nccl->profile;
  }
  if (q.interference) {
    f.inter = sim::fit_interference(topo, sim::load_interference(*q.interference));
    sim::apply_interference_fit(topo, *f.inter);
    JsonValue errs = JsonValue::array(), fit_errs = JsonValue::array(), scored_errs = JsonValue::array();
    for (size_t i = 0; i < f.inter->errors.size(); ++i) {
      errs.push(JsonValue::number(f.inter->errors[i]));
      (f.inter->fitted[i] ? fit_errs : scored_errs).push(JsonValue::number(f.inter->errors[i]));
    }
    f.doc.set("interference", JsonValue::object({{"source", JsonValue::string(*q.interference)},
                                                 {"bf16_TFLOPs", JsonValue::number(f.inter->bf16_TFLOPs)},
                                                 {"comm_interference", JsonValue::number(f.inter->comm_interference)},
                                                 {"concurrent_time_errors", std::move(errs)},
                                                 {"fit_errors", std::move(fit_errs)},
                                                 {"scored_errors", std::move(scored_errs)}}));
  }
  if (!q.rows.empty()) {
    f.acc = sim::evaluate_accuracy(topo, q.rows, split);
    JsonValue k = sim::accuracy_json(*f.acc);
    k.set("graph_floor_ns", JsonValue::number(f.floor_ns));
    k.set("kernel_params", JsonValue::object({{"signal_latency_ns", JsonValue::number(f.kernels->signal_latency_ns)},
                                              {"local_copy_per_sm_GBps", JsonValue::number(f.kernels->local_copy_GBps_per_sm)},
                                              {"reduce_cost", JsonValue::number(f.kernels->reduce_cost)},
                                              {"hbm_GBps", JsonValue::number(f.kernels->hbm_GBps)},
                                              {"block_latency_ns", JsonValue::number(f.kernels->block_latency_ns)}}));
    f.doc.set("harness", std::move(k));
  }
  return f;
}

void write_topology(const Request& q, const Fits& f) {
  JsonValue doc = topology_to_json(q.topo);
  doc.set("calibration_fit", f.doc);
  AtomicFile out(q.out_path);  // a failed write leaves nothing under the output name
  out.write(to_json(doc, 1) + "\n");
  out.commit();
}

void print_mechanisms(const sim::CalibrationFit& fit) {
  std::printf("mechanism models (t = latency + bytes / rate; SM rate = smooth_min(SMs x per-SM, cap); both directions: "
              "cap / (1 + reverse)):\n");
  std::printf("  %-10s %10s %10s %10s %9s %8s %6s %8s %8s  %s\n", "mechanism", "latency", "per SM", "cap/rate", "sharpness",
              "reverse", "rows", "median", "worst", "worst row");
  for (const auto& m : fit.mechanisms) {
    const bool ce = m.mechanism == "ce";
    char per_sm[32] = "-", sharp[32] = "-";
    if (!ce) {
      std::snprintf(per_sm, sizeof per_sm, "%.1f", m.sm.per_sm_bytes_per_s / 1e9);
      std::snprintf(sharp, sizeof sharp, "%.1f", m.sm.sharpness);
    }
    std::printf("  %-10s %7.0f ns %5s GB/s %5.1f GB/s %9s %8.4f %6zu %7.1f%% %7.1f%%  %s\n", m.mechanism.c_str(), m.latency_ns, per_sm,
                (ce ? m.ce.rate_bytes_per_s : m.sm.cap_bytes_per_s) / 1e9, sharp, ce ? m.ce.reverse_weight : m.sm.reverse_weight,
                m.rows, 100 * m.median_abs_error, 100 * m.max_abs_error, m.worst.c_str());
  }
  std::printf("residuals (model time / measured time - 1):\n  %-10s %-4s %10s %5s %10s %10s %8s\n", "mechanism", "dir", "bytes", "sms",
              "measured", "model", "error");
  for (const auto& r : fit.residuals)
    std::printf("  %-10s %-4s %10s %5d %8.1f GB/s %6.1f GB/s %+7.1f %%%s\n", r.row.mechanism.c_str(), r.row.direction.c_str(),
                sim::format_bytes(static_cast<int64_t>(r.row.bytes)).c_str(), r.row.sms, r.measured_GBps, r.model_GBps, 100 * r.error,
                r.fitted ? "" : "  (not fitted)");
  std::printf("all %zu rows: median |error| %.1f %%, max %.1f %%\n", fit.residuals.size(), 100 * fit.median_abs_error,
              100 * fit.max_abs_error);
  for (const auto& n : fit.notes) std::printf("note: %s\n", n.c_str());
}

void print_knots(const std::vector<std::pair<double, double>>& knots) {
  for (const auto& [b, r] : knots) std::printf(" %s %.1f", sim::format_bytes(static_cast<int64_t>(b)).c_str(), r / 1e9);
  std::printf(" GB/s\n");
}

void print_nccl_profile(const NcclProfile& p, const NcclProfile& structure) {
  std::printf("NCCL profile: collective %.0f ns, send/recv %.0f ns, per message %.0f ns, %u channels; per-channel rate:",
              p.collective_latency_ns, p.p2p_latency_ns, p.step_latency_ns, p.channels);
  print_knots(p.channel_rate);
  if (!p.ll_channel_rate.empty()) {
    std::printf("  LL up to %s per rank:", sim::format_bytes(static_cast<int64_t>(p.ll_max_bytes)).c_str());
    print_knots(p.ll_channel_rate);
  }
  if (p.p2p_rate_scale != 1) std::printf("  send/recv and all-to-all: x %.3f of that rate (fitted)\n", p.p2p_rate_scale);
  for (const auto& [op, c] : p.op_channel_rate) {
    for (const bool ll : {false, true}) {
      const auto& knots = ll ? c.ll : c.simple;
      if (knots.empty()) continue;
      std::printf("  %-13s %-6s", op.c_str(), ll ? "LL" : "Simple");
      print_knots(knots);
    }
  }
  const bool extra_fitted = p.simple_extra_ns != structure.simple_extra_ns || p.simple_extra_per_step_ns != structure.simple_extra_per_step_ns;
  if (p.simple_extra_ns > 0 || p.simple_extra_per_step_ns > 0)
    std::printf("  Simple (ring): + %.0f ns + %.0f ns per ring step over LL's fixed cost (%s)\n", p.simple_extra_ns,
                p.simple_extra_per_step_ns,
                extra_fitted ? "fitted on the rows with NCCL_PROTO=Simple forced, from NCCL's latency model" : "NCCL's latency model, not fitted");
  if (p.channel_min_bytes > 0)
    std::printf("  channels: buffer / %s, at most %u\n", sim::format_bytes(static_cast<int64_t>(p.channel_min_bytes)).c_str(), p.channels);
}

void print_harness(const Request& q, const Fits& f) {
  std::printf("launch floor (graph_floor rows): %.0f ns per kernel\n", f.floor_ns);
  if (q.topo.nccl) print_nccl_profile(*q.topo.nccl, q.nccl_structure);
  const sim::KernelFit& k = *f.kernels;
  std::printf("direct kernels: signal %.0f ns, local copy %.1f GB/s per SM, reduce cost %.2f, HBM %.0f GB/s, %.1f ns per block\n",
              k.signal_latency_ns, k.local_copy_GBps_per_sm, k.reduce_cost, k.hbm_GBps, k.block_latency_ns);
  std::printf("  %-14s %-14s %-5s %8s %4s %11s %11s %8s  %s\n", "op", "variant", "dtype", "bytes", "SMs", "measured", "simulated",
              "error", "set");
  const sim::AccuracyReport& acc = *f.acc;
  for (const auto& a : acc.rows) {
    if (a.role == sim::RowRole::kNotModelled || a.role == sim::RowRole::kOutOfRange) continue;
    std::printf("  %-14s %-14s %-5s %8s %4d %8.1f us %8.1f us %+7.1f%%  %s\n", a.row.op.c_str(), a.row.variant.c_str(),
                a.row.dtype.c_str(), sim::format_bytes(static_cast<int64_t>(a.row.bytes)).c_str(), a.row.sms, a.row.median_ns / 1000,
                a.simulated_ns / 1000, 100 * a.error, std::string(sim::to_string(a.role)).c_str());
  }
  std::printf("fit: %zu rows, median |error| %.1f %%, max %.1f %%; validation: %zu rows, median %.1f %%, max %.1f %% "
              "(NCCL %zu rows: %.1f / %.1f %%, kernels %zu rows: %.1f / %.1f %%)\n",
              acc.fit.count, 100 * acc.fit.median_abs, 100 * acc.fit.max_abs, acc.validation.count, 100 * acc.validation.median_abs,
              100 * acc.validation.max_abs, acc.validation_nccl.count, 100 * acc.validation_nccl.median_abs, 100 * acc.validation_nccl.max_abs,
              acc.validation_kernels.count, 100 * acc.validation_kernels.median_abs, 100 * acc.validation_kernels.max_abs);
}

void print_interference(const sim::InterferenceFit& inter) {
  std::printf("interference: GEMM %.0f TFLOP/s, comm_interference %.2f; concurrent-time errors, fit rows:", inter.bf16_TFLOPs,
              inter.comm_interference);
  for (size_t i = 0; i < inter.errors.size(); ++i)
    if (inter.fitted[i]) std::printf(" %+.1f %%", 100 * inter.errors[i]);
  std::printf("; scored half (not fitted, not blind):");
  for (size_t i = 0; i < inter.errors.size(); ++i)
    if (!inter.fitted[i]) std::printf(" %+.1f %%", 100 * inter.errors[i]);
  std::printf("\n");
}

}  // namespace

int run_calibrate(const VerbArgs& argv) {
  const Args args(kOptions, argv);
  if (args.flag("--help")) {
    std::printf("usage: parascope-cli calibrate RAW.json [RAW2.json ...] -o TOPOLOGY.json [options]\n%s",
                options_help(kOptions).c_str());
    return 0;
  }
  Request q = parse_request(args);
  const Fits f = fit_all(q);
  q.topo.calibration_source = command_line(args, q);
  if (args.value("--comm-slowdown")) {
    const double slowdown = non_negative(args, "--comm-slowdown");
    const std::string source = args.value("--comm-slowdown-source").value_or("--comm-slowdown");
    for (TopoNode& n : q.topo.nodes)
      if (n.gpu) {
        n.gpu->comm_slowdown = slowdown;
        n.gpu->comm_slowdown_source = source;
      }
  }
  write_topology(q, f);
  if (args.flag("--json")) {
    JsonValue report = f.doc;
    report.set("schema_version", JsonValue::number(static_cast<int64_t>(kCalibrateSchemaVersion)));
    report.set("output", JsonValue::string(q.out_path));
    std::printf("%s\n", to_json(report, 2).c_str());
    return 0;
  }
  std::printf("calibrated %s from %s (%zu rows) -> %s\n", q.topo.name.c_str(), join(args.inputs(), ", ").c_str(), q.raw.rows.size(),
              q.out_path.c_str());
  print_mechanisms(f.mechanisms);
  if (f.acc) print_harness(q, f);
  if (f.inter) print_interference(*f.inter);
  return 0;
}

}  // namespace parascope::cli
