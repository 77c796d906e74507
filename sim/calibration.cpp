#include "sim/calibration.h"

#include <algorithm>
#include <cmath>

namespace parascope::sim {

namespace {

constexpr double kG = 1e9;

double measured_rate(const CalibrationRow& r) { return r.bytes / (r.median_ns * 1e-9); }

double log_ratio_sq(double model, double measured) {
  const double l = std::log(model / measured);
  return l * l;
}

// Copy engine: t = setup + bytes / rate. Relative least squares is linear in (setup, 1/rate):
// minimise sum (setup / t + bytes * x / t - 1)^2.
std::optional<CopyEngineModel> fit_copy_engine(const std::vector<const CalibrationRow*>& rows) {
  if (rows.size() < 2) return std::nullopt;
  double a11 = 0, a12 = 0, a22 = 0, b1 = 0, b2 = 0;
  for (const CalibrationRow* r : rows) {
    const double u = 1.0 / r->median_ns, v = r->bytes / r->median_ns;
    a11 += u * u;
    a12 += u * v;
    a22 += v * v;
    b1 += u;
    b2 += v;
  }
  const double det = a11 * a22 - a12 * a12;
  if (std::fabs(det) < 1e-300) return std::nullopt;
  double setup = (b1 * a22 - b2 * a12) / det;  // ns
  double x = (a11 * b2 - a12 * b1) / det;      // ns per byte
  if (setup < 0) {  // a negative setup is not physical: fit the rate alone
    setup = 0;
    x = b2 / a22;
  }
  if (!(x > 0)) return std::nullopt;
  CopyEngineModel m;
  m.count = 1;
  m.setup_ns = setup;
  m.rate_bytes_per_s = 1.0 / x * kG;
  return m;
}

// SM mechanism: rate(k) = min(k * per_sm * min(1, threads / per_sm_threads), cap), plus a per-message
// setup when rows of different sizes exist. Coarse-to-fine grid on (per_sm, cap) in log space.
std::optional<SmTransferModel> fit_sm(const std::vector<const CalibrationRow*>& rows) {
  if (rows.size() < 2) return std::nullopt;
  const int32_t ref_threads = rows.front()->threads > 0 ? rows.front()->threads : 1024;
  double best_per_sm = 0, max_rate = 0;
  for (const CalibrationRow* r : rows) {
    const double per = measured_rate(*r) / std::max(1, r->sms);
    best_per_sm = std::max(best_per_sm, per);
    max_rate = std::max(max_rate, measured_rate(*r));
  }
  SmTransferModel m;
  m.per_sm_threads = static_cast<uint32_t>(ref_threads);
  auto cost = [&](double per_sm, double cap) {
    SmTransferModel t = m;
    t.per_sm_bytes_per_s = per_sm;
    t.cap_bytes_per_s = cap;
    double c = 0;
    for (const CalibrationRow* r : rows) c += log_ratio_sq(sm_transfer_rate(t, r->sms, r->threads, r->bytes) * kG, measured_rate(*r));
    return c;
  };
  double p_lo = best_per_sm * 0.3, p_hi = best_per_sm * 1.5, c_lo = max_rate * 0.7, c_hi = max_rate * 1.3;
  double bp = best_per_sm, bc = max_rate, bcost = cost(bp, bc);
  for (int round = 0; round < 4; ++round) {
    constexpr int kSteps = 60;
    for (int i = 0; i <= kSteps; ++i)
      for (int j = 0; j <= kSteps; ++j) {
        const double p = p_lo * std::pow(p_hi / p_lo, static_cast<double>(i) / kSteps);
        const double c = c_lo * std::pow(c_hi / c_lo, static_cast<double>(j) / kSteps);
        const double v = cost(p, c);
        if (v < bcost) {
          bcost = v;
          bp = p;
          bc = c;
        }
      }
    const double span_p = std::pow(p_hi / p_lo, 2.0 / 60), span_c = std::pow(c_hi / c_lo, 2.0 / 60);
    p_lo = bp / span_p;
    p_hi = bp * span_p;
    c_lo = bc / span_c;
    c_hi = bc * span_c;
  }
  m.per_sm_bytes_per_s = bp;
  m.cap_bytes_per_s = bc;
  return m;
}

}  // namespace

double copy_engine_rate(const CopyEngineModel& m, double bytes) {
  if (!(m.rate_bytes_per_s > 0)) return 0;
  return bytes / (m.setup_ns + bytes / m.rate_bytes_per_s * kG);  // bytes per ns = GB/s
}

double sm_transfer_rate(const SmTransferModel& m, int32_t sms, int32_t threads, double bytes) {
  const double scale = threads > 0 ? std::min(1.0, static_cast<double>(threads) / std::max<uint32_t>(1, m.per_sm_threads)) : 1.0;
  double rate = std::max(1, sms) * m.per_sm_bytes_per_s * scale;
  if (m.cap_bytes_per_s > 0) rate = std::min(rate, m.cap_bytes_per_s);
  if (!(rate > 0)) return 0;
  return bytes / (m.setup_ns + bytes / rate * kG);
}

RawCalibration load_raw_calibration(const std::string& path) {
  const JsonValue doc = load_json_file(path);
  JsonField root(doc, path);
  root.expect(JsonValue::Type::kObject);
  const JsonField version = root.at("schema_version");
  if (version.as_int() > kCalibrationSchemaVersion)
    version.fail("schema_version " + std::to_string(version.as_int()) + " is newer than this build reads (" +
                 std::to_string(kCalibrationSchemaVersion) + ")");
  RawCalibration raw;
  raw.machine = root.get_string("machine", "");
  raw.source = root.get_string("source", "");
  const JsonField rows = root.at("rows");
  for (size_t i = 0; i < rows.size(); ++i) {
    const JsonField f = rows.at(i);
    CalibrationRow r;
    const JsonField mech = f.at("mechanism");
    r.mechanism = mech.as_string();
    if (r.mechanism != "ce" && r.mechanism != "tma" && r.mechanism != "ldst_push" && r.mechanism != "ldst_pull")
      mech.fail("unknown mechanism \"" + r.mechanism + "\"; expected one of: ce, tma, ldst_push, ldst_pull");
    const JsonField dir = f.at("direction");
    r.direction = dir.as_string();
    if (r.direction != "uni" && r.direction != "bi") dir.fail("unknown direction \"" + r.direction + "\"; expected uni or bi");
    const JsonField bytes = f.at("bytes");
    r.bytes = bytes.as_double();
    if (!(r.bytes > 0)) bytes.fail("bytes must be > 0");
    r.sms = static_cast<int32_t>(f.get_int("sms", 0));
    r.threads = static_cast<int32_t>(f.get_int("threads", 0));
    if (r.mechanism != "ce" && r.sms < 1) f.at("sms").fail("an SM mechanism row needs sms >= 1");
    r.n = f.get_int("n", 0);
    const JsonField median = f.at("median_ns");
    r.median_ns = median.as_double();
    if (!(r.median_ns > 0)) median.fail("median_ns must be > 0");
    r.p10_ns = f.get_double("p10_ns", r.median_ns);
    r.p90_ns = f.get_double("p90_ns", r.median_ns);
    raw.rows.push_back(std::move(r));
  }
  if (raw.rows.empty()) rows.fail("no rows");
  return raw;
}

CalibrationFit fit_calibration(const RawCalibration& raw) {
  CalibrationFit fit;
  auto select = [&](const std::string& mech, const std::string& dir) {
    std::vector<const CalibrationRow*> out;
    for (const CalibrationRow& r : raw.rows)
      if (r.mechanism == mech && r.direction == dir) out.push_back(&r);
    return out;
  };
  fit.copy_engine = fit_copy_engine(select("ce", "uni"));
  fit.ldst = fit_sm(select("ldst_push", "uni"));
  fit.ldst_pull = fit_sm(select("ldst_pull", "uni"));
  fit.tma = fit_sm(select("tma", "uni"));
  if (!fit.copy_engine) fit.notes.push_back("copy engine: fewer than 2 'ce uni' rows, model unchanged");
  if (!fit.ldst) fit.notes.push_back("LD/ST: fewer than 2 'ldst_push uni' rows, model unchanged");
  if (!fit.tma) fit.notes.push_back("TMA: fewer than 2 'tma uni' rows, model unchanged");
  if (fit.ldst_pull) fit.notes.push_back("LD/ST pull fitted and reported only: the simulator's LD/ST model is the push fit");
  fit.notes.push_back("multimem: no rows (NVLS is off on measured machines), model unchanged");

  std::vector<double> errors;
  for (const CalibrationRow& r : raw.rows) {
    CalibrationResidual res;
    res.row = r;
    res.measured_GBps = measured_rate(r) / kG;
    if (r.mechanism == "ce" && fit.copy_engine) {
      res.model_GBps = copy_engine_rate(*fit.copy_engine, r.bytes);
      res.model = "ce";
    } else if (r.mechanism == "ldst_push" && fit.ldst) {
      res.model_GBps = sm_transfer_rate(*fit.ldst, r.sms, r.threads, r.bytes);
      res.model = "ldst";
    } else if (r.mechanism == "ldst_pull" && fit.ldst_pull) {
      res.model_GBps = sm_transfer_rate(*fit.ldst_pull, r.sms, r.threads, r.bytes);
      res.model = "ldst_pull";
    } else if (r.mechanism == "tma" && fit.tma) {
      res.model_GBps = sm_transfer_rate(*fit.tma, r.sms, r.threads, r.bytes);
      res.model = "tma";
    }
    if (res.model_GBps > 0) {
      res.error = res.model_GBps / res.measured_GBps - 1;
      if (r.direction == "uni") errors.push_back(std::fabs(res.error));
    }
    fit.residuals.push_back(std::move(res));
  }
  if (!errors.empty()) {
    std::sort(errors.begin(), errors.end());
    fit.max_abs_error = errors.back();
    fit.median_abs_error = errors.size() % 2 ? errors[errors.size() / 2] : (errors[errors.size() / 2 - 1] + errors[errors.size() / 2]) / 2;
  }
  return fit;
}

void apply_calibration(Topology& topo, const CalibrationFit& fit) {
  for (TopoNode& n : topo.nodes) {
    if (!n.gpu) continue;
    if (fit.copy_engine) {
      const uint32_t count = n.gpu->copy_engine.count ? n.gpu->copy_engine.count : 1;
      n.gpu->copy_engine = *fit.copy_engine;
      n.gpu->copy_engine.count = count;
    }
    auto keep_setup = [](SmTransferModel& dst, const SmTransferModel& src) {
      const double setup = dst.setup_ns;
      dst = src;
      if (src.setup_ns == 0) dst.setup_ns = setup;  // the sweep's 1 GiB rows cannot see a per-message setup
    };
    if (fit.ldst) keep_setup(n.gpu->ldst, *fit.ldst);
    if (fit.tma) keep_setup(n.gpu->tma, *fit.tma);
  }
  topo.calibration = Calibration::kMeasured;
}

JsonValue calibration_fit_json(const CalibrationFit& fit) {
  JsonValue models = JsonValue::object();
  if (fit.copy_engine)
    models.set("copy_engine", JsonValue::object({{"setup_ns", JsonValue::number(fit.copy_engine->setup_ns)},
                                                 {"rate_GBps", JsonValue::number(fit.copy_engine->rate_bytes_per_s / kG)}}));
  auto sm = [](const SmTransferModel& m) {
    return JsonValue::object({{"per_sm_GBps", JsonValue::number(m.per_sm_bytes_per_s / kG)},
                              {"cap_GBps", JsonValue::number(m.cap_bytes_per_s / kG)},
                              {"per_sm_threads", JsonValue::number(static_cast<int64_t>(m.per_sm_threads))}});
  };
  if (fit.ldst) models.set("ldst", sm(*fit.ldst));
  if (fit.ldst_pull) models.set("ldst_pull", sm(*fit.ldst_pull));
  if (fit.tma) models.set("tma", sm(*fit.tma));
  JsonValue rows = JsonValue::array();
  for (const auto& r : fit.residuals)
    rows.push(JsonValue::object({{"mechanism", JsonValue::string(r.row.mechanism)},
                                 {"direction", JsonValue::string(r.row.direction)},
                                 {"bytes", JsonValue::number(r.row.bytes)},
                                 {"sms", JsonValue::number(static_cast<int64_t>(r.row.sms))},
                                 {"measured_GBps", JsonValue::number(r.measured_GBps)},
                                 {"model_GBps", JsonValue::number(r.model_GBps)},
                                 {"error", JsonValue::number(r.error)}}));
  JsonValue notes = JsonValue::array();
  for (const auto& n : fit.notes) notes.push(JsonValue::string(n));
  return JsonValue::object({{"models", std::move(models)},
                            {"median_abs_error", JsonValue::number(fit.median_abs_error)},
                            {"max_abs_error", JsonValue::number(fit.max_abs_error)},
                            {"residuals", std::move(rows)},
                            {"notes", std::move(notes)}});
}

}  // namespace parascope::sim
