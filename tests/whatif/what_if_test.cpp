// run_whatif end to end on the real 2 x H200 traces: the replay of the unchanged graph against the
// measured step times (the accuracy target: within 5 %), what a transform changes, and the
// predicted trace (same model as a measured one, tracks marked simulated).
#include <catch2/catch.hpp>

#include <cmath>

#include "sim/simulation.h"
#include "sim/whatif/what_if.h"
#include "test_paths.h"
#include "trace/core/analysis/collective_matcher.h"
#include "trace/io/load_trace.h"

using namespace parascope;
using namespace parascope::whatif;

namespace {

Topology h200x2() { return sim::find_topology("h200x2", test::source_path("resources/topologies")); }

struct Loaded {
  Trace trace;
  DepGraph graph;
  explicit Loaded(const std::string& path) : trace(load_trace({path})), graph(build_dep_graph(trace)) {}
  WhatIfOutput run(std::vector<std::pair<std::string, std::string>> set = {}, bool want_trace = false) const {
    WhatIfInput in;
    in.measured = &trace;
    in.graph = &graph;
    in.topology = h200x2();
    in.overrides = std::move(set);
    in.want_trace = want_trace;
    return run_whatif(in);
  }
};

std::string capture(const std::string& variant) {
  return test::source_path("resources/captures/h200x2_2026-11-30/" + variant);
}

}  // namespace

TEST_CASE("whatif: the replay of real traces is within 5 % of the measured step time", "[whatif][accuracy]") {
  // measured = mean over steps of the slowest rank's ProfilerStep#N (docs/accuracy.md lists them all)
  for (const std::string& path : {test::sample_path("allreduce_matmul_2xh200"), capture("tp_serial_b1"),
                                  capture("tp_overlap_b1"), capture("dp_step")}) {
    const Loaded l(path);
    const WhatIfOutput o = l.run();
    INFO(path << ": measured " << o.summary.measured_step_ns << " ns, replay " << o.summary.step_ns << " ns");
    REQUIRE(o.summary.measured_step_ns > 0);
    CHECK(std::abs(o.summary.step_ns / o.summary.measured_step_ns - 1) <= 0.05);
    CHECK(o.summary.changes.empty());
    CHECK(o.replay.warnings.empty());
  }
}

TEST_CASE("whatif: a replay reports per rank and step, links and the critical path", "[whatif][report]") {
  const Loaded l(capture("tp_serial_b1"));
  const WhatIfOutput o = l.run();
  const WhatIfSummary& s = o.summary;
  CHECK(s.steps.size() == 8);  // ProfilerStep#3..#6 on 2 ranks
  CHECK(s.topology == "h200x2");
  CHECK(s.calibration == "measured");
  // 12 collectives crossed the NVSwitch: every GPU link direction carried bytes
  REQUIRE(s.links.size() == 4);
  for (const LinkUse& u : s.links) {
    CHECK(u.bytes > 0);
    CHECK(u.peak_utilization > 0);
    CHECK(u.peak_utilization <= 1.0001);
  }
  // serial TP step: all communication is exposed, measured and replayed
  REQUIRE(s.communication.size() == 2);
  REQUIRE(s.measured_communication.size() == 2);
  for (const RankCommunication& c : s.communication) CHECK(c.exposed_ns == c.communication_ns);
  // the critical path ends with the replay, its parts add up to its span, and it is mostly GEMMs
  const CriticalPath& cp = s.critical;
  CHECK(cp.end == o.replay.last);
  CHECK(cp.start >= o.replay.first);
  CHECK(cp.compute_ns + cp.communication_ns + cp.host_ns + cp.memory_ns + cp.wait_ns == cp.end - cp.start);
  CHECK(cp.compute_ns > cp.communication_ns);
  REQUIRE(!s.divergences.empty());
  CHECK(s.divergences[0].kind == "collective");  // compute keeps its measured time; communication is modelled
}

TEST_CASE("whatif: moving the all-reduce beside the next GEMMs hides part of it", "[whatif][predict]") {
  const Loaded l(capture("tp_serial_b1"));
  const WhatIfOutput base = l.run();
  const WhatIfOutput side = l.run({{"comm_select", "allreduce"}, {"comm_stream", "side"}});
  REQUIRE(side.summary.changes.size() == 1);
  CHECK(side.summary.changes[0] == "moved 8 collective members to a side stream");
  // It overlaps now: less exposed communication, a shorter step, but not by the whole all-reduce
  // (the GEMMs beside it lose SMs and slow down).
  CHECK(side.summary.exposed_ns < base.summary.exposed_ns);
  CHECK(side.summary.gpu_step_ns < base.summary.gpu_step_ns);
  const WhatIfDiff d = diff_runs(base, side);
  CHECK(d.gpu_step_ns < 0);
  bool gemm_slower = false;
  for (const Divergence& v : d.by_name)
    if (v.name.find("nvjet") != std::string::npos && v.replay_ns > v.measured_ns) gemm_slower = true;
  CHECK(gemm_slower);
}

