// Small hand-made dependency graphs for the what-if tests: a builder that adds lanes, nodes,
// edges and groups with explicit numbers, so every expected timeline can be worked out by hand.
#pragma once

#include <string>
#include <vector>

#include "sim/whatif/dep_graph.h"
#include "sim/whatif/replay.h"

namespace parascope::test {

class GraphFixture {
 public:
  // `devices` GPUs, one process each (rank = index), `sms` SMs per GPU.
  explicit GraphFixture(int devices, uint32_t sms = 100) {
    for (int d = 0; d < devices; ++d) {
      g.processes.push_back({static_cast<uint32_t>(d), d, "rank " + std::to_string(d)});
      g.devices.push_back({static_cast<uint32_t>(d), static_cast<uint32_t>(d), d, sms});
    }
    g.steps.push_back({"step", {}});
    for (int d = 0; d < devices; ++d) g.steps[0].ranges.push_back({static_cast<uint32_t>(d), 0, 1'000'000'000});
  }
  uint32_t stream(int device, int64_t id) {
    whatif::Lane l;
    l.kind = whatif::LaneKind::kStream;
    l.process = static_cast<uint32_t>(device);
    l.device = device;
    l.id = id;
    g.lanes.push_back(l);
    return static_cast<uint32_t>(g.lanes.size() - 1);
  }
  uint32_t thread(int process, int64_t id) {
    whatif::Lane l;
    l.kind = whatif::LaneKind::kThread;
    l.process = static_cast<uint32_t>(process);
    l.id = id;
    g.lanes.push_back(l);
    return static_cast<uint32_t>(g.lanes.size() - 1);
  }
  // Appends a node to a lane; times in microseconds (measured start and duration = work).
  uint32_t node(uint32_t lane, whatif::NodeType kind, const std::string& name, double start_us, double dur_us) {
    whatif::Node n;
    n.kind = kind;
    n.lane = lane;
    n.process = g.lanes[lane].process;
    n.device = g.lanes[lane].device;
    n.name = g.intern(name);
    n.start = static_cast<TimeNs>(start_us * 1000);
    n.dur = static_cast<TimeNs>(dur_us * 1000);
    n.work = n.dur;
    n.step = 0;
    const uint32_t id = g.add_node(n);
    g.lanes[lane].nodes.push_back(id);
    return id;
  }
  void edge(uint32_t from, uint32_t to, whatif::EdgeKind k, whatif::EdgeTiming t, double lag_us = 0) {
    g.edges.push_back({from, to, k, t, static_cast<TimeNs>(lag_us * 1000), false});
  }
  int32_t group(CollectiveOp op, double bytes, std::vector<uint32_t> members) {
    whatif::CommGroup grp;
    grp.spec.op = op;
    grp.spec.bytes = bytes;
    grp.members = std::move(members);
    for (uint32_t m : grp.members) {
      grp.spec.gpus.push_back(g.devices[static_cast<size_t>(g.nodes[m].device)].gpu);
      g.nodes[m].group = static_cast<int32_t>(g.groups.size());
    }
    g.groups.push_back(grp);
    return static_cast<int32_t>(g.groups.size() - 1);
  }

  // Transfers at 1 byte per ns (1 GB/s), `sms` SMs held: the test's stand-in for the model.
  std::vector<whatif::GroupWork> work_by_bytes(uint32_t sms) const {
    std::vector<whatif::GroupWork> w(g.groups.size());
    for (size_t i = 0; i < g.groups.size(); ++i) {
      w[i].duration = static_cast<TimeNs>(g.groups[i].spec.bytes);
      w[i].sms = sms;
    }
    return w;
  }

  whatif::DepGraph g;
};

inline double us(TimeNs ns) { return static_cast<double>(ns) / 1000.0; }

}  // namespace parascope::test
