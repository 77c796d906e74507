// The raw P2P calibration file of DESIGN.md ("Calibration"): what the P2P sweep measured, one row
// per (mechanism, direction, bytes, SMs), medians and percentiles in ns. `parascope-cli calibrate`
// fits mechanism models to it. Rows are validated on write and on read (mechanism
// ce|tma|ldst_push|ldst_pull, direction uni|bi, p10 ≤ median ≤ p90), so a bad file never reaches
// the fitter. Bandwidth of a row = bytes / median_ns (per direction for "bi").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/core/json.h"

namespace parascope::bench {

inline constexpr int kCalibrationSchemaVersion = 1;

struct CalibrationRow {
  std::string mechanism;  // ce | tma | ldst_push | ldst_pull
  std::string direction;  // uni | bi
  uint64_t bytes = 0;     // per direction
  int sms = 0;            // blocks (one per SM); 0 for the copy engine
  int threads = 0;        // threads per block; 0 for the copy engine
  int n = 0;              // timed samples
  double median_ns = 0, p10_ns = 0, p90_ns = 0;
  bool operator==(const CalibrationRow&) const = default;
};

struct CalibrationMeta {
  std::string machine;  // "h200x2"
  std::string date;     // ISO 8601 UTC
  std::string command;
  std::string devices;  // "2 x NVIDIA H200 (132 SMs), NV18"
  int src_device = 0, dst_device = 1;
};

// Empty string when the row is valid, else the problem.
std::string calibration_row_problem(const CalibrationRow& r);
// JSON text; throws std::invalid_argument naming the first invalid row.
std::string calibration_json(const CalibrationMeta& meta, const std::vector<CalibrationRow>& rows);
// Parses and validates; throws InputError with the JSON path of the bad field.
std::vector<CalibrationRow> parse_calibration(const JsonValue& doc, const std::string& file);
// Highest bytes/median over the rows of one mechanism and direction with sms ≤ max_sms
// (max_sms < 0: any), in GB/s; 0 when there is no such row.
double peak_gbps(const std::vector<CalibrationRow>& rows, const std::string& mechanism, const std::string& direction,
                 int max_sms = -1);

}  // namespace parascope::bench
