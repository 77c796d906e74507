#include "sim/platform.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <stdexcept>

namespace parascope::sim {

std::string_view to_string(ResourceKind k) {
  switch (k) {
    case ResourceKind::kLink: return "link";
    case ResourceKind::kCrossbar: return "crossbar";
    case ResourceKind::kNicTx: return "nic_tx";
    case ResourceKind::kNicRx: return "nic_rx";
    case ResourceKind::kHbm: return "hbm";
    case ResourceKind::kMechanismPort: return "mechanism";
    case ResourceKind::kAgent: return "agent";
  }
  return "?";
}

namespace {
bool is_network(Medium m) { return m == Medium::kInfiniBand || m == Medium::kEthernet; }
}  // namespace

Platform Platform::seal(const Topology& topo, const PlatformOptions& opt) {
  if (auto problems = topo.validate(); !problems.empty()) {
    std::string all;
    for (const auto& p : problems) all += (all.empty() ? "" : "; ") + p;
    throw std::invalid_argument("topology " + topo.name + ": " + all);
  }
  Platform p;
  p.topo_ = topo;
  p.opt_ = opt;
  const size_t n = topo.nodes.size();
  p.gpu_nodes_.assign(topo.gpu_count(), 0);
  for (size_t i = 0; i < n; ++i)
    if (topo.nodes[i].kind == NodeKind::kGpu) p.gpu_nodes_[topo.nodes[i].gpu_index] = static_cast<uint32_t>(i);

  auto add = [&](PlatformResource r) {
    p.resources_.push_back(std::move(r));
    return static_cast<uint32_t>(p.resources_.size() - 1);
  };
  p.adj_.resize(n);
  for (size_t li = 0; li < topo.links.size(); ++li) {
    const TopoLink& l = topo.links[li];
    const double cap = l.bandwidth_bytes_per_s * opt.link_bandwidth_scale;
    const std::string an = topo.nodes[l.a].name, bn = topo.nodes[l.b].name;
    p.link_res_.push_back(add({an + "->" + bn, ResourceKind::kLink, cap, static_cast<int32_t>(li), true, static_cast<int32_t>(l.a)}));
    p.link_res_.push_back(add({bn + "->" + an, ResourceKind::kLink, cap, static_cast<int32_t>(li), false, static_cast<int32_t>(l.b)}));
    p.adj_[l.a].push_back({l.b, static_cast<uint32_t>(li), true});
    p.adj_[l.b].push_back({l.a, static_cast<uint32_t>(li), false});
  }
  for (auto& edges : p.adj_)
    std::sort(edges.begin(), edges.end(), [](const Edge& x, const Edge& y) { return x.to != y.to ? x.to < y.to : x.link < y.link; });
  p.crossbar_.assign(n, -1);
  p.nic_tx_.assign(n, -1);
  p.nic_rx_.assign(n, -1);
  for (size_t i = 0; i < n; ++i) {
    const TopoNode& node = topo.nodes[i];
    const auto ni = static_cast<int32_t>(i);
    if (node.sw && node.sw->crossbar_bytes_per_s > 0)
      p.crossbar_[i] = static_cast<int32_t>(add({node.name + "/crossbar", ResourceKind::kCrossbar, node.sw->crossbar_bytes_per_s, -1, true, ni}));
    if (node.kind == NodeKind::kNic && node.nic_bytes_per_s > 0) {
      p.nic_tx_[i] = static_cast<int32_t>(add({node.name + "/tx", ResourceKind::kNicTx, node.nic_bytes_per_s, -1, true, ni}));
      p.nic_rx_[i] = static_cast<int32_t>(add({node.name + "/rx", ResourceKind::kNicRx, node.nic_bytes_per_s, -1, true, ni}));
    }
  }
  p.hbm_.assign(p.gpu_nodes_.size(), -1);
  p.sm_copy_.assign(p.gpu_nodes_.size(), -1);
  p.ports_.assign(p.gpu_nodes_.size(), {-1, -1, -1, -1, -1, -1});
  for (size_t g = 0; g < p.gpu_nodes_.size(); ++g) {
    const TopoNode& node = topo.nodes[p.gpu_nodes_[g]];
    const GpuSpec& spec = *node.gpu;
    const auto ni = static_cast<int32_t>(p.gpu_nodes_[g]);
    if (opt.hbm && spec.hbm_bytes_per_s > 0)
      p.hbm_[g] = static_cast<int32_t>(add({node.name + "/hbm", ResourceKind::kHbm, spec.hbm_bytes_per_s, -1, true, ni}));
    if (spec.sm_copy_bytes_per_s > 0)
      p.sm_copy_[g] = static_cast<int32_t>(add({node.name + "/sm_copy", ResourceKind::kMechanismPort, spec.sm_copy_bytes_per_s, -1, true, ni}));
    auto port = [&](Mechanism m, const char* label, double cap) {
      if (cap > 0)
        p.ports_[g][static_cast<size_t>(m)] =
            static_cast<int32_t>(add({node.name + "/" + label, ResourceKind::kMechanismPort, cap, -1, true, ni}));
    };
    port(Mechanism::kTma, "tma", spec.tma.cap_bytes_per_s);
    port(Mechanism::kLdSt, "ldst", spec.ldst.cap_bytes_per_s);
    port(Mechanism::kMultimem, "multimem", spec.multimem.cap_bytes_per_s);
  }
  return p;
}

int32_t Platform::mechanism_port(int32_t g, Mechanism m) const { return ports_.at(g)[static_cast<size_t>(m)]; }

Route Platform::shortest(uint32_t src, uint32_t dst) const {
  // Dijkstra on the time to move 1 KiB (latency + 1 KiB / bandwidth): prefers NVLink over PCIe,
  // then fewer hops. Ties go to the lower node index (edges are sorted), so routes are deterministic.
  const size_t n = topo_.nodes.size();
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<double> dist(n, kInf);
  struct Prev {
    int32_t node = -1;
    uint32_t link = 0;
    bool forward = true;
  };
  std::vector<Prev> prev(n);
  using Item = std::pair<double, uint32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> q;
  dist[src] = 0;
  q.push({0, src});
  while (!q.empty()) {
    auto [d, u] = q.top();
    q.pop();
    if (d > dist[u]) continue;
    if (u == dst) break;
    if (u != src && topo_.nodes[u].kind == NodeKind::kGpu) continue;  // GPUs are never transit
    for (const Edge& e : adj_[u]) {
      const TopoLink& l = topo_.links[e.link];
      const double cost = l.latency_ns + 1024.0 * 1e9 / (l.bandwidth_bytes_per_s * opt_.link_bandwidth_scale);
      if (d + cost < dist[e.to]) {
        dist[e.to] = d + cost;
        prev[e.to] = {static_cast<int32_t>(u), e.link, e.forward};
        q.push({dist[e.to], e.to});
      }
    }
  }
  if (dist[dst] == kInf)
    throw std::invalid_argument("topology " + topo_.name + ": no route from " + topo_.nodes[src].name + " to " +
                                topo_.nodes[dst].name);
  // Walk back, then emit resources in path order: link direction, and at each intermediate node
  // its crossbar or NIC direction.
  std::vector<std::pair<uint32_t, Prev>> hops;  // (node reached, how)
  for (uint32_t v = dst; v != src; v = static_cast<uint32_t>(prev[v].node)) hops.push_back({v, prev[v]});
  Route r;
  double latency_ns = 0;
  for (auto it = hops.rbegin(); it != hops.rend(); ++it) {
    const auto [node, how] = *it;
    const TopoLink& l = topo_.links[how.link];
    const auto from = static_cast<uint32_t>(how.node);
    if (topo_.nodes[from].kind == NodeKind::kNic && is_network(l.medium) && nic_tx_[from] >= 0)
      r.resources.push_back(static_cast<uint32_t>(nic_tx_[from]));
    r.resources.push_back(link_res_[2 * how.link + (how.forward ? 0 : 1)]);
    latency_ns += l.latency_ns;
    ++r.hops;
    if (is_network(l.medium)) r.crosses_network = true;
    if (node != dst) {
      if (crossbar_[node] >= 0) r.resources.push_back(static_cast<uint32_t>(crossbar_[node]));
      if (topo_.nodes[node].kind == NodeKind::kNic && is_network(l.medium) && nic_rx_[node] >= 0)
        r.resources.push_back(static_cast<uint32_t>(nic_rx_[node]));
    }
  }
  r.latency = static_cast<TimePs>(std::llround(latency_ns * kPsPerNs));
  return r;
}

const Route& Platform::cached(uint32_t src_node, uint32_t dst_node) const {
  auto key = std::make_pair(src_node, dst_node);
  auto it = routes_.find(key);
  if (it == routes_.end()) it = routes_.emplace(key, shortest(src_node, dst_node)).first;
  return it->second;
}

const Route& Platform::route(int32_t src_gpu, int32_t dst_gpu) const {
  if (src_gpu == dst_gpu) throw std::invalid_argument("route from a GPU to itself");
  return cached(gpu_nodes_.at(src_gpu), gpu_nodes_.at(dst_gpu));
}

const Route& Platform::route_to_node(int32_t src_gpu, uint32_t node) const { return cached(gpu_nodes_.at(src_gpu), node); }

const Route& Platform::route_from_node(uint32_t node, int32_t dst_gpu) const { return cached(node, gpu_nodes_.at(dst_gpu)); }

int32_t Platform::nvswitch_of(int32_t gpu) const {
  const uint32_t g = gpu_nodes_.at(gpu);
  for (const Edge& e : adj_[g])
    if (topo_.nodes[e.to].kind == NodeKind::kNvSwitch) return static_cast<int32_t>(e.to);
  return -1;
}

}  // namespace parascope::sim
