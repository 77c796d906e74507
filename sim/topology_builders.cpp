#include "sim/topology_builders.h"

#include <algorithm>
#include <stdexcept>

namespace parascope::sim {

namespace {

uint32_t add_node(Topology& t, std::string name, NodeKind kind, int32_t host) {
  TopoNode n;
  n.name = std::move(name);
  n.kind = kind;
  n.host = host;
  if (kind == NodeKind::kNvSwitch || kind == NodeKind::kPcieSwitch || kind == NodeKind::kNetworkSwitch) n.sw = SwitchSpec{};
  t.nodes.push_back(std::move(n));
  return static_cast<uint32_t>(t.nodes.size() - 1);
}

uint32_t add_gpu(Topology& t, std::string name, int32_t host, int32_t index, const GpuSpec& gpu) {
  const uint32_t i = add_node(t, std::move(name), NodeKind::kGpu, host);
  t.nodes[i].gpu_index = index;
  t.nodes[i].gpu = gpu;
  return i;
}

void add_link(Topology& t, uint32_t a, uint32_t b, Medium m, double bw, double latency_ns, uint32_t lanes = 1) {
  TopoLink l;
  l.a = a;
  l.b = b;
  l.medium = m;
  l.bandwidth_bytes_per_s = bw;
  l.latency_ns = latency_ns;
  l.lanes = lanes;
  t.links.push_back(l);
}

}  // namespace

Topology star_topology(std::string name, int gpus, double bytes_per_s, double latency_ns, const GpuSpec& gpu) {
  Topology t;
  t.name = std::move(name);
  const uint32_t sw = add_node(t, "switch", NodeKind::kNvSwitch, 0);
  for (int g = 0; g < gpus; ++g) {
    const uint32_t n = add_gpu(t, "gpu" + std::to_string(g), 0, g, gpu);
    add_link(t, n, sw, Medium::kNvLink, bytes_per_s, latency_ns);
  }
  return t;
}

Topology nvswitch_box(std::string name, int gpus, const GpuSpec& gpu, double nvlink_bytes_per_s, double latency_ns,
                      const SwitchSpec& spec) {
  Topology t;
  t.name = std::move(name);
  const uint32_t sw = add_node(t, "nvswitch", NodeKind::kNvSwitch, 0);
  t.nodes[sw].sw = spec;
  for (int g = 0; g < gpus; ++g) {
    const uint32_t n = add_gpu(t, "gpu" + std::to_string(g), 0, g, gpu);
    add_link(t, n, sw, Medium::kNvLink, nvlink_bytes_per_s, latency_ns, 18);
  }
  return t;
}

Topology pcie_box(std::string name, int gpus, const GpuSpec& gpu, int gpus_per_switch, double pcie_bytes_per_s,
                  double uplink_bytes_per_s, double latency_ns) {
  if (gpus_per_switch < 1) throw std::invalid_argument("gpus_per_switch must be >= 1");
  Topology t;
  t.name = std::move(name);
  const uint32_t root = add_node(t, "host_bridge", NodeKind::kHostBridge, 0);
  uint32_t sw = 0;
  for (int g = 0; g < gpus; ++g) {
    if (g % gpus_per_switch == 0) {
      sw = add_node(t, "pcie_switch" + std::to_string(g / gpus_per_switch), NodeKind::kPcieSwitch, 0);
      add_link(t, sw, root, Medium::kPcie, uplink_bytes_per_s, latency_ns);
    }
    const uint32_t n = add_gpu(t, "gpu" + std::to_string(g), 0, g, gpu);
    add_link(t, n, sw, Medium::kPcie, pcie_bytes_per_s, latency_ns);
  }
  return t;
}

Topology cluster_topology(std::string name, const ClusterOptions& o) {
  if (o.nodes < 1 || o.gpus_per_node < 1 || o.spines < 1 || o.nodes_per_leaf < 1)
    throw std::invalid_argument("cluster: nodes, gpus_per_node, spines and nodes_per_leaf must be >= 1");
  Topology t;
  t.name = std::move(name);
  std::vector<uint32_t> nics;  // node-major
  for (int h = 0; h < o.nodes; ++h) {
    const std::string pre = "node" + std::to_string(h) + "/";
    const uint32_t sw = add_node(t, pre + "nvswitch", NodeKind::kNvSwitch, h);
    t.nodes[sw].sw = o.nvswitch;
    for (int i = 0; i < o.gpus_per_node; ++i) {
      const uint32_t g = add_gpu(t, pre + "gpu" + std::to_string(i), h, h * o.gpus_per_node + i, o.gpu);
      add_link(t, g, sw, Medium::kNvLink, o.nvlink_bytes_per_s, o.nvlink_latency_ns, 18);
      const uint32_t nic = add_node(t, pre + "nic" + std::to_string(i), NodeKind::kNic, h);
      t.nodes[nic].nic_bytes_per_s = o.nic_bytes_per_s;
      add_link(t, g, nic, Medium::kPcie, o.pcie_bytes_per_s, o.pcie_latency_ns);
      nics.push_back(nic);
    }
  }
  // First network tier: rail switches (rail i = NIC i of every node) or leaves (all NICs of a group
  // of nodes). Spines above carry as much as the tier below them (full bisection).
  std::vector<uint32_t> tier;
  std::vector<double> down_bw;
  if (o.rail_optimized) {
    for (int i = 0; i < o.gpus_per_node; ++i) {
      tier.push_back(add_node(t, "rail" + std::to_string(i), NodeKind::kNetworkSwitch, -1));
      down_bw.push_back(0);
    }
    for (int h = 0; h < o.nodes; ++h)
      for (int i = 0; i < o.gpus_per_node; ++i) {
        add_link(t, nics[static_cast<size_t>(h * o.gpus_per_node + i)], tier[static_cast<size_t>(i)], Medium::kInfiniBand,
                 o.nic_bytes_per_s, o.network_latency_ns);
        down_bw[static_cast<size_t>(i)] += o.nic_bytes_per_s;
      }
  } else {
    const int leaves = (o.nodes + o.nodes_per_leaf - 1) / o.nodes_per_leaf;
    for (int l = 0; l < leaves; ++l) {
      tier.push_back(add_node(t, "leaf" + std::to_string(l), NodeKind::kNetworkSwitch, -1));
      down_bw.push_back(0);
    }
    for (int h = 0; h < o.nodes; ++h)
      for (int i = 0; i < o.gpus_per_node; ++i) {
        const auto leaf = static_cast<size_t>(h / o.nodes_per_leaf);
        add_link(t, nics[static_cast<size_t>(h * o.gpus_per_node + i)], tier[leaf], Medium::kInfiniBand, o.nic_bytes_per_s,
                 o.network_latency_ns);
        down_bw[leaf] += o.nic_bytes_per_s;
      }
  }
  if (tier.size() > 1 || !o.rail_optimized) {
    for (int s = 0; s < o.spines; ++s) {
      const uint32_t spine = add_node(t, "spine" + std::to_string(s), NodeKind::kNetworkSwitch, -1);
      for (size_t i = 0; i < tier.size(); ++i)
        add_link(t, tier[i], spine, Medium::kInfiniBand, down_bw[i] / o.spines, o.network_latency_ns);
    }
  }
  return t;
}

}  // namespace parascope::sim
