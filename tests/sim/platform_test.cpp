// The sealed platform: which resources a route crosses, in order, and what it costs in latency.
#include <catch2/catch.hpp>

#include "sim/platform.h"
#include "sim/topology_builders.h"

using namespace parascope;
using namespace parascope::sim;

namespace {
std::vector<std::string> names(const Platform& p, const Route& r) {
  std::vector<std::string> out;
  for (uint32_t i : r.resources) out.push_back(p.resources()[i].name);
  return out;
}
GpuSpec gpu() {
  GpuSpec g;
  g.sm_count = 132;
  g.hbm_bytes_per_s = 4.8e12;
  g.ldst.per_sm_bytes_per_s = 38e9;
  g.ldst.cap_bytes_per_s = 369e9;
  return g;
}
}  // namespace

TEST_CASE("Platform: a star route is the sender's up link then the receiver's down link", "[sim][platform]") {
  const Platform p = Platform::seal(star_topology("star", 3, 450e9, 500, gpu()));
  const Route& r = p.route(0, 2);
  REQUIRE(names(p, r) == std::vector<std::string>{"gpu0->switch", "switch->gpu2"});
  REQUIRE(r.latency == 1'000'000);  // 2 hops x 500 ns, in ps
  REQUIRE(r.hops == 2);
  REQUIRE_FALSE(r.crosses_network);
  REQUIRE(p.hbm(1) >= 0);
  REQUIRE(p.resources()[p.hbm(1)].capacity == 4.8e12);
  REQUIRE(p.resources()[p.mechanism_port(0, Mechanism::kLdSt)].name == "gpu0/ldst");
  REQUIRE(p.mechanism_port(0, Mechanism::kTma) == -1);  // no cap measured
  REQUIRE_THROWS(p.route(1, 1));
}

TEST_CASE("Platform: cluster routes cross NICs and rails, GPUs are never transit", "[sim][platform]") {
  ClusterOptions o;
  o.nodes = 2;
  o.gpus_per_node = 2;
  o.gpu = gpu();
  const Platform p = Platform::seal(cluster_topology("c", o));
  // same node: through the node's NVSwitch, not through the NICs
  REQUIRE(names(p, p.route(0, 1)) == std::vector<std::string>{"node0/gpu0->node0/nvswitch", "node0/nvswitch->node0/gpu1"});
  // same rail, other node: GPU -> its NIC (PCIe), NIC tx, NIC -> rail switch, rail -> NIC, NIC rx, NIC -> GPU
  const Route& r = p.route(1, 3);
  REQUIRE(names(p, r) == std::vector<std::string>{"node0/gpu1->node0/nic1", "node0/nic1/tx", "node0/nic1->rail1",
                                                  "rail1->node1/nic1", "node1/nic1/rx", "node1/nic1->node1/gpu1"});
  REQUIRE(r.crosses_network);
  REQUIRE(r.latency == (500 + 1000 + 1000 + 500) * 1000);
  // cross-rail goes up to a spine
  const Route& x = p.route(0, 3);
  REQUIRE(names(p, x)[3].find("spine") != std::string::npos);
}

TEST_CASE("Platform: link_bandwidth_scale scales every link", "[sim][platform]") {
  PlatformOptions opt;
  opt.link_bandwidth_scale = 0.5;
  opt.hbm = false;
  const Platform p = Platform::seal(star_topology("star", 2, 400e9, 0, gpu()), opt);
  REQUIRE(p.resources()[p.route(0, 1).resources[0]].capacity == 200e9);
  REQUIRE(p.hbm(0) == -1);
}

TEST_CASE("Platform: an invalid topology is refused with its problems", "[sim][platform]") {
  Topology t = star_topology("bad", 2, 1e9, 0, gpu());
  t.links[0].bandwidth_bytes_per_s = 0;
  REQUIRE_THROWS_WITH(Platform::seal(t), Catch::Contains("links[0].bandwidth: must be > 0"));
  Topology island = star_topology("island", 2, 1e9, 0, gpu());
  island.links.pop_back();
  const Platform p = Platform::seal(island);
  REQUIRE_THROWS_WITH(p.route(0, 1), Catch::Contains("no route from gpu0 to gpu1"));
}
