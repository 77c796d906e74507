#include "trace/core/topology.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace parascope {

double sm_model_rate(const SmTransferModel& m, double sms, double threads) {
  const double t = threads > 0 ? threads : m.per_sm_threads;
  const double scale = std::min(1.0, t / std::max<uint32_t>(1, m.per_sm_threads));
  const double linear = std::max(0.0, sms) * m.per_sm_bytes_per_s * scale;
  if (!(m.cap_bytes_per_s > 0)) return linear;
  const double lo = std::min(linear, m.cap_bytes_per_s), hi = std::max(linear, m.cap_bytes_per_s);
  if (!(m.sharpness > 0) || !(lo > 0)) return lo;
  return lo * std::pow(1.0 + std::pow(lo / hi, m.sharpness), -1.0 / m.sharpness);
}

namespace {

// Log-log interpolation between knots; `extrapolate`: below the first knot, the first segment's slope
// for one knot interval more (then flat); above the last, flat.
double knot_rate(const std::vector<std::pair<double, double>>& knots, double bytes, bool extrapolate) {
  if (knots.empty()) return 0;
  if (bytes <= knots.front().first) {
    if (!extrapolate || knots.size() < 2 || !(bytes > 0)) return knots.front().second;
    const auto& [x0, y0] = knots[0];
    const auto& [x1, y1] = knots[1];
    const double span = std::log(x1 / x0);
    const double f = std::max(-1.0, std::log(bytes / x0) / span);
    return std::exp(std::log(y0) + f * std::log(y1 / y0));
  }
  if (bytes >= knots.back().first) return knots.back().second;
  size_t i = 1;
  while (knots[i].first < bytes) ++i;
  const auto& [x0, y0] = knots[i - 1];
  const auto& [x1, y1] = knots[i];
  const double f = std::log(bytes / x0) / std::log(x1 / x0);
  return std::exp(std::log(y0) * (1 - f) + std::log(y1) * f);
}

}  // namespace

double NcclProfile::rate_at(double bytes, bool ll) const {
  return knot_rate(ll && !ll_channel_rate.empty() ? ll_channel_rate : channel_rate, bytes, false);
}

double NcclProfile::rate_for(std::string_view op, double bytes, bool ll) const {
  const bool p2p = op == "sendrecv" || op == "alltoall";
  const auto it = op_channel_rate.find(std::string(op == "alltoall" ? "sendrecv" : op));
  if (it == op_channel_rate.end() || it->second.simple.empty()) return rate_at(bytes, ll) * (p2p ? p2p_rate_scale : 1.0);
  const Curves& c = it->second;
  return knot_rate(ll && !c.ll.empty() ? c.ll : c.simple, bytes, true);
}

uint32_t NcclProfile::channels_for(double buffer_bytes) const {
  if (!(channel_min_bytes > 0) || channels == 0) return channels;
  const double c = std::floor(buffer_bytes / channel_min_bytes);
  return c >= channels ? channels : c < 1 ? 1u : static_cast<uint32_t>(c);
}

double NcclProfile::collective_cost_ns(bool ll, int ring_steps) const {
  if (ll || !(ll_max_bytes > 0)) return collective_latency_ns;
  return collective_latency_ns + simple_extra_ns + std::max(0, ring_steps) * simple_extra_per_step_ns;
}

std::string_view to_string(Calibration c) { return c == Calibration::kMeasured ? "measured" : "datasheet"; }

std::string_view to_string(NodeKind k) {
  switch (k) {
    case NodeKind::kGpu: return "gpu";
    case NodeKind::kNvSwitch: return "nvswitch";
    case NodeKind::kPcieSwitch: return "pcie_switch";
    case NodeKind::kHostBridge: return "host_bridge";
    case NodeKind::kNic: return "nic";
    case NodeKind::kNetworkSwitch: return "network_switch";
  }
  return "?";
}

std::string_view to_string(Medium m) {
  switch (m) {
    case Medium::kNvLink: return "nvlink";
    case Medium::kPcie: return "pcie";
    case Medium::kInfiniBand: return "infiniband";
    case Medium::kEthernet: return "ethernet";
    case Medium::kHostLink: return "host";
    case Medium::kInternal: return "internal";
  }
  return "?";
}

size_t Topology::gpu_count() const {
  size_t n = 0;
  for (const auto& node : nodes) n += node.kind == NodeKind::kGpu;
  return n;
}

int32_t Topology::gpu_node(int32_t gpu_index) const {
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].kind == NodeKind::kGpu && nodes[i].gpu_index == gpu_index) return static_cast<int32_t>(i);
  return -1;
}

int32_t Topology::find_node(std::string_view node_name) const {
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].name == node_name) return static_cast<int32_t>(i);
  return -1;
}

std::vector<std::string> Topology::validate() const {
  std::vector<std::string> problems;
  std::set<std::string> names;
  std::set<int32_t> gpu_indexes;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const TopoNode& n = nodes[i];
    const std::string where = "nodes[" + std::to_string(i) + "]";
    if (n.name.empty()) problems.push_back(where + ".name: empty");
    else if (!names.insert(n.name).second) problems.push_back(where + ".name: duplicate '" + n.name + "'");
    if (n.kind == NodeKind::kGpu) {
      if (!n.gpu) problems.push_back(where + ".gpu: a GPU node needs its GPU spec");
      else if (n.gpu->sm_count == 0) problems.push_back(where + ".gpu.sm_count: must be > 0");
      if (n.gpu_index < 0) problems.push_back(where + ".gpu_index: must be >= 0");
      else if (!gpu_indexes.insert(n.gpu_index).second)
        problems.push_back(where + ".gpu_index: duplicate " + std::to_string(n.gpu_index));
    }
  }
  for (int32_t expect = 0; auto g : gpu_indexes) {
    if (g != expect) {
      problems.push_back("gpu_index values must be 0.." + std::to_string(gpu_indexes.size() - 1) + " without gaps");
      break;
    }
    ++expect;
  }
  for (size_t i = 0; i < links.size(); ++i) {
    const TopoLink& l = links[i];
    const std::string where = "links[" + std::to_string(i) + "]";
    if (l.a >= nodes.size() || l.b >= nodes.size()) problems.push_back(where + ": endpoint out of range");
    else if (l.a == l.b) problems.push_back(where + ": a link needs two different endpoints");
    if (!(l.bandwidth_bytes_per_s > 0)) problems.push_back(where + ".bandwidth: must be > 0");
    if (l.latency_ns < 0) problems.push_back(where + ".latency: must be >= 0");
  }
  return problems;
}

}  // namespace parascope
