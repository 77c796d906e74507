// `parascope-cli calibrate RAW -o TOPOLOGY [--base NAME|PATH] [--json]`: fits the copy-engine, LD/ST
// and TMA models from a raw P2P sweep (DESIGN.md "Calibration"), writes them into the base topology
// (default: the preset named by the sweep's "machine"), marks it measured, and prints the residual
// of every row. The written file carries the fit and residuals under "calibration_fit".
#include <cstdio>
#include <fstream>

#include "cli/cli_args.h"
#include "cli/verbs.h"
#include "sim/calibration.h"
#include "sim/simulation.h"
#include "trace/core/topology_json.h"

#ifndef PARASCOPE_RESOURCE_DIR
#define PARASCOPE_RESOURCE_DIR "resources"
#endif

namespace parascope::cli {

namespace {

const std::vector<OptionSpec> kOptions = {
    {"--output", true, false, "topology JSON to write", "-o"},
    {"--base", true, false, "topology to start from (preset name or file; default: the sweep's machine)", ""},
    {"--json", false, false, "machine-readable fit and residuals (with schema_version)", ""},
    {"--help", false, false, "this help", "-h"},
};

constexpr int kCalibrateSchemaVersion = 1;

std::string preset_dir() {
  if (const char* env = std::getenv("PARASCOPE_RESOURCES")) return std::string(env) + "/topologies";
  return std::string(PARASCOPE_RESOURCE_DIR) + "/topologies";
}

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
    topo = sim::find_topology(base_name, preset_dir());
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  const sim::CalibrationFit fit = sim::fit_calibration(raw);
  sim::apply_calibration(topo, fit);
  topo.calibration_source = "parascope-cli calibrate " + raw_path + (raw.source.empty() ? "" : " (" + raw.source + ")");
  JsonValue doc = topology_to_json(topo);
  doc.set("calibration_fit", sim::calibration_fit_json(fit));
  {
    std::ofstream out(*out_path);
    out << to_json(doc, 1) << "\n";
    if (!out) throw std::runtime_error("cannot write " + *out_path);
  }
  if (args.flag("--json")) {
    JsonValue report = sim::calibration_fit_json(fit);
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
  return 0;
}

}  // namespace parascope::cli
