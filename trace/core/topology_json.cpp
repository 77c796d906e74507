#include "trace/core/topology_json.h"

#include <sstream>

namespace parascope {

namespace {

constexpr double kG = 1e9;

template <class E>
E parse_enum(const JsonField& f, std::initializer_list<std::pair<std::string_view, E>> table) {
  const std::string& s = f.as_string();
  std::string allowed;
  for (const auto& [name, value] : table) {
    if (s == name) return value;
    allowed += (allowed.empty() ? "" : ", ") + std::string(name);
  }
  f.fail("unknown value \"" + s + "\"; expected one of: " + allowed);
}

// Every number a topology holds is bounded here, so nothing downstream converts an absurd value
// (a negative memory size, a latency of 1e300 ns) to an integer: the simulator's clock is int64
// picoseconds. Limits are far outside any real machine: rates up to 1e6 GB/s or TFLOP/s,
// latencies up to 1e9 ns (one second), memory up to 1e6 GiB.
constexpr double kMaxRate = 1e6, kMaxLatencyNs = 1e9, kMaxMemoryGiB = 1e6, kMaxFactor = 1e6;

// The optional member `key` (in the file's unit) or `dflt`; refused outside [lo, hi].
double bounded(const JsonField& f, std::string_view key, double dflt, double lo, double hi) {
  const auto v = f.get(key);
  if (!v) return dflt;
  const double d = v->as_double();
  if (!(d >= lo && d <= hi)) {
    std::ostringstream os;
    os << key << " must be between " << lo << " and " << hi << " (got " << d << ")";
    v->fail(os.str());
  }
  return d;
}
int64_t bounded_int(const JsonField& f, std::string_view key, int64_t dflt, int64_t lo, int64_t hi) {
  const auto v = f.get(key);
  if (!v) return dflt;
  const int64_t n = v->as_int();
  if (n < lo || n > hi) v->fail(std::string(key) + " must be between " + std::to_string(lo) + " and " + std::to_string(hi));
  return n;
}
double rate_si(const JsonField& f, std::string_view key, double dflt_si) { return bounded(f, key, dflt_si / kG, 0, kMaxRate) * kG; }
double latency(const JsonField& f, std::string_view key, double dflt) { return bounded(f, key, dflt, 0, kMaxLatencyNs); }

void read_sm_model(const JsonField& f, SmTransferModel& m) {
  m.per_sm_bytes_per_s = rate_si(f, "per_sm_GBps", m.per_sm_bytes_per_s);
  m.cap_bytes_per_s = rate_si(f, "cap_GBps", m.cap_bytes_per_s);
  m.setup_ns = latency(f, "setup_ns", m.setup_ns);
  m.per_sm_threads = static_cast<uint32_t>(bounded_int(f, "per_sm_threads", m.per_sm_threads, 1, 1024));
  m.sharpness = bounded(f, "sharpness", m.sharpness, 0, kMaxFactor);  // 0: hard min
  m.reverse_weight = bounded(f, "reverse_weight", m.reverse_weight, 0, kMaxFactor);
}

void read_gpu(const JsonField& f, GpuSpec& g) {
  g.model = f.get_string("model", g.model);
  g.sm_count = static_cast<uint32_t>(bounded_int(f, "sm_count", g.sm_count, 1, 10000));
  g.hbm_bytes_per_s = rate_si(f, "hbm_GBps", g.hbm_bytes_per_s);
  g.bf16_flops = bounded(f, "bf16_TFLOPs", g.bf16_flops / 1e12, 0, kMaxRate) * 1e12;
  g.fp32_flops = bounded(f, "fp32_TFLOPs", g.fp32_flops / 1e12, 0, kMaxRate) * 1e12;
  constexpr double kGiB = 1073741824.0;
  g.memory_bytes = static_cast<uint64_t>(bounded(f, "memory_GiB", static_cast<double>(g.memory_bytes) / kGiB, 0, kMaxMemoryGiB) * kGiB);
  g.comm_interference = bounded(f, "comm_interference", g.comm_interference, 0, kMaxFactor);
  g.comm_slowdown = bounded(f, "comm_slowdown", g.comm_slowdown, 0, kMaxFactor);
  g.comm_slowdown_source = f.get_string("comm_slowdown_source", g.comm_slowdown_source);
  g.sm_copy_bytes_per_s = rate_si(f, "sm_copy_GBps", g.sm_copy_bytes_per_s);
  g.kernel_latency_ns = latency(f, "kernel_latency_ns", g.kernel_latency_ns);
  g.signal_latency_ns = latency(f, "signal_latency_ns", g.signal_latency_ns);
  g.block_latency_ns = latency(f, "block_latency_ns", g.block_latency_ns);
  g.local_copy_bytes_per_s = rate_si(f, "local_copy_per_sm_GBps", g.local_copy_bytes_per_s);
  g.reduce_cost = bounded(f, "reduce_cost", g.reduce_cost, 0, kMaxFactor);
  if (!(g.reduce_cost > 0)) f.at("reduce_cost").fail("reduce_cost must be > 0");
  if (auto ce = f.get("copy_engine")) {
    g.copy_engine.count = static_cast<uint32_t>(bounded_int(*ce, "count", g.copy_engine.count, 0, 1024));
    g.copy_engine.setup_ns = latency(*ce, "setup_ns", g.copy_engine.setup_ns);
    g.copy_engine.rate_bytes_per_s = rate_si(*ce, "rate_GBps", g.copy_engine.rate_bytes_per_s);
    g.copy_engine.reverse_weight = bounded(*ce, "reverse_weight", g.copy_engine.reverse_weight, 0, kMaxFactor);
  }
  if (auto m = f.get("tma")) read_sm_model(*m, g.tma);
  if (auto m = f.get("ldst")) read_sm_model(*m, g.ldst);
  if (auto m = f.get("tma_pull")) read_sm_model(*m, g.tma_pull);
  if (auto m = f.get("ldst_pull")) read_sm_model(*m, g.ldst_pull);
  if (auto m = f.get("multimem")) read_sm_model(*m, g.multimem);
}

JsonValue sm_model_json(const SmTransferModel& m) {
  JsonValue v = JsonValue::object({{"per_sm_GBps", JsonValue::number(m.per_sm_bytes_per_s / kG)},
                                   {"cap_GBps", JsonValue::number(m.cap_bytes_per_s / kG)},
                                   {"setup_ns", JsonValue::number(m.setup_ns)},
                                   {"per_sm_threads", JsonValue::number(static_cast<int64_t>(m.per_sm_threads))}});
  if (m.sharpness > 0) v.set("sharpness", JsonValue::number(m.sharpness));
  if (m.reverse_weight > 0) v.set("reverse_weight", JsonValue::number(m.reverse_weight));
  return v;
}

bool has_model(const SmTransferModel& m) { return m.per_sm_bytes_per_s > 0 || m.cap_bytes_per_s > 0; }

JsonValue gpu_json(const GpuSpec& g) {
  JsonValue ce = JsonValue::object({{"count", JsonValue::number(static_cast<int64_t>(g.copy_engine.count))},
                                    {"setup_ns", JsonValue::number(g.copy_engine.setup_ns)},
                                    {"rate_GBps", JsonValue::number(g.copy_engine.rate_bytes_per_s / kG)}});
  if (g.copy_engine.reverse_weight > 0) ce.set("reverse_weight", JsonValue::number(g.copy_engine.reverse_weight));
  JsonValue v = JsonValue::object({
      {"model", JsonValue::string(g.model)},
      {"sm_count", JsonValue::number(static_cast<int64_t>(g.sm_count))},
      {"hbm_GBps", JsonValue::number(g.hbm_bytes_per_s / kG)},
      {"bf16_TFLOPs", JsonValue::number(g.bf16_flops / 1e12)},
      {"fp32_TFLOPs", JsonValue::number(g.fp32_flops / 1e12)},
      {"memory_GiB", JsonValue::number(static_cast<double>(g.memory_bytes) / 1073741824.0)},
      {"comm_interference", JsonValue::number(g.comm_interference)},
      {"sm_copy_GBps", JsonValue::number(g.sm_copy_bytes_per_s / kG)},
      {"kernel_latency_ns", JsonValue::number(g.kernel_latency_ns)},
      {"copy_engine", std::move(ce)},
      {"tma", sm_model_json(g.tma)},
      {"ldst", sm_model_json(g.ldst)},
      {"multimem", sm_model_json(g.multimem)},
  });
  // Written only when set, so presets without them stay as they were.
  if (has_model(g.tma_pull)) v.set("tma_pull", sm_model_json(g.tma_pull));
  if (has_model(g.ldst_pull)) v.set("ldst_pull", sm_model_json(g.ldst_pull));
  if (g.signal_latency_ns > 0) v.set("signal_latency_ns", JsonValue::number(g.signal_latency_ns));
  if (g.block_latency_ns > 0) v.set("block_latency_ns", JsonValue::number(g.block_latency_ns));
  if (g.local_copy_bytes_per_s > 0) v.set("local_copy_per_sm_GBps", JsonValue::number(g.local_copy_bytes_per_s / kG));
  if (g.reduce_cost != 1) v.set("reduce_cost", JsonValue::number(g.reduce_cost));
  if (g.comm_slowdown > 0) v.set("comm_slowdown", JsonValue::number(g.comm_slowdown));
  if (!g.comm_slowdown_source.empty()) v.set("comm_slowdown_source", JsonValue::string(g.comm_slowdown_source));
  return v;
}

// A knot list: [{step_bytes, GBps}, ...], step_bytes increasing, both > 0.
std::vector<std::pair<double, double>> read_knots(const JsonField& knots) {
  std::vector<std::pair<double, double>> out;
  for (size_t i = 0; i < knots.size(); ++i) {
    const JsonField k = knots.at(i);
    const double bytes = k.at("step_bytes").as_double(), rate = k.at("GBps").as_double() * kG;
    if (!(bytes > 0) || !(rate > 0)) k.fail("step_bytes and GBps must be > 0");
    if (bytes > 1e15 || rate > kMaxRate * kG || rate < 1e-3 * kG) k.fail("step_bytes must be <= 1e15 and GBps between 0.001 and 1e6");
    if (!out.empty() && bytes <= out.back().first) k.fail("knots must be in increasing step_bytes");
    out.emplace_back(bytes, rate);
  }
  return out;
}

JsonValue knots_json(const std::vector<std::pair<double, double>>& knots) {
  JsonValue a = JsonValue::array();
  for (const auto& [bytes, rate] : knots)
    a.push(JsonValue::object({{"step_bytes", JsonValue::number(bytes)}, {"GBps", JsonValue::number(rate / kG)}}));
  return a;
}

NcclProfile read_nccl(const JsonField& f) {
  NcclProfile p;
  p.collective_latency_ns = latency(f, "collective_latency_ns", 0);
  p.p2p_latency_ns = latency(f, "p2p_latency_ns", p.collective_latency_ns);
  p.step_latency_ns = latency(f, "step_latency_ns", 0);
  p.channels = static_cast<uint32_t>(bounded_int(f, "channels", 0, 0, 128));
  if (auto knots = f.get("channel_rate")) p.channel_rate = read_knots(*knots);
  p.ll_max_bytes = bounded(f, "ll_max_bytes", 0, 0, 1e15);
  p.ll_max_buffer_bytes = bounded(f, "ll_max_buffer_bytes", 0, 0, 1e15);
  p.channel_min_bytes = bounded(f, "channel_min_bytes", 0, 0, 1e15);
  p.simple_extra_ns = latency(f, "simple_extra_ns", 0);
  p.simple_extra_per_step_ns = latency(f, "simple_extra_per_step_ns", 0);
  p.p2p_rate_scale = bounded(f, "p2p_rate_scale", 1, 0, kMaxFactor);
  if (!(p.p2p_rate_scale > 0)) f.at("p2p_rate_scale").fail("p2p_rate_scale must be > 0");
  if (auto knots = f.get("ll_channel_rate")) p.ll_channel_rate = read_knots(*knots);
  if (auto ops = f.get("op_channel_rate")) {
    for (const auto& [op, curves] : ops->members()) {
      if (op != "allreduce" && op != "allgather" && op != "reducescatter" && op != "sendrecv")
        curves.fail("unknown operation '" + op + "' (allreduce, allgather, reducescatter or sendrecv)");
      NcclProfile::Curves c;
      c.simple = read_knots(curves.at("simple"));
      if (c.simple.empty()) curves.at("simple").fail("an operation's curve needs at least one knot");
      if (auto ll = curves.get("ll")) c.ll = read_knots(*ll);
      p.op_channel_rate[op] = std::move(c);
    }
  }
  return p;
}

JsonValue nccl_json(const NcclProfile& p) {
  JsonValue knots = knots_json(p.channel_rate);
  JsonValue v = JsonValue::object({{"collective_latency_ns", JsonValue::number(p.collective_latency_ns)},
                                   {"p2p_latency_ns", JsonValue::number(p.p2p_latency_ns)},
                                   {"step_latency_ns", JsonValue::number(p.step_latency_ns)},
                                   {"channels", JsonValue::number(static_cast<int64_t>(p.channels))},
                                   {"channel_rate", std::move(knots)}});
  // Written only when set, so profiles without NCCL's logged choices stay as they were.
  if (p.channel_min_bytes > 0) v.set("channel_min_bytes", JsonValue::number(p.channel_min_bytes));
  if (p.ll_max_bytes > 0) {
    JsonValue ll = knots_json(p.ll_channel_rate);
    v.set("ll_max_bytes", JsonValue::number(p.ll_max_bytes));
    if (p.ll_max_buffer_bytes > 0) v.set("ll_max_buffer_bytes", JsonValue::number(p.ll_max_buffer_bytes));
    v.set("ll_channel_rate", std::move(ll));
  }
  if (p.simple_extra_ns > 0) v.set("simple_extra_ns", JsonValue::number(p.simple_extra_ns));
  if (p.simple_extra_per_step_ns > 0) v.set("simple_extra_per_step_ns", JsonValue::number(p.simple_extra_per_step_ns));
  if (p.p2p_rate_scale != 1) v.set("p2p_rate_scale", JsonValue::number(p.p2p_rate_scale));
  if (!p.op_channel_rate.empty()) {
    JsonValue ops = JsonValue::object();
    for (const auto& [op, c] : p.op_channel_rate) {
      JsonValue cv = JsonValue::object({{"simple", knots_json(c.simple)}});
      if (!c.ll.empty()) cv.set("ll", knots_json(c.ll));
      ops.set(op, std::move(cv));
    }
    v.set("op_channel_rate", std::move(ops));
  }
  return v;
}

}  // namespace

Topology topology_from_json(const JsonValue& doc, const std::string& file) {
  JsonField root(doc, file);
  root.expect(JsonValue::Type::kObject);
  if (auto v = root.get("schema_version"); v && v->as_int() > kTopologySchemaVersion)
    v->fail("schema_version " + std::to_string(v->as_int()) + " is newer than this build reads (" +
            std::to_string(kTopologySchemaVersion) + ")");
  Topology t;
  t.name = root.at("name").as_string();
  t.description = root.get_string("description", "");
  t.calibration = parse_enum<Calibration>(root.at("calibration"),
                                          {{"measured", Calibration::kMeasured}, {"datasheet", Calibration::kDatasheet}});
  t.calibration_source = root.get_string("calibration_source", "");
  GpuSpec defaults;
  if (auto d = root.get("gpu_defaults")) read_gpu(*d, defaults);

  const JsonField nodes = root.at("nodes");
  for (size_t i = 0; i < nodes.size(); ++i) {
    const JsonField n = nodes.at(i);
    TopoNode node;
    node.name = n.at("name").as_string();
    node.kind = parse_enum<NodeKind>(n.at("kind"), {{"gpu", NodeKind::kGpu},
                                                    {"nvswitch", NodeKind::kNvSwitch},
                                                    {"pcie_switch", NodeKind::kPcieSwitch},
                                                    {"host_bridge", NodeKind::kHostBridge},
                                                    {"nic", NodeKind::kNic},
                                                    {"network_switch", NodeKind::kNetworkSwitch}});
    node.host = static_cast<int32_t>(bounded_int(n, "host", 0, -1, 1 << 20));
    if (node.kind == NodeKind::kGpu) {
      n.at("gpu_index");  // required
      node.gpu_index = static_cast<int32_t>(bounded_int(n, "gpu_index", 0, 0, 1 << 24));
      GpuSpec g = defaults;
      if (auto gf = n.get("gpu")) read_gpu(*gf, g);
      if (g.sm_count == 0) n.fail("GPU node has no sm_count (set it in the node's gpu or in gpu_defaults)");
      node.gpu = g;
    }
    if (node.kind == NodeKind::kNvSwitch || node.kind == NodeKind::kPcieSwitch || node.kind == NodeKind::kNetworkSwitch) {
      SwitchSpec s;
      if (auto sf = n.get("switch")) {
        s.multicast = sf->get_bool("multicast", false);
        s.in_switch_reduction = sf->get_bool("in_switch_reduction", false);
        s.crossbar_bytes_per_s = rate_si(*sf, "crossbar_GBps", 0);
      }
      node.sw = s;
    }
    if (node.kind == NodeKind::kNic) {
      const JsonField rate = n.at("line_rate_GBps");
      node.nic_bytes_per_s = rate.as_double() * kG;
      if (!(node.nic_bytes_per_s >= 1e-3 * kG && node.nic_bytes_per_s <= kMaxRate * kG))
        rate.fail("line rate must be between 0.001 and 1e6 GB/s");
    }
    t.nodes.push_back(std::move(node));
  }

  const JsonField links = root.at("links");
  for (size_t i = 0; i < links.size(); ++i) {
    const JsonField l = links.at(i);
    TopoLink link;
    auto endpoint = [&](std::string_view key) -> uint32_t {
      const JsonField e = l.at(key);
      const int32_t idx = t.find_node(e.as_string());
      if (idx < 0) e.fail("no node named \"" + e.as_string() + "\"");
      return static_cast<uint32_t>(idx);
    };
    link.a = endpoint("a");
    link.b = endpoint("b");
    link.medium = parse_enum<Medium>(l.at("medium"), {{"nvlink", Medium::kNvLink},
                                                      {"pcie", Medium::kPcie},
                                                      {"infiniband", Medium::kInfiniBand},
                                                      {"ethernet", Medium::kEthernet},
                                                      {"host", Medium::kHostLink},
                                                      {"internal", Medium::kInternal}});
    link.lanes = static_cast<uint32_t>(bounded_int(l, "lanes", 1, 1, 1024));
    const JsonField bw = l.at("bandwidth_GBps");
    link.bandwidth_bytes_per_s = bw.as_double() * kG;
    if (!(link.bandwidth_bytes_per_s >= 1e-3 * kG && link.bandwidth_bytes_per_s <= kMaxRate * kG))
      bw.fail("bandwidth must be between 0.001 and 1e6 GB/s");
    link.latency_ns = latency(l, "latency_ns", 0);
    link.name = l.get_string("name", "");
    t.links.push_back(std::move(link));
  }
  if (auto n = root.get("nccl")) t.nccl = read_nccl(*n);
  if (auto h = root.get("host")) {
    HostProfile hp;
    hp.collective_call_ns = latency(*h, "collective_call_ns", 0);
    hp.source = h->get_string("source", "");
    t.host = std::move(hp);
  }
  if (auto problems = t.validate(); !problems.empty()) root.fail("invalid topology: " + problems.front());
  return t;
}

Topology load_topology_file(const std::string& path) { return topology_from_json(load_json_file(path), path); }

JsonValue topology_to_json(const Topology& t) {
  JsonValue nodes = JsonValue::array();
  for (const TopoNode& n : t.nodes) {
    JsonValue node = JsonValue::object({{"name", JsonValue::string(n.name)},
                                        {"kind", JsonValue::string(std::string(to_string(n.kind)))},
                                        {"host", JsonValue::number(static_cast<int64_t>(n.host))}});
    if (n.kind == NodeKind::kGpu) {
      node.set("gpu_index", JsonValue::number(static_cast<int64_t>(n.gpu_index)));
      if (n.gpu) node.set("gpu", gpu_json(*n.gpu));
    }
    if (n.sw)
      node.set("switch", JsonValue::object({{"multicast", JsonValue::boolean(n.sw->multicast)},
                                            {"in_switch_reduction", JsonValue::boolean(n.sw->in_switch_reduction)},
                                            {"crossbar_GBps", JsonValue::number(n.sw->crossbar_bytes_per_s / kG)}}));
    if (n.kind == NodeKind::kNic) node.set("line_rate_GBps", JsonValue::number(n.nic_bytes_per_s / kG));
    nodes.push(std::move(node));
  }
  JsonValue links = JsonValue::array();
  for (const TopoLink& l : t.links) {
    JsonValue link = JsonValue::object({{"a", JsonValue::string(t.nodes[l.a].name)},
                                        {"b", JsonValue::string(t.nodes[l.b].name)},
                                        {"medium", JsonValue::string(std::string(to_string(l.medium)))},
                                        {"lanes", JsonValue::number(static_cast<int64_t>(l.lanes))},
                                        {"bandwidth_GBps", JsonValue::number(l.bandwidth_bytes_per_s / kG)},
                                        {"latency_ns", JsonValue::number(l.latency_ns)}});
    if (!l.name.empty()) link.set("name", JsonValue::string(l.name));
    links.push(std::move(link));
  }
  JsonValue doc = JsonValue::object({{"schema_version", JsonValue::number(static_cast<int64_t>(kTopologySchemaVersion))},
                                     {"name", JsonValue::string(t.name)},
                                     {"description", JsonValue::string(t.description)},
                                     {"calibration", JsonValue::string(std::string(to_string(t.calibration)))},
                                     {"calibration_source", JsonValue::string(t.calibration_source)},
                                     {"nodes", std::move(nodes)},
                                     {"links", std::move(links)}});
  if (t.nccl) doc.set("nccl", nccl_json(*t.nccl));
  if (t.host)
    doc.set("host", JsonValue::object({{"collective_call_ns", JsonValue::number(t.host->collective_call_ns)},
                                       {"source", JsonValue::string(t.host->source)}}));
  return doc;
}

}  // namespace parascope
