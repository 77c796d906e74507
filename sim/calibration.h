// Fitting the transfer-mechanism models to measured P2P curves. The raw sweep (DESIGN.md
// "Calibration": resources/calibration/<machine>_p2p.json, rows of mechanism ce|tma|ldst_push|
// ldst_pull, direction uni|bi, bytes, sms, threads, n, median_ns, p10_ns, p90_ns) goes in; fitted
// models (copy engine: setup + bytes / rate; SM mechanisms: min(SMs x per-SM rate, cap)) and the
// residual of every row come out. Fits minimise squared log-ratios of rates (relative error), so a
// 64 KiB point counts as much as a 1 GiB one. Deterministic: closed forms and fixed grids.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "trace/core/json.h"
#include "trace/core/topology.h"

namespace parascope::sim {

inline constexpr int kCalibrationSchemaVersion = 1;

struct CalibrationRow {
  std::string mechanism;   // ce | tma | ldst_push | ldst_pull
  std::string direction;   // uni | bi (bi: both directions at once; the row is one direction's time)
  double bytes = 0;
  int32_t sms = 0;         // SM mechanisms: blocks (one per SM)
  int32_t threads = 0;     // per block
  int64_t n = 0;
  double median_ns = 0, p10_ns = 0, p90_ns = 0;
};

struct RawCalibration {
  std::string machine;
  std::string source;
  std::vector<CalibrationRow> rows;
};

// InputError with the JSON path on a bad file.
RawCalibration load_raw_calibration(const std::string& path);

struct CalibrationResidual {
  CalibrationRow row;
  double measured_GBps = 0;
  double model_GBps = 0;
  double error = 0;        // model / measured - 1
  std::string model;       // which fitted model predicts it
};

struct CalibrationFit {
  std::optional<CopyEngineModel> copy_engine;
  std::optional<SmTransferModel> ldst;       // from ldst_push rows (the mechanism the simulator runs)
  std::optional<SmTransferModel> ldst_pull;  // reported only: the topology has one LD/ST model
  std::optional<SmTransferModel> tma;
  std::vector<CalibrationResidual> residuals;
  std::vector<std::string> notes;            // what was not fitted and why
  double max_abs_error = 0;
  double median_abs_error = 0;
};

CalibrationFit fit_calibration(const RawCalibration& raw);
// Writes the fitted models into every GPU of `topo` (keeps what was not fitted).
void apply_calibration(Topology& topo, const CalibrationFit& fit);
JsonValue calibration_fit_json(const CalibrationFit& fit);

// Model predictions, shared with the residuals: GB/s for `bytes` with the given model.
double copy_engine_rate(const CopyEngineModel& m, double bytes);
double sm_transfer_rate(const SmTransferModel& m, int32_t sms, int32_t threads, double bytes);

}  // namespace parascope::sim
