#include "host/calibration_file.h"

#include <cmath>
#include <stdexcept>

namespace parascope::bench {

std::string calibration_row_problem(const CalibrationRow& r) {
  if (r.mechanism != "ce" && r.mechanism != "tma" && r.mechanism != "ldst_push" && r.mechanism != "ldst_pull" &&
      r.mechanism != "tma_pull")
    return "mechanism '" + r.mechanism + "' is not ce|tma|ldst_push|ldst_pull|tma_pull";
  if (r.direction != "uni" && r.direction != "bi") return "direction '" + r.direction + "' is not uni|bi";
  if (r.bytes == 0) return "bytes is 0";
  if (r.n <= 0) return "n must be positive";
  if (r.sms < 0 || r.threads < 0) return "sms and threads must not be negative";
  if (r.mechanism == "ce" && (r.sms != 0 || r.threads != 0)) return "copy-engine rows have sms = threads = 0";
  if (r.mechanism != "ce" && (r.sms == 0 || r.threads == 0)) return "SM mechanisms need sms and threads";
  if (!std::isfinite(r.median_ns) || !std::isfinite(r.p10_ns) || !std::isfinite(r.p90_ns) || r.p10_ns <= 0)
    return "times must be finite and positive";
  if (!(r.p10_ns <= r.median_ns && r.median_ns <= r.p90_ns)) return "needs p10_ns <= median_ns <= p90_ns";
  return {};
}

std::string calibration_json(const CalibrationMeta& meta, const std::vector<CalibrationRow>& rows) {
  JsonValue doc = JsonValue::object();
  doc.set("schema_version", JsonValue::number(int64_t{kCalibrationSchemaVersion}));
  doc.set("kind", JsonValue::string("p2p_raw"));
  doc.set("machine", JsonValue::string(meta.machine));
  doc.set("date", JsonValue::string(meta.date));
  doc.set("command", JsonValue::string(meta.command));
  doc.set("devices", JsonValue::string(meta.devices));
  doc.set("src_device", JsonValue::number(int64_t{meta.src_device}));
  doc.set("dst_device", JsonValue::number(int64_t{meta.dst_device}));
  JsonValue arr = JsonValue::array();
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    if (const auto p = calibration_row_problem(r); !p.empty())
      throw std::invalid_argument("calibration row " + std::to_string(i) + ": " + p);
    JsonValue o = JsonValue::object();
    o.set("mechanism", JsonValue::string(r.mechanism));
    o.set("direction", JsonValue::string(r.direction));
    o.set("bytes", JsonValue::number(static_cast<int64_t>(r.bytes)));
    o.set("sms", JsonValue::number(int64_t{r.sms}));
    o.set("threads", JsonValue::number(int64_t{r.threads}));
    o.set("n", JsonValue::number(int64_t{r.n}));
    o.set("median_ns", JsonValue::number(r.median_ns));
    o.set("p10_ns", JsonValue::number(r.p10_ns));
    o.set("p90_ns", JsonValue::number(r.p90_ns));
    arr.push(o);
  }
  doc.set("rows", arr);
  return to_json(doc, 1) + "\n";
}

std::vector<CalibrationRow> parse_calibration(const JsonValue& doc, const std::string& file) {
  const JsonField root(doc, file);
  const int64_t version = root.at("schema_version").as_int();
  if (version != kCalibrationSchemaVersion)
    root.at("schema_version").fail("schema_version " + std::to_string(version) + " is not supported (expected 1)");
  const JsonField rows = root.at("rows");
  std::vector<CalibrationRow> out;
  for (size_t i = 0; i < rows.size(); ++i) {
    const JsonField f = rows.at(i);
    CalibrationRow r;
    r.mechanism = f.at("mechanism").as_string();
    r.direction = f.at("direction").as_string();
    r.bytes = f.at("bytes").as_uint();
    r.sms = static_cast<int>(f.at("sms").as_int());
    r.threads = static_cast<int>(f.at("threads").as_int());
    r.n = static_cast<int>(f.at("n").as_int());
    r.median_ns = f.at("median_ns").as_double();
    r.p10_ns = f.at("p10_ns").as_double();
    r.p90_ns = f.at("p90_ns").as_double();
    if (const auto p = calibration_row_problem(r); !p.empty()) f.fail(p);
    out.push_back(r);
  }
  return out;
}

double peak_gbps(const std::vector<CalibrationRow>& rows, const std::string& mechanism, const std::string& direction,
                 int max_sms) {
  double best = 0;
  for (const auto& r : rows)
    if (r.mechanism == mechanism && r.direction == direction && (max_sms < 0 || r.sms <= max_sms))
      best = std::max(best, static_cast<double>(r.bytes) / r.median_ns);
  return best;
}

}  // namespace parascope::bench
