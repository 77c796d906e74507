// Machines built in code: the SimGrid anchor's star (N GPUs, one switch, split-duplex links), NVSwitch
// and PCIe boxes, and multi-node clusters whose NICs hang off rail switches (rail-optimised) or off
// leaf switches by node (fat-tree), with spines above. The presets in resources/topologies/ are these
// shapes with measured or datasheet numbers; tests and benchmarks build them directly.
#pragma once

#include <string>

#include "trace/core/topology.h"

namespace parascope::sim {

// N GPUs, each with one link of `bytes_per_s` per direction and `latency_ns` to a non-blocking switch.
Topology star_topology(std::string name, int gpus, double bytes_per_s, double latency_ns, const GpuSpec& gpu);

// N GPUs on one NVSwitch (the switch chips of a board folded into one node).
Topology nvswitch_box(std::string name, int gpus, const GpuSpec& gpu, double nvlink_bytes_per_s, double latency_ns,
                      const SwitchSpec& sw);

// N GPUs without NVLink: `gpus_per_switch` GPUs per PCIe switch, the switches under one host bridge.
Topology pcie_box(std::string name, int gpus, const GpuSpec& gpu, int gpus_per_switch, double pcie_bytes_per_s,
                  double uplink_bytes_per_s, double latency_ns);

struct ClusterOptions {
  int nodes = 4;
  int gpus_per_node = 8;
  GpuSpec gpu;
  double nvlink_bytes_per_s = 450e9;   // per GPU, per direction, to the node's NVSwitch
  double nvlink_latency_ns = 500;
  SwitchSpec nvswitch;
  double pcie_bytes_per_s = 64e9;      // GPU <-> its NIC
  double pcie_latency_ns = 500;
  double nic_bytes_per_s = 50e9;       // 400 Gb/s
  double network_latency_ns = 1000;    // per network hop
  bool rail_optimized = true;          // NIC i of every node on rail switch i; else leaf switches by node
  int nodes_per_leaf = 2;              // fat-tree: nodes under one leaf switch
  int spines = 2;                      // spine switches; uplinks sized for full bisection
};
Topology cluster_topology(std::string name, const ClusterOptions& o);

}  // namespace parascope::sim
