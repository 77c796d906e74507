#include <catch2/catch.hpp>

#include <algorithm>

#include "models/topology_layout.h"
#include "sim/simulation.h"
#include "sim/topology_builders.h"
#include "sim/workload_spec.h"
#include "test_paths.h"
#include "trace/core/topology_json.h"
#include "trace/core/trace_machine.h"
#include "trace/io/load_trace.h"

using namespace parascope;

namespace {

Topology preset(const std::string& name) { return load_topology_file(test::source_path("resources/topologies/" + name + ".json")); }

// The layout's invariants, for any topology.
void check_layout(const Topology& t, const models::TopologyLayout& l) {
  REQUIRE(l.nodes.size() == t.nodes.size());
  REQUIRE(l.edges.size() == t.links.size());
  for (size_t i = 0; i < l.nodes.size(); ++i) {
    CHECK(l.nodes[i].w > 0);
    CHECK(l.nodes[i].x >= -1e-9);
    CHECK(l.nodes[i].right() <= l.width + 1e-9);
    CHECK(l.nodes[i].bottom() <= l.height + 1e-9);
    for (size_t j = i + 1; j < l.nodes.size(); ++j) CHECK_FALSE(l.nodes[i].overlaps(l.nodes[j]));
  }
  for (size_t i = 0; i < t.nodes.size(); ++i) {
    if (t.nodes[i].kind == NodeKind::kNetworkSwitch) continue;
    const auto g = std::find_if(l.groups.begin(), l.groups.end(), [&](const auto& gr) { return gr.host == t.nodes[i].host; });
    REQUIRE(g != l.groups.end());
    CHECK(g->box.contains(l.nodes[i]));
  }
  for (size_t a = 0; a < l.groups.size(); ++a)
    for (size_t b = a + 1; b < l.groups.size(); ++b) CHECK_FALSE(l.groups[a].box.overlaps(l.groups[b].box));
  // each edge runs between its two nodes' borders (never through a third node's centre)
  for (const auto& e : l.edges) {
    const TopoLink& link = t.links[static_cast<size_t>(e.link)];
    auto on_border = [](const models::LayoutRect& r, double x, double y) {
      return x >= r.x - 1e-6 && x <= r.right() + 1e-6 && y >= r.y - 1e-6 && y <= r.bottom() + 1e-6;
    };
    CHECK(on_border(l.nodes[link.a], e.x1, e.y1));
    CHECK(on_border(l.nodes[link.b], e.x2, e.y2));
  }
}

}  // namespace

