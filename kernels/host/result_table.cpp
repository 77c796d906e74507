#include "host/result_table.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <unistd.h>

#include "host/size_spec.h"

namespace parascope::bench {

namespace {
JsonValue num(double v) { return std::isfinite(v) ? JsonValue::number(v) : JsonValue::null(); }
JsonValue integer(uint64_t v) { return JsonValue::number(static_cast<int64_t>(v)); }
JsonValue str(const std::string& s) { return JsonValue::string(s); }
}  // namespace

ResultSet::ResultSet(std::string subcommand, std::string command_line) : meta_(JsonValue::object()) {
  meta_.set("schema_version", JsonValue::number(int64_t{1}));
  meta_.set("tool", str("parascope-bench"));
  meta_.set("subcommand", str(subcommand));
  meta_.set("command", str(command_line));
}

JsonValue row_to_json(const ResultRow& r) {
  JsonValue o = JsonValue::object();
  o.set("op", str(r.op));
  o.set("variant", str(r.variant));
  if (!r.mechanism.empty()) o.set("mechanism", str(r.mechanism));
  if (!r.direction.empty()) o.set("direction", str(r.direction));
  o.set("dtype", str(r.dtype));
  o.set("bytes", integer(r.bytes));
  o.set("nranks", JsonValue::number(int64_t{r.nranks}));
  o.set("sms", JsonValue::number(int64_t{r.sms}));
  o.set("threads", JsonValue::number(int64_t{r.threads}));
  o.set("timing", str(r.timing));
  o.set("ops_per_graph", JsonValue::number(int64_t{r.ops_per_graph}));
  o.set("n", JsonValue::number(int64_t{r.ns.n}));
  o.set("median_ns", num(r.ns.median));
  o.set("p10_ns", num(r.ns.p10));
  o.set("p90_ns", num(r.ns.p90));
  o.set("min_ns", num(r.ns.min));
  o.set("max_ns", num(r.ns.max));
  o.set("algbw_GBps", num(r.algbw_gbps));
  o.set("busbw_GBps", num(r.busbw_gbps));
  o.set("checked", JsonValue::boolean(r.checked));
  o.set("ok", JsonValue::boolean(r.ok));
  o.set("rel_l2", num(r.rel_l2));
  o.set("mismatches", integer(r.mismatches));
  if (!r.problem.empty()) o.set("problem", str(r.problem));
  if (!r.kernels.empty()) o.set("kernels", str(r.kernels));
  if (!r.protocol.empty()) o.set("protocol", str(r.protocol));
  for (const auto& [k, v] : r.extra) o.set(k, num(v));
  return o;
}

JsonValue ResultSet::to_json() const {
  JsonValue doc = meta_;
  JsonValue rows = JsonValue::array();
  for (const auto& r : rows_) rows.push(row_to_json(r));
  doc.set("rows", rows);
  JsonValue targets = JsonValue::array();
  for (const auto& t : targets_) {
    JsonValue o = JsonValue::object();
    o.set("name", str(t.name));
    o.set("measured", num(t.available ? t.measured : NAN));
    o.set("target", num(t.target));
    o.set("unit", str(t.unit));
    o.set("comparison", str(t.higher_is_better ? ">=" : "<="));
    o.set("available", JsonValue::boolean(t.available));
    o.set("met", JsonValue::boolean(t.met()));
    o.set("detail", str(t.detail));
    targets.push(o);
  }
  doc.set("targets", targets);
  return doc;
}

void write_text_file(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw std::runtime_error("cannot write " + tmp);
    f << text;
    f.flush();
    if (!f) throw std::runtime_error("write failed: " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error("cannot rename " + tmp + " to " + path);
}

void ResultSet::write_json(const std::string& path) const { write_text_file(path, parascope::to_json(to_json(), 1) + "\n"); }

std::string format_table(const std::vector<ResultRow>& rows) {
  std::string out;
  char line[320];
  std::snprintf(line, sizeof line, "%-15s %-16s %-4s %9s %4s %10s %10s %10s %8s %8s  %s\n", "op", "variant", "type",
                "size", "SMs", "median_us", "p10_us", "p90_us", "algGB/s", "busGB/s", "check");
  out += line;
  for (const auto& r : rows) {
    std::string check = !r.checked ? "-" : (r.ok ? "ok" : "FAIL");
    if (!r.problem.empty()) check += " (" + r.problem + ")";
    std::string variant = r.variant;
    if (!r.direction.empty()) variant += "/" + r.direction;
    std::snprintf(line, sizeof line, "%-15s %-16s %-4s %9s %4d %10.2f %10.2f %10.2f %8.1f %8.1f  %s\n", r.op.c_str(),
                  variant.c_str(), r.dtype.c_str(), format_bytes(r.bytes).c_str(), r.sms, r.ns.median / 1e3,
                  r.ns.p10 / 1e3, r.ns.p90 / 1e3, r.algbw_gbps, r.busbw_gbps, check.c_str());
    out += line;
  }
  return out;
}

std::string format_targets(const std::vector<TargetCheck>& targets) {
  std::string out;
  char line[512];
  for (const auto& t : targets) {
    if (!t.available) {
      std::snprintf(line, sizeof line, "  n/a   %-58s target %s %.3g %s  (%s)\n", t.name.c_str(),
                    t.higher_is_better ? ">=" : "<=", t.target, t.unit.c_str(), t.detail.c_str());
    } else {
      std::snprintf(line, sizeof line, "  %-5s %-58s %.3g %s (target %s %.3g)  %s\n", t.met() ? "MET" : "MISS",
                    t.name.c_str(), t.measured, t.unit.c_str(), t.higher_is_better ? ">=" : "<=", t.target,
                    t.detail.c_str());
    }
    out += line;
  }
  return out;
}

}  // namespace parascope::bench
