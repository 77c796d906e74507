// `parascope-cli calibrate RAW -o TOPOLOGY [--base NAME|PATH] [--collectives FILE] [--interference FILE]
// [--json]`: fits the copy-engine, LD/ST and TMA models from a raw P2P sweep (DESIGN.md
// "Calibration"), writes them into the base topology (default: the preset named by the sweep's
// "machine"), marks it measured, and prints the residual of every row. With --collectives it also
// fits the SM copy throughput and kernel latency to measured NCCL timings (fit set: --fit-dtype and
// --fit-sizes; the rest is held out and reported), with --interference the GEMM rate and the
// compute/communication interference. The written file carries it all under "calibration_fit".
#include <cstdio>
#include <fstream>
#include <optional>

#include "cli/cli_args.h"
#include "cli/verbs.h"
#include "sim/calibration.h"
#include "sim/collective_fit.h"
#include "sim/simulation.h"
#include "trace/core/topology_json.h"
#include "trace/io/atomic_file.h"

namespace parascope::cli {

namespace {

const std::vector<OptionSpec> kOptions = {
    {"--output", true, false, "topology JSON to write", "-o"},
    {"--base", true, false, "topology to start from (preset name or file; default: the sweep's machine)", ""},
    {"--collectives", true, false, "measured collective timings (nccl_collectives.json) to fit the collective model", ""},
    {"--fit-dtype", true, false, "collective rows of this dtype form the fit set (default bfloat16)", ""},
    {"--fit-sizes", true, false, "per-rank sizes in the fit set (default 64MiB,256MiB)", ""},
    {"--interference", true, false, "GEMM + all-reduce timings (interference.json) to fit the interference", ""},
    {"--json", false, false, "machine-readable fit and residuals (with schema_version)", ""},
    {"--help", false, false, "this help", "-h"},
};

constexpr int kCalibrateSchemaVersion = 1;

}  // namespace

int run_calibrate(const VerbArgs& argv) {
  const Args args(kOptions, argv);
  if (args.flag("--help")) {
    std::printf("usage: parascope-cli calibrate RAW.json -o TOPOLOGY.json [options]\n%s", options_help(kOptions).c_str());
    return 0;
  }
  if (args.inputs().size() != 1) throw UsageError("expected one raw calibration file");
  const auto out_path = args.value("--output");
  if (!out_path) throw UsageError("-o TOPOLOGY.json is required");
  const std::string raw_path = args.inputs().front();
  const sim::RawCalibration raw = sim::load_raw_calibration(raw_path);
  const std::string base_name = args.value("--base").value_or(raw.machine);
  if (base_name.empty()) throw UsageError("the sweep names no machine: give --base NAME|PATH");
  Topology topo;
  try {
    topo = sim::find_topology(base_name, topology_preset_dir());
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  const sim::CalibrationFit fit = sim::fit_calibration(raw);
  sim::apply_calibration(topo, fit);
  topo.calibration_source = "parascope-cli calibrate " + raw_path + (raw.source.empty() ? "" : " (" + raw.source + ")");
  JsonValue fit_doc = sim::calibration_fit_json(fit);

  std::optional<sim::CollectiveFit> coll;
  if (const auto path = args.value("--collectives")) {
    sim::CollectiveFitOptions opt;
    if (const auto d = args.value("--fit-dtype")) opt.fit_dtype = *d;
    if (const auto sizes = args.value("--fit-sizes")) {
      opt.fit_bytes.clear();
      for (const auto& v : sim::parse_sweep(sim::knob_registry(), "bytes=" + *sizes).second)
        opt.fit_bytes.push_back(static_cast<double>(std::get<int64_t>(v)));
    }
    coll = sim::fit_collectives(topo, sim::load_collective_timings(*path), opt);
    sim::apply_collective_fit(topo, *coll);
    topo.calibration_source += "; collective model: " + *path;
    JsonValue rows = JsonValue::array();
    for (const auto& r : coll->rows)
      rows.push(JsonValue::object({{"op", JsonValue::string(r.timing.op)},
                                   {"dtype", JsonValue::string(r.timing.dtype)},
                                   {"bytes", JsonValue::number(r.timing.bytes)},
                                   {"measured_ns", JsonValue::number(r.timing.median_ns)},
                                   {"predicted_ns", JsonValue::number(r.predicted_ns)},
                                   {"error", JsonValue::number(r.error)},
                                   {"set", JsonValue::string(r.timing.launch_bound ? "launch_bound" : r.in_fit ? "fit" : "held_out")}}));
    fit_doc.set("collectives", JsonValue::object({{"source", JsonValue::string(*path)},
                                                  {"sm_copy_GBps", JsonValue::number(coll->sm_copy_GBps)},
                                                  {"kernel_latency_ns", JsonValue::number(coll->kernel_latency_ns)},
                                                  {"held_out_median_abs_error", JsonValue::number(coll->held_out.median_abs)},
                                                  {"held_out_max_abs_error", JsonValue::number(coll->held_out.max_abs)},
                                                  {"rows", std::move(rows)}}));
  }
  std::optional<sim::InterferenceFit> inter;
  if (const auto path = args.value("--interference")) {
    inter = sim::fit_interference(topo, sim::load_interference(*path), {{"channels", "24"}});
    sim::apply_interference_fit(topo, *inter);
    topo.calibration_source += "; interference: " + *path;
    JsonValue errs = JsonValue::array();
    for (double e : inter->errors) errs.push(JsonValue::number(e));
    fit_doc.set("interference", JsonValue::object({{"source", JsonValue::string(*path)},
                                                   {"bf16_TFLOPs", JsonValue::number(inter->bf16_TFLOPs)},
                                                   {"comm_interference", JsonValue::number(inter->comm_interference)},
                                                   {"concurrent_time_errors", std::move(errs)}}));
  }
  JsonValue doc = topology_to_json(topo);
  doc.set("calibration_fit", fit_doc);
  {
    AtomicFile out(*out_path);  // a failed write leaves nothing under the output name
    out.write(to_json(doc, 1) + "\n");
    out.commit();
  }
  if (args.flag("--json")) {
    JsonValue report = fit_doc;
    report.set("schema_version", JsonValue::number(static_cast<int64_t>(kCalibrateSchemaVersion)));
    report.set("output", JsonValue::string(*out_path));
    std::printf("%s\n", to_json(report, 2).c_str());
    return 0;
  }
  std::printf("calibrated %s from %s (%zu rows) -> %s\n", topo.name.c_str(), raw_path.c_str(), raw.rows.size(), out_path->c_str());
  if (fit.copy_engine)
    std::printf("  copy engine   setup %.0f ns, rate %.1f GB/s\n", fit.copy_engine->setup_ns, fit.copy_engine->rate_bytes_per_s / 1e9);
  if (fit.ldst)
    std::printf("  LD/ST push    %.2f GB/s per SM (%u threads), cap %.1f GB/s\n", fit.ldst->per_sm_bytes_per_s / 1e9,
                fit.ldst->per_sm_threads, fit.ldst->cap_bytes_per_s / 1e9);
  if (fit.ldst_pull)
    std::printf("  LD/ST pull    %.2f GB/s per SM, cap %.1f GB/s (reported only)\n", fit.ldst_pull->per_sm_bytes_per_s / 1e9,
                fit.ldst_pull->cap_bytes_per_s / 1e9);
  if (fit.tma)
    std::printf("  TMA           %.2f GB/s per SM, cap %.1f GB/s\n", fit.tma->per_sm_bytes_per_s / 1e9, fit.tma->cap_bytes_per_s / 1e9);
  std::printf("residuals (model vs measured):\n  %-10s %-4s %10s %5s %10s %10s %8s\n", "mechanism", "dir", "bytes", "sms", "measured", "model",
              "error");
  for (const auto& r : fit.residuals)
    std::printf("  %-10s %-4s %10s %5d %8.1f GB/s %6.1f GB/s %+7.1f %%\n", r.row.mechanism.c_str(), r.row.direction.c_str(),
                sim::format_bytes(static_cast<int64_t>(r.row.bytes)).c_str(), r.row.sms, r.measured_GBps, r.model_GBps, 100 * r.error);
  std::printf("median |error| %.1f %%, max %.1f %% (uni rows)\n", 100 * fit.median_abs_error, 100 * fit.max_abs_error);
  for (const auto& n : fit.notes) std::printf("note: %s\n", n.c_str());
  if (coll) {
    std::printf("collective model: sm_copy %.0f GB/s, kernel latency %.1f us\n  %-14s %-9s %8s %11s %11s %8s  %s\n", coll->sm_copy_GBps,
                coll->kernel_latency_ns / 1000, "op", "dtype", "bytes", "measured", "simulated", "error", "set");
    for (const auto& r : coll->rows) {
      if (r.timing.bytes < 4 * 1024 * 1024) continue;  // launch-bound; listed in the JSON
      std::printf("  %-14s %-9s %8s %9.1f us %9.1f us %+7.1f %%  %s\n", r.timing.op.c_str(), r.timing.dtype.c_str(),
                  sim::format_bytes(static_cast<int64_t>(r.timing.bytes)).c_str(), r.timing.median_ns / 1000, r.predicted_ns / 1000,
                  100 * r.error, r.timing.launch_bound ? "launch-bound (not used)" : r.in_fit ? "fit" : "held out");
    }
    std::printf("  fit set: %zu rows, median |error| %.1f %%, max %.1f %%; held out: %zu rows, median %.1f %%, max %.1f %%\n",
                coll->fit.count, 100 * coll->fit.median_abs, 100 * coll->fit.max_abs, coll->held_out.count,
                100 * coll->held_out.median_abs, 100 * coll->held_out.max_abs);
  }
  if (inter) {
    std::printf("interference: GEMM %.0f TFLOP/s, comm_interference %.2f; concurrent-time errors:", inter->bf16_TFLOPs,
                inter->comm_interference);
    for (double e : inter->errors) std::printf(" %+.1f %%", 100 * e);
    std::printf("\n");
  }
  return 0;
}

}  // namespace parascope::cli
