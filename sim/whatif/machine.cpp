#include "sim/whatif/machine.h"

#include <stdexcept>

#include "sim/topology_builders.h"

namespace parascope::whatif {

Fabric fabric_from_knob(std::string_view v) {
  if (v == "nvswitch") return Fabric::kNvSwitch;
  if (v == "pcie") return Fabric::kPcie;
  if (v == "cluster") return Fabric::kCluster;
  return Fabric::kTrace;
}

double gpu_nvlink_bandwidth(const Topology& t, int32_t gpu) {
  const int32_t node = t.gpu_node(gpu);
  if (node < 0) return 0;
  double bw = 0;
  for (const TopoLink& l : t.links)
    if ((l.a == static_cast<uint32_t>(node) || l.b == static_cast<uint32_t>(node)) && l.medium == Medium::kNvLink)
      bw += l.bandwidth_bytes_per_s;
  return bw;
}

namespace {
double gpu_nvlink_latency(const Topology& t, int32_t gpu) {
  const int32_t node = t.gpu_node(gpu);
  for (const TopoLink& l : t.links)
    if ((l.a == static_cast<uint32_t>(node) || l.b == static_cast<uint32_t>(node)) && l.medium == Medium::kNvLink)
      return l.latency_ns;
  return 500;
}
}  // namespace

Topology machine_for(const Topology& base, int gpus, Fabric fabric, int gpus_per_node) {
  const int have = static_cast<int>(base.gpu_count());
  if (gpus <= 0) gpus = have;
  if (fabric == Fabric::kTrace && gpus <= have) return base;
  const int32_t node0 = base.gpu_node(0);
  if (node0 < 0 || !base.nodes[static_cast<size_t>(node0)].gpu) throw std::invalid_argument("topology " + base.name + " has no GPU 0");
  const GpuSpec& spec = *base.nodes[static_cast<size_t>(node0)].gpu;
  double nvlink = gpu_nvlink_bandwidth(base, 0);
  if (!(nvlink > 0)) nvlink = 450e9;
  const double latency = gpu_nvlink_latency(base, 0);
  SwitchSpec sw;
  for (const TopoNode& n : base.nodes)
    if (n.kind == parascope::NodeKind::kNvSwitch && n.sw) sw = *n.sw;
  if (fabric == Fabric::kTrace) fabric = gpus <= gpus_per_node ? Fabric::kNvSwitch : Fabric::kCluster;

  Topology t;
  std::string what;
  if (fabric == Fabric::kNvSwitch) {
    t = sim::nvswitch_box(base.name + "-nvswitch" + std::to_string(gpus), gpus, spec, nvlink, latency, sw);
    what = std::to_string(gpus) + " GPUs on one NVSwitch";
  } else if (fabric == Fabric::kPcie) {
    t = sim::pcie_box(base.name + "-pcie" + std::to_string(gpus), gpus, spec, std::min(gpus, 4), kPcieGen5BytesPerS,
                      kPcieGen5BytesPerS, kPcieLatencyNs);
    what = std::to_string(gpus) + " GPUs on PCIe Gen5 x16 switches (4 GPUs each)";
  } else {
    if (gpus_per_node < 1 || gpus % gpus_per_node != 0)
      throw std::invalid_argument(std::to_string(gpus) + " GPUs do not fill nodes of gpus_per_node=" + std::to_string(gpus_per_node));
    sim::ClusterOptions o;
    o.nodes = gpus / gpus_per_node;
    o.gpus_per_node = gpus_per_node;
    o.gpu = spec;
    o.nvlink_bytes_per_s = nvlink;
    o.nvlink_latency_ns = latency;
    o.nvswitch = sw;
    o.nic_bytes_per_s = kNdrBytesPerS;
    o.network_latency_ns = kNetworkLatencyNs;
    t = sim::cluster_topology(base.name + "-cluster" + std::to_string(o.nodes) + "x" + std::to_string(gpus_per_node), o);
    what = std::to_string(o.nodes) + " nodes x " + std::to_string(gpus_per_node) + " GPUs, NVSwitch inside, 400 Gb/s InfiniBand rails";
  }
  t.description = what + ", built for a what-if from " + base.name + "'s GPU spec";
  t.calibration = Calibration::kDatasheet;
  t.calibration_source = "GPU spec from " + base.name + " (" + std::string(to_string(base.calibration)) +
                         "); fabric from datasheet numbers (sim/whatif/machine.h)";
  return t;
}

}  // namespace parascope::whatif
