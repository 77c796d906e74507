#include "sim/calibration.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "sim/knobs.h"
#include "sim/minimize.h"

namespace parascope::sim {

namespace {

constexpr double kG = 1e9;
const char* const kMechanisms[] = {"ce", "ldst_push", "ldst_pull", "tma", "tma_pull"};

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

bool fitted_row(const CalibrationRow& r) { return r.mechanism != "ce" || r.bytes >= kCopyEngineFitMinBytes; }

double sq_log_error(const MechanismFit& m, const std::vector<const CalibrationRow*>& rows) {
  double c = 0;
  for (const CalibrationRow* r : rows) {
    const double l = std::log(mechanism_time_ns(m, *r) / r->median_ns);
    c += l * l;
  }
  return c;
}

// Parameters are fitted as logarithms (all positive); reverse_weight only when bi rows exist.
MechanismFit fit_mechanism(const std::string& mech, const std::vector<const CalibrationRow*>& all) {
  MechanismFit m;
  m.mechanism = mech;
  std::vector<const CalibrationRow*> rows;
  for (const CalibrationRow* r : all)
    if (fitted_row(*r)) rows.push_back(r);
  m.rows = all.size();
  m.fitted_rows = rows.size();
  const bool has_bi = std::any_of(rows.begin(), rows.end(), [](const CalibrationRow* r) { return r->direction == "bi"; });
  double min_t = 1e300, max_rate = 0, max_per_sm = 0;
  std::map<int32_t, int> threads;
  for (const CalibrationRow* r : rows) {
    min_t = std::min(min_t, r->median_ns);
    const double rate = r->bytes / r->median_ns * kG;
    max_rate = std::max(max_rate, rate);
    max_per_sm = std::max(max_per_sm, rate / std::max(1, r->sms));
    ++threads[r->threads];
  }
  if (mech == "ce") {
    auto model = [&](const std::vector<double>& x) {
      MechanismFit t = m;
      t.latency_ns = std::exp(x[0]);
      t.ce.count = 1;
      t.ce.setup_ns = t.latency_ns;
      t.ce.rate_bytes_per_s = std::exp(x[1]);
      t.ce.reverse_weight = has_bi ? std::exp(x[2]) : 0;
      return t;
    };
    const auto best = minimize([&](const std::vector<double>& x) { return sq_log_error(model(x), rows); },
                               {std::log(min_t), std::log(max_rate), std::log(0.02)});
    return model(best.x);
  }
  m.sm.per_sm_threads = static_cast<uint32_t>(std::max_element(threads.begin(), threads.end(), [](auto& a, auto& b) {
                                                return a.second < b.second;
                                              })->first);
  // Rows at several block sizes (e.g. 512 and 1024 threads) also fit the thread count at which an
  // SM's rate saturates (sm_model_rate: linear below it); with one block size it is that size.
  const bool fit_threads = threads.size() >= 2 && threads.begin()->first > 0;
  const double min_threads = threads.begin()->first, max_threads = threads.rbegin()->first;
  auto model = [&](const std::vector<double>& x) {
    MechanismFit t = m;
    t.latency_ns = std::exp(x[0]);
    t.sm.per_sm_bytes_per_s = std::exp(x[1]);
    t.sm.cap_bytes_per_s = std::exp(x[2]);
    t.sm.sharpness = std::min(200.0, std::exp(x[3]));
    t.sm.reverse_weight = has_bi ? std::exp(x[4]) : 0;
    if (fit_threads) t.sm.per_sm_threads = static_cast<uint32_t>(std::lround(std::clamp(std::exp(x[5]), min_threads, max_threads)));
    return t;
  };
  MinimizeResult best;
  best.value = 1e300;
  for (double s0 : {2.0, 8.0, 32.0}) {  // the sharpness has local minima: a few starts, the best wins
    std::vector<double> x0 = {std::log(min_t), std::log(max_per_sm), std::log(max_rate), std::log(s0), std::log(0.02)};
    if (fit_threads) x0.push_back(std::log(std::sqrt(min_threads * max_threads)));
    auto r = minimize([&](const std::vector<double>& x) { return sq_log_error(model(x), rows); }, x0);
    if (r.value < best.value) best = std::move(r);
  }
  return model(best.x);
}

std::string describe(const CalibrationRow& r) {
  std::string s = r.mechanism + " " + r.direction + " " + format_bytes(static_cast<int64_t>(r.bytes));
  if (r.mechanism != "ce") s += " " + std::to_string(r.sms) + " SMs";
  return s;
}

}  // namespace

double mechanism_time_ns(const MechanismFit& m, const CalibrationRow& row) {
  double rate;
  if (m.mechanism == "ce") {
    rate = m.ce.rate_bytes_per_s;
    if (row.direction == "bi") rate /= 1 + m.ce.reverse_weight;
  } else {
    rate = sm_model_rate(m.sm, row.sms, row.threads);
    if (row.direction == "bi" && m.sm.cap_bytes_per_s > 0) rate = std::min(rate, m.sm.cap_bytes_per_s / (1 + m.sm.reverse_weight));
  }
  if (!(rate > 0)) return 1e300;
  return m.latency_ns + row.bytes / rate * kG;
}

const MechanismFit* CalibrationFit::find(const std::string& mechanism) const {
  for (const auto& m : mechanisms)
    if (m.mechanism == mechanism) return &m;
  return nullptr;
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
  raw.source = root.get_string("source", root.get_string("command", ""));
  const JsonField rows = root.at("rows");
  for (size_t i = 0; i < rows.size(); ++i) {
    const JsonField f = rows.at(i);
    CalibrationRow r;
    r.file = path;
    const JsonField mech = f.at("mechanism");
    r.mechanism = mech.as_string();
    if (std::find(std::begin(kMechanisms), std::end(kMechanisms), r.mechanism) == std::end(kMechanisms))
      mech.fail("unknown mechanism \"" + r.mechanism + "\"; expected one of: ce, tma, tma_pull, ldst_push, ldst_pull");
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

RawCalibration load_raw_calibrations(const std::vector<std::string>& paths) {
  RawCalibration all;
  for (const std::string& p : paths) {
    RawCalibration one = load_raw_calibration(p);
    if (all.machine.empty()) all.machine = one.machine;
    if (!one.source.empty()) all.source += (all.source.empty() ? "" : "; ") + one.source;
    for (auto& r : one.rows) all.rows.push_back(std::move(r));
  }
  return all;
}

CalibrationFit fit_calibration(const RawCalibration& raw) {
  CalibrationFit fit;
  for (const char* mech : kMechanisms) {
    std::vector<const CalibrationRow*> rows;
    for (const CalibrationRow& r : raw.rows)
      if (r.mechanism == mech) rows.push_back(&r);
    size_t fitted = 0;
    for (const CalibrationRow* r : rows) fitted += fitted_row(*r);
    if (fitted < 3) {
      fit.notes.push_back(std::string(mech) + ": " + std::to_string(fitted) + " rows to fit (3 needed), model unchanged");
      continue;
    }
    fit.mechanisms.push_back(fit_mechanism(mech, rows));
  }
  fit.notes.push_back("copy engine: rows below " + format_bytes(static_cast<int64_t>(kCopyEngineFitMinBytes)) +
                      " are timed on a stream, bound by the host's issue rate; reported, not fitted");
  fit.notes.push_back("multimem: no rows (NVLS is off on measured machines), model unchanged");

  std::vector<double> all;
  for (MechanismFit& m : fit.mechanisms) {
    std::vector<double> errors;
    double worst = -1;
    for (const CalibrationRow& r : raw.rows) {
      if (r.mechanism != m.mechanism) continue;
      CalibrationResidual res;
      res.row = r;
      res.fitted = fitted_row(r);
      const double t = mechanism_time_ns(m, r);
      res.measured_GBps = r.bytes / r.median_ns;
      res.model_GBps = r.bytes / t;
      res.error = t / r.median_ns - 1;
      errors.push_back(std::fabs(res.error));
      all.push_back(std::fabs(res.error));
      if (std::fabs(res.error) > worst) {
        worst = std::fabs(res.error);
        m.worst = describe(r);
      }
      fit.residuals.push_back(std::move(res));
    }
    m.median_abs_error = median_of(errors);
    m.max_abs_error = errors.empty() ? 0 : *std::max_element(errors.begin(), errors.end());
  }
  fit.median_abs_error = median_of(all);
  fit.max_abs_error = all.empty() ? 0 : *std::max_element(all.begin(), all.end());
  return fit;
}

void apply_calibration(Topology& topo, const CalibrationFit& fit) {
  for (TopoNode& n : topo.nodes) {
    if (!n.gpu) continue;
    GpuSpec& g = *n.gpu;
    for (const MechanismFit& m : fit.mechanisms) {
      if (m.mechanism == "ce") {
        const uint32_t count = g.copy_engine.count ? g.copy_engine.count : 1;
        g.copy_engine = m.ce;
        g.copy_engine.count = count;
        continue;
      }
      SmTransferModel sm = m.sm;
      sm.setup_ns = std::max(0.0, m.latency_ns - g.kernel_latency_ns);
      if (m.mechanism == "ldst_push") g.ldst = sm;
      else if (m.mechanism == "ldst_pull") g.ldst_pull = sm;
      else if (m.mechanism == "tma") g.tma = sm;
      else if (m.mechanism == "tma_pull") g.tma_pull = sm;
    }
  }
  topo.calibration = Calibration::kMeasured;
}

JsonValue calibration_fit_json(const CalibrationFit& fit) {
  JsonValue models = JsonValue::object();
  for (const MechanismFit& m : fit.mechanisms) {
    JsonValue v = JsonValue::object({{"latency_ns", JsonValue::number(m.latency_ns)}});
    if (m.mechanism == "ce") {
      v.set("rate_GBps", JsonValue::number(m.ce.rate_bytes_per_s / kG));
      v.set("reverse_weight", JsonValue::number(m.ce.reverse_weight));
    } else {
      v.set("per_sm_GBps", JsonValue::number(m.sm.per_sm_bytes_per_s / kG));
      v.set("cap_GBps", JsonValue::number(m.sm.cap_bytes_per_s / kG));
      v.set("sharpness", JsonValue::number(m.sm.sharpness));
      v.set("reverse_weight", JsonValue::number(m.sm.reverse_weight));
      v.set("per_sm_threads", JsonValue::number(static_cast<int64_t>(m.sm.per_sm_threads)));
    }
    v.set("rows", JsonValue::number(static_cast<int64_t>(m.rows)));
    v.set("fitted_rows", JsonValue::number(static_cast<int64_t>(m.fitted_rows)));
    v.set("median_abs_error", JsonValue::number(m.median_abs_error));
    v.set("max_abs_error", JsonValue::number(m.max_abs_error));
    v.set("worst", JsonValue::string(m.worst));
    models.set(m.mechanism, std::move(v));
  }
  JsonValue rows = JsonValue::array();
  for (const auto& r : fit.residuals)
    rows.push(JsonValue::object({{"mechanism", JsonValue::string(r.row.mechanism)},
                                 {"direction", JsonValue::string(r.row.direction)},
                                 {"bytes", JsonValue::number(r.row.bytes)},
                                 {"sms", JsonValue::number(static_cast<int64_t>(r.row.sms))},
                                 {"measured_GBps", JsonValue::number(r.measured_GBps)},
                                 {"model_GBps", JsonValue::number(r.model_GBps)},
                                 {"error", JsonValue::number(r.error)},
                                 {"fitted", JsonValue::boolean(r.fitted)}}));
  JsonValue notes = JsonValue::array();
  for (const auto& n : fit.notes) notes.push(JsonValue::string(n));
  return JsonValue::object({{"models", std::move(models)},
                            {"median_abs_error", JsonValue::number(fit.median_abs_error)},
                            {"max_abs_error", JsonValue::number(fit.max_abs_error)},
                            {"residuals", std::move(rows)},
                            {"notes", std::move(notes)}});
}

}  // namespace parascope::sim
