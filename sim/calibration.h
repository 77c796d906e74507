// Fits the transfer-mechanism models to raw P2P sweeps (DESIGN.md "Calibration": rows of mechanism
// ce|tma|tma_pull|ldst_push|ldst_pull, uni|bi, bytes, sms, threads, median_ns ...), in the forms the
// simulator runs: t = latency + bytes / rate, SM rate = sm_model_rate(k SMs), both directions at once
// cap / (1 + reverse_weight). So a residual is the simulator's error on that row. Deterministic
// Nelder-Mead on squared log time ratios; every row gets its residual, every mechanism its median/worst.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "trace/core/json.h"
#include "trace/core/topology.h"

namespace parascope::sim {

inline constexpr int kCalibrationSchemaVersion = 1;

struct CalibrationRow {
  std::string mechanism;   // ce | tma | tma_pull | ldst_push | ldst_pull
  std::string direction;   // uni | bi (bi: both directions at once; the row is one direction's time)
  double bytes = 0;
  int32_t sms = 0;         // SM mechanisms: blocks (one per SM)
  int32_t threads = 0;     // per block
  int64_t n = 0;
  double median_ns = 0, p10_ns = 0, p90_ns = 0;
  std::string file;        // which raw file it came from
};

struct RawCalibration {
  std::string machine;
  std::string source;
  std::vector<CalibrationRow> rows;
};

// InputError with the JSON path on a bad file.
RawCalibration load_raw_calibration(const std::string& path);
// Several sweeps of one machine (e.g. the main sweep and a later one with tma_pull rows), rows in order.
RawCalibration load_raw_calibrations(const std::vector<std::string>& paths);

// Copy-engine rows below this size are timed on a stream and bound by the host's issue rate (the
// harness cannot capture them in a graph): reported, not fitted.
inline constexpr double kCopyEngineFitMinBytes = 64.0 * 1024;

struct MechanismFit {
  std::string mechanism;   // as in the rows
  double latency_ns = 0;   // per operation, kernel launch included (SM mechanisms)
  CopyEngineModel ce;      // mechanism == "ce"
  SmTransferModel sm;      // otherwise (setup_ns left 0: apply_calibration sets it)
  size_t rows = 0, fitted_rows = 0;
  double median_abs_error = 0, max_abs_error = 0;  // over every row of the mechanism
  std::string worst;       // the worst row, in words
};

struct CalibrationResidual {
  CalibrationRow row;
  double measured_GBps = 0;
  double model_GBps = 0;
  double error = 0;        // model time / measured time - 1 (so +: the model is slow)
  bool fitted = false;
};

struct CalibrationFit {
  std::vector<MechanismFit> mechanisms;
  std::vector<CalibrationResidual> residuals;
  std::vector<std::string> notes;            // what was not fitted and why
  double max_abs_error = 0;                  // every row with a model
  double median_abs_error = 0;
  const MechanismFit* find(const std::string& mechanism) const;
};

CalibrationFit fit_calibration(const RawCalibration& raw);
// Writes the fitted models into every GPU of `topo` (keeps what was not fitted). SM mechanisms get
// setup_ns = latency - the GPU's kernel_latency_ns (the simulator charges the launch once per kernel).
void apply_calibration(Topology& topo, const CalibrationFit& fit);
JsonValue calibration_fit_json(const CalibrationFit& fit);

// The model's time for a row (ns), shared by the fit, the residuals and the tests.
double mechanism_time_ns(const MechanismFit& m, const CalibrationRow& row);

}  // namespace parascope::sim