TEST_CASE("Topology layout of 2, 8 and 64 GPUs, grouped by node", "[views][topology]") {
  SECTION("2 x H200 on one NVSwitch: the switch spans the GPUs above them") {
    const Topology t = preset("h200x2");
    const auto l = models::layout_topology(t);
    check_layout(t, l);
    const int32_t sw = t.find_node("nvswitch"), g0 = t.find_node("gpu0"), g1 = t.find_node("gpu1");
    CHECK(l.nodes[static_cast<size_t>(sw)].bottom() < l.nodes[static_cast<size_t>(g0)].y);
    CHECK(l.nodes[static_cast<size_t>(g0)].x < l.nodes[static_cast<size_t>(g1)].x);
    CHECK(l.nodes[static_cast<size_t>(g0)].y == l.nodes[static_cast<size_t>(g1)].y);
    // the switch is as wide as the GPU row: 2 cells of 110 minus the 20 between boxes
    CHECK(l.nodes[static_cast<size_t>(sw)].w == Approx(200));
    // each GPU's link drops straight down from the switch to the GPU's top
    for (const auto& e : l.edges) CHECK(e.x1 == Approx(e.x2));
    CHECK(l.groups.size() == 1);
  }
  SECTION("HGX H200 x8: eight GPUs in one row under the switch") {
    const Topology t = preset("hgx_h200x8");
    const auto l = models::layout_topology(t);
    check_layout(t, l);
    double y = -1;
    for (size_t i = 0; i < t.nodes.size(); ++i)
      if (t.nodes[i].kind == NodeKind::kGpu) {
        if (y < 0) y = l.nodes[i].y;
        CHECK(l.nodes[i].y == y);
      }
  }
  SECTION("PCIe box: bridge over switches over GPU pairs") {
    const Topology t = preset("pcie_h100x8");
    const auto l = models::layout_topology(t);
    check_layout(t, l);
    const auto bridge = l.nodes[static_cast<size_t>(t.find_node("host_bridge"))];
    const auto sw0 = l.nodes[static_cast<size_t>(t.find_node("pcie_switch0"))];
    CHECK(bridge.bottom() < sw0.y);
    // switch i is centred over GPUs 2i and 2i + 1
    const auto g0 = l.nodes[static_cast<size_t>(t.find_node("gpu0"))], g1 = l.nodes[static_cast<size_t>(t.find_node("gpu1"))];
    CHECK(sw0.cx() == Approx((g0.cx() + g1.cx()) / 2));
  }
  SECTION("8 nodes x 8 GPUs (64 GPUs), rail-optimised: hosts on a grid, rails and spines above") {
    sim::ClusterOptions o;
    o.nodes = 8;
    o.gpus_per_node = 8;
    const Topology t = sim::cluster_topology("cluster64", o);
    REQUIRE(t.gpu_count() == 64);
    const auto l = models::layout_topology(t);
    check_layout(t, l);
    REQUIRE(l.groups.size() == 8);
    // a host box is ~3x wider than tall: 2 columns x 4 rows keeps the whole picture near square
    std::vector<double> xs;
    for (const auto& g : l.groups) xs.push_back(g.box.x);
    std::sort(xs.begin(), xs.end());
    xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
    CHECK(xs.size() == 2);
    double lowest_switch = 0, highest_group = 1e300;
    for (size_t i = 0; i < t.nodes.size(); ++i)
      if (t.nodes[i].kind == NodeKind::kNetworkSwitch) lowest_switch = std::max(lowest_switch, l.nodes[i].bottom());
    for (const auto& g : l.groups) highest_group = std::min(highest_group, g.box.y);
    CHECK(lowest_switch < highest_group);
  }
}

TEST_CASE("The machine behind the collector sample: two GPUs on one NVLink fabric", "[views][topology][real]") {
  const Trace t = load_trace({test::sample_path("record_torch_nccl_2xh200")});
  const TraceMachine m = trace_machine(t);
  CHECK(m.origin == TraceMachine::Origin::kInferred);
  // 4 trace devices (each rank's process sees both GPUs) are 2 physical GPUs by PCI bus id
  REQUIRE(m.topology.gpu_count() == 2);
  REQUIRE(m.topology.nodes.size() == 3);
  REQUIRE(m.topology.links.size() == 2);  // gpu0 ⇄ nvswitch, gpu1 ⇄ nvswitch; the pair is a path
  CHECK(m.device_node[0] == m.device_node[3]);  // 0000:00:06.0 seen by rank 0 and by rank 1
  CHECK(m.device_node[1] == m.device_node[2]);
  CHECK(m.topology.links[0].bandwidth_bytes_per_s == Approx(424.98e9));
  CHECK(models::layout_topology(m.topology).nodes.size() == 3);

  const auto counters = link_counters(t, true);
  const auto [s, e] = t.time_span();
  const auto loads = topology_link_loads(m, counters, {s, e});
  REQUIRE(loads.size() == 2);
  // gpu0 → switch carries rank 0's measured tx (the estimates there are outranked):
  // peak 117.5 GB/s, mean over the covered time 995.1 MB/s (parascope-cli links)
  const TopoLinkLoad& l0 = loads[static_cast<size_t>(m.topology.links[0].a == static_cast<uint32_t>(m.device_node[0]) ? 0 : 1)];
  const bool gpu_is_a = true;
  const LinkDirectionLoad& up = gpu_is_a ? l0.a_to_b : l0.b_to_a;
  CHECK(up.source == CounterSource::kMeasured);
  CHECK(up.counters.size() == 1);
  CHECK(up.peak_bytes_per_s == Approx(117.5e9).margin(0.05e9));
  CHECK(up.mean_bytes_per_s == Approx(995.1e6).margin(0.1e6));
  SECTION("an estimated GPU-to-GPU series crosses both uplinks through the switch") {
    const auto est = std::find_if(counters.begin(), counters.end(), [&](const LinkCounter& c) {
      return c.source == CounterSource::kEstimated && c.link.dst_device != kNoDevice &&
             m.device_node[c.link.src_device] != m.device_node[c.link.dst_device];
    });
    REQUIRE(est != counters.end());
    const auto hops = place_counter(m, *est);
    REQUIRE(hops.size() == 2);
    CHECK(hops[0].link != hops[1].link);
    CHECK(hops[0].a_to_b);   // into the switch from the sender (the GPU is each link's a end)
    CHECK_FALSE(hops[1].a_to_b);
  }
}

