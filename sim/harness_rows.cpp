#include "sim/harness_rows.h"

#include <algorithm>
#include <cmath>

#include "sim/knobs.h"
#include "sim/simulation.h"
#include "sim/workload_spec.h"
#include "trace/core/json.h"

namespace parascope::sim {

namespace {

std::string bytes_text(double b) { return format_bytes(static_cast<int64_t>(std::llround(b))); }

std::string kernel_knobs(const HarnessRow& r, const std::string& mechanism) {
  return ",mechanism=" + mechanism + ",channels=" + std::to_string(std::max(1, r.sms)) +
         ",threads_per_channel=" + std::to_string(std::max(32, r.threads));
}

}  // namespace

std::vector<HarnessRow> load_harness_rows(const std::string& path) {
  const JsonValue doc = load_json_file(path);
  JsonField root(doc, path);
  root.expect(JsonValue::Type::kObject);
  const JsonField rows = root.at("rows");
  std::vector<HarnessRow> out;
  for (size_t i = 0; i < rows.size(); ++i) {
    const JsonField f = rows.at(i);
    if (!f.get_bool("ok", true)) continue;
    HarnessRow r;
    r.file = path;
    r.op = f.at("op").as_string();
    r.variant = f.get_string("variant", "");
    r.mechanism = f.get_string("mechanism", "");
    r.dtype = f.get_string("dtype", "");
    r.bytes = f.at("bytes").as_double();
    if (r.bytes < 0) f.at("bytes").fail("bytes must be >= 0");
    r.nranks = static_cast<int32_t>(f.get_int("nranks", 2));
    if (r.nranks < 1) f.at("nranks").fail("nranks must be >= 1");
    r.sms = static_cast<int32_t>(f.get_int("sms", 0));
    r.threads = static_cast<int32_t>(f.get_int("threads", 0));
    r.timing = f.get_string("timing", "graphs");
    r.protocol = f.get_string("protocol", "");
    if (!r.protocol.empty() && r.protocol != "simple" && r.protocol != "ll" && r.protocol != "ll128")
      f.at("protocol").fail("protocol must be simple, ll or ll128");
    const JsonField median = f.at("median_ns");
    r.median_ns = median.as_double();
    if (!(r.median_ns > 0)) median.fail("median_ns must be > 0");
    r.p10_ns = f.get_double("p10_ns", r.median_ns);
    r.p90_ns = f.get_double("p90_ns", r.median_ns);
    out.push_back(std::move(r));
  }
  return out;
}

HarnessWorkload harness_workload(const HarnessRow& r) {
  HarnessWorkload w;
  auto no = [&](std::string why) {
    w.why = std::move(why);
    return w;
  };
  if (r.op == "graph_floor") return no("the launch floor itself (kernel_latency_ns)");
  if (r.op == "p2p") return no("P2P sweep row: fitted by calibrate (mechanism residuals)");
  if (r.op.find("gemm") != std::string::npos) return no("fused GEMM rows are not modelled here");
  if (r.variant.find("_pdl") != std::string::npos) return no("programmatic dependent launch is not modelled");
  if (r.timing == "stream") return no("timed by stream enqueue: the host's API calls, not the GPU, set the time");
  const double n = r.nranks;
  std::string op;
  double bytes = r.bytes;
  if (r.op == "all_reduce") op = "allreduce";
  else if (r.op == "all_gather") {
    op = "allgather";
    bytes = r.bytes / n;  // the file gives the gathered output
  } else if (r.op == "reduce_scatter") op = "reducescatter";
  else if (r.op == "all_to_all") op = "alltoall";
  else if (r.op == "sendrecv") op = "sendrecv";
  else return no("unknown op " + r.op);
  std::string spec = op + ":bytes=" + bytes_text(bytes);
  if (!r.protocol.empty() && (r.variant != "nccl" || op == "sendrecv" || op == "alltoall"))
    return no("a forced protocol (" + r.protocol + ") on " + r.variant + " " + r.op);
  if (r.protocol == "ll128") return no("NCCL forced to LL128: the NCCL profile has no LL128 curve");
  if (r.variant == "nccl") {
    if (op != "sendrecv") spec += ",algorithm=ring";
    if (!r.protocol.empty()) spec += ",protocol=" + r.protocol;
  } else if (r.variant == "oneshot_push" || r.variant == "oneshot_ll") {
    if (op != "allreduce") return no("unknown variant " + r.variant);
    spec += ",algorithm=one_shot" + kernel_knobs(r, "ldst") + (r.variant == "oneshot_ll" ? ",protocol=ll" : "");
  } else if (r.variant == "oneshot_pull") {
    spec += ",algorithm=one_shot" + kernel_knobs(r, "ldst_pull");
  } else if (r.variant == "twoshot_ldst" || r.variant == "twoshot_tma") {
    spec += ",algorithm=two_shot" + kernel_knobs(r, r.variant == "twoshot_tma" ? "tma" : "ldst");
  } else if (r.variant == "ldst" || r.variant == "tma") {
    spec += ",algorithm=one_shot" + kernel_knobs(r, r.variant);
  } else if (r.variant == "pull") {
    spec += ",algorithm=one_shot" + kernel_knobs(r, "ldst_pull");
  } else {
    return no("variant " + r.variant + " is not modelled");
  }
  w.modelled = true;
  w.spec = spec;
  return w;
}

double simulate_harness_row(const Topology& topo, const HarnessRow& row, const KnobSettings& overrides) {
  const HarnessWorkload w = harness_workload(row);
  if (!w.modelled) throw std::invalid_argument("row not modelled: " + w.why);
  SimulationInput in;
  in.topology = topo;
  in.steps = parse_workload_spec(w.spec);
  in.overrides = overrides;
  in.overrides.set_value("gpus", int64_t{row.nranks});
  return static_cast<double>(run_simulation(in).summary.makespan) / 1000.0;
}

double graph_floor_ns(const std::vector<HarnessRow>& rows) {
  std::vector<double> t;
  for (const HarnessRow& r : rows)
    if (r.op == "graph_floor" && r.variant.find("_pdl") == std::string::npos) t.push_back(r.median_ns);
  if (t.empty()) return 0;
  std::sort(t.begin(), t.end());
  return t.size() % 2 ? t[t.size() / 2] : (t[t.size() / 2 - 1] + t[t.size() / 2]) / 2;
}

}  // namespace parascope::sim
