// The simulator's sealed machine, built once from a Topology: one resource per link direction, per
// switch crossbar (when it is not non-blocking), per NIC direction, per GPU's HBM and per GPU's
// transfer-mechanism port (the measured saturation of copy engines, TMA, LD/ST, multimem), plus
// routes between GPUs as resource lists with their summed per-hop latency. GPUs are endpoints only
// (never transit). Immutable after seal(); routes are computed on first use and cached.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "trace/core/events.h"
#include "trace/core/time.h"
#include "trace/core/topology.h"

namespace parascope::sim {

enum class ResourceKind : uint8_t { kLink, kCrossbar, kNicTx, kNicRx, kHbm, kMechanismPort, kAgent };
std::string_view to_string(ResourceKind k);

struct PlatformResource {
  std::string name;      // "gpu0->nvswitch0", "nvswitch0/crossbar", "node1/nic3/tx", "gpu3/hbm", "gpu0/ldst", "gpu0/sm_copy"
  ResourceKind kind = ResourceKind::kLink;
  double capacity = 0;   // bytes/s
  int32_t link = -1;     // kLink: topology link index
  bool forward = true;   // kLink: direction a -> b
  int32_t node = -1;     // topology node the resource belongs to (for links: the sending end)
};

struct PlatformOptions {
  double link_bandwidth_scale = 1.0;  // knob link_bandwidth_scale
  bool hbm = true;                    // model each GPU's HBM as a shared resource (when its spec gives one)
};

struct Route {
  std::vector<uint32_t> resources;  // in path order: links, crossbars, NIC directions
  TimePs latency = 0;               // sum of per-hop latencies
  uint32_t hops = 0;                // links crossed
  bool crosses_network = false;     // leaves the host through a NIC
};

class Platform {
 public:
  // Throws std::invalid_argument listing the topology's problems (Topology::validate()).
  static Platform seal(const Topology& topo, const PlatformOptions& opt = {});

  const Topology& topology() const { return topo_; }
  size_t gpu_count() const { return gpu_nodes_.size(); }
  const GpuSpec& gpu(int32_t g) const { return *topo_.nodes[gpu_nodes_.at(g)].gpu; }
  int32_t gpu_host(int32_t g) const { return topo_.nodes[gpu_nodes_.at(g)].host; }
  uint32_t gpu_node(int32_t g) const { return gpu_nodes_.at(g); }
  const std::vector<PlatformResource>& resources() const { return resources_; }

  // Route between two different GPUs; std::invalid_argument when no path exists.
  const Route& route(int32_t src_gpu, int32_t dst_gpu) const;
  // Route from a GPU to a switch node and back (NVLS: the switch reduces / multicasts).
  const Route& route_to_node(int32_t src_gpu, uint32_t node) const;
  const Route& route_from_node(uint32_t node, int32_t dst_gpu) const;
  // The NVSwitch on the GPU's shortest route to a peer GPU of its host, -1 if none.
  int32_t nvswitch_of(int32_t gpu) const;

  int32_t hbm(int32_t g) const { return hbm_.at(g); }  // -1: not modelled
  // The GPU's aggregate SM load/store copy throughput (GpuSpec::sm_copy_bytes_per_s), -1: not modelled.
  int32_t sm_copy(int32_t g) const { return sm_copy_.at(g); }
  // The GPU's port for a mechanism (its measured cap), -1 when the mechanism has no cap.
  int32_t mechanism_port(int32_t g, Mechanism m) const;

 private:
  struct Edge {
    uint32_t to;
    uint32_t link;
    bool forward;
  };
  const Route& cached(uint32_t src_node, uint32_t dst_node) const;
  Route shortest(uint32_t src_node, uint32_t dst_node) const;

  Topology topo_;
  PlatformOptions opt_;
  std::vector<PlatformResource> resources_;
  std::vector<uint32_t> gpu_nodes_;               // gpu index -> node
  std::vector<std::vector<Edge>> adj_;            // per node, sorted by (to, link) for determinism
  std::vector<uint32_t> link_res_;                // 2 per link: a->b, b->a
  std::vector<int32_t> crossbar_;                 // per node, -1
  std::vector<int32_t> nic_tx_, nic_rx_;          // per node, -1
  std::vector<int32_t> hbm_;                      // per gpu
  std::vector<int32_t> sm_copy_;                  // per gpu
  std::vector<std::array<int32_t, 6>> ports_;     // per gpu, per Mechanism
  mutable std::map<std::pair<uint32_t, uint32_t>, Route> routes_;
};

}  // namespace parascope::sim