TEST_CASE("Simulated link counters land on their own topology links", "[views][topology]") {
  sim::SimulationInput in;
  in.topology = preset("hgx_h200x8");
  in.steps = sim::parse_workload("allreduce:algo=ring,bytes=64MiB,gpus=8");
  in.want_trace = true;
  const sim::SimulationOutput out = sim::run_simulation(in);
  REQUIRE(out.trace);
  const TraceMachine m = trace_machine(*out.trace);
  CHECK(m.origin == TraceMachine::Origin::kTrace);
  const auto counters = link_counters(*out.trace, false);
  REQUIRE(counters.size() == 16);  // 8 GPU uplinks, both directions
  for (const LinkCounter& c : counters) {
    CHECK(c.source == CounterSource::kSimulated);
    const auto hops = place_counter(m, c);
    REQUIRE(hops.size() == 1);
    CHECK(hops[0].link == c.link.port);
  }
  const auto [s, e] = out.trace->time_span();
  const auto loads = topology_link_loads(m, counters, {s, e});
  for (const TopoLinkLoad& l : loads) {
    CHECK(l.a_to_b.has_data);
    CHECK(l.b_to_a.has_data);
    // a ring all-reduce keeps every uplink busy in both directions, below its capacity
    CHECK(l.peak_utilization() <= 1.0 + 1e-9);
    CHECK(l.mean_utilization() > 0.3);
  }
}

TEST_CASE("A preset gives a Kineto trace its machine: estimates placed through the switch", "[views][topology][real]") {
  const std::string s = "allreduce_matmul_2xh200/";
  const Trace t = load_trace({test::sample_path(s + "rank0.json"), test::sample_path(s + "rank1.json")});
  CHECK(trace_machine(t).topology.links.empty());  // nothing in the files says how GPUs connect
  const Topology h200 = preset("h200x2");
  const TraceMachine m = trace_machine(t, &h200);
  CHECK(m.origin == TraceMachine::Origin::kPreset);
  CHECK(m.device_node[0] == h200.find_node("gpu0"));
  CHECK(m.device_node[1] == h200.find_node("gpu1"));
  const auto counters = link_counters(t, true);
  REQUIRE(counters.size() == 2);
  const auto [a, b] = t.time_span();
  const auto loads = topology_link_loads(m, counters, {a, b});
  // rank 0 sends 3 x 16 MiB to rank 1 over gpu0 → nvswitch → gpu1, and rank 1 as much back
  for (const TopoLinkLoad& l : loads) {
    CHECK(l.a_to_b.source == CounterSource::kEstimated);
    CHECK(l.a_to_b.has_data);
    CHECK(l.b_to_a.has_data);
  }
}