TEST_CASE("whatif: fewer NCCL channels make the step slower", "[whatif][predict]") {
  const Loaded l(capture("tp_serial_b1"));
  const WhatIfOutput base = l.run();
  const WhatIfOutput four = l.run({{"channels", "4"}});
  // measured on the machine: 3.77 ms -> 4.85 ms (+29 %) without the profiler
  CHECK(four.summary.gpu_step_ns > 1.2 * base.summary.gpu_step_ns);
  CHECK(four.summary.gpu_step_ns < 1.5 * base.summary.gpu_step_ns);
}

TEST_CASE("whatif: the predicted trace is the measured trace's model, marked simulated", "[whatif][trace]") {
  const Loaded l(test::sample_path("allreduce_matmul_2xh200"));
  const WhatIfOutput o = l.run({}, true);
  REQUIRE(o.trace);
  const Trace& t = *o.trace;
  CHECK(t.source_format == "whatif");
  CHECK(t.processes.size() == l.trace.processes.size());
  CHECK(t.processes[0].rank == 0);
  size_t streams = 0, links = 0;
  for (const Track& tr : t.tracks) {
    if (tr.key.kind == TrackKind::kGpuStream) {
      ++streams;
      CHECK(tr.simulated);
    }
    if (tr.key.kind == TrackKind::kLink) {
      ++links;
      CHECK(tr.counter_source == CounterSource::kSimulated);
    }
  }
  CHECK(streams == 4);  // streams 7 and 17 on each rank
  CHECK(links > 0);
  // the collectives carry annotations that match across ranks again: 3 all-reduces + 3 send/recvs
  const CollectiveMatch m = match_collectives(t);
  CHECK(m.complete == 6);
  CHECK(m.incomplete == 0);
  size_t launches = 0;
  for (const Flow& f : t.flows) launches += f.kind == FlowKind::kLaunch;
  CHECK(launches == 48);
}

TEST_CASE("whatif: impossible requests are errors, not guesses", "[whatif][errors]") {
  const Loaded l(test::sample_path("allreduce_matmul_2xh200"));
  CHECK_THROWS_AS(l.run({{"scale_gpus", "3"}}), std::invalid_argument);
  CHECK_THROWS_AS(l.run({{"channels", "0"}}), sim::KnobError);
  WhatIfInput in;
  in.graph = &l.graph;
  in.topology = sim::find_topology("h200x2", test::source_path("resources/topologies"));
  in.topology.nodes.erase(in.topology.nodes.begin() + in.topology.gpu_node(1));
  in.topology.links.pop_back();
  CHECK_THROWS_AS(run_whatif(in), std::invalid_argument);
}

TEST_CASE("whatif: machine, link and mechanism knobs reach the interconnect model", "[whatif][predict][machine]") {
  const Loaded l(capture("tp_serial_b1"));
  const WhatIfOutput base = l.run();
  auto comm_ns = [](const WhatIfOutput& o) {
    TimeNs t = 0;
    for (const Divergence& d : o.summary.divergences)
      if (d.kind == "collective") t += d.replay_ns;
    return t;
  };
  // a quarter of the link bandwidth: the NVLink-bound collectives take longer
  const WhatIfOutput slow_links = l.run({{"link_bandwidth_scale", "0.25"}});
  CHECK(comm_ns(slow_links) > comm_ns(base));
  // the same two GPUs on PCIe Gen5 (63 GB/s): much slower collectives, a datasheet machine
  const WhatIfOutput pcie = l.run({{"fabric", "pcie"}});
  CHECK(comm_ns(pcie) > 3 * comm_ns(base));
  CHECK(pcie.summary.calibration == "datasheet");
  CHECK(pcie.summary.changes.back().rfind("machine: 2 GPUs on PCIe", 0) == 0);
  // copy engines instead of SM loads/stores: a different time from the model
  const WhatIfOutput ce = l.run({{"mechanism", "ce"}});
  CHECK(comm_ns(ce) != comm_ns(base));
  // 8 data-parallel ranks on one NVSwitch built around the measured GPU
  const WhatIfOutput eight = l.run({{"scale_gpus", "8"}});
  CHECK(eight.summary.topology == "h200x2-nvswitch8");
  CHECK(eight.graph.devices.size() == 8);
  CHECK(eight.summary.steps.size() == 32);  // 4 steps x 8 ranks
  CHECK(eight.replay.warnings.empty());
}
