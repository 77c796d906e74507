// The simulation as a summary and as a trace: what the CLI prints and what the GUI would show.
#include <catch2/catch.hpp>

#include "sim/simulation.h"
#include "sim/topology_builders.h"
#include "sim/workload_spec.h"

using namespace parascope;
using namespace parascope::sim;

TEST_CASE("Report: summary per step and per link", "[sim][report]") {
  GpuSpec g;
  g.sm_count = 4;
  SimulationInput in;
  in.topology = star_topology("two", 2, 1e9, 100, g);
  in.steps = parse_workload_spec("allreduce:bytes=2000,channels=1,protocol=simple");
  in.want_trace = true;
  const SimulationOutput out = run_simulation(in);
  const SimSummary& s = out.summary;
  // 2400 ns (simulator_test.cpp): algbw = 2000 B / 2.4 us = 0.8333 GB/s, busbw x 2(n-1)/n = x 1
  REQUIRE(s.makespan == 2'400'000);
  REQUIRE(s.collectives.size() == 1);
  REQUIRE(s.collectives[0].algbw == Approx(2000 / 2.4e-6));
  REQUIRE(s.collectives[0].busbw == Approx(2000 / 2.4e-6));
  // every link direction carried 2 x 1000 B; busy 2 x 1000 ns of the 2400 ns at full rate
  REQUIRE(s.resources.size() == 4);
  for (const auto& r : s.resources) {
    REQUIRE(r.bytes == 2000);
    REQUIRE(r.peak_utilization == Approx(1.0));
    REQUIRE(r.mean_utilization == Approx(2000.0 / (1e9 * 2.4e-6)));
  }

  REQUIRE(out.trace);
  const Trace& t = *out.trace;
  REQUIRE(t.source_format == "simulation");
  REQUIRE(t.processes.size() == 2);
  REQUIRE(t.topology);
  REQUIRE(t.collectives.size() == 2);  // one annotation per rank
  size_t kernels = 0, lanes = 0, links = 0;
  for (const Track& tr : t.tracks) {
    REQUIRE(tr.simulated);
    if (tr.key.kind == TrackKind::kGpuStream) {
      ++kernels;
      REQUIRE(tr.slices.dur[0] == 2400);
    }
    if (tr.key.kind == TrackKind::kSmLane) ++lanes;
    if (tr.key.kind == TrackKind::kLink) {
      ++links;
      REQUIRE(tr.counter_source == CounterSource::kSimulated);
      // full rate from the first byte (200 ns) to 1200 ns, idle during the second hop's latency,
      // full again 1400 .. 2400, then 0
      REQUIRE(tr.counter.time == std::vector<TimeNs>{200, 1200, 1400, 2400});
      REQUIRE(tr.counter.value == std::vector<double>{1e9, 0, 1e9, 0});
    }
  }
  REQUIRE(kernels == 2);
  REQUIRE(lanes == 2);
  REQUIRE(links == 4);
  const CollectiveInfo& c = t.collectives[0];
  REQUIRE(c.op == CollectiveOp::kAllReduce);
  REQUIRE(t.str(c.algorithm) == "ring");
  REQUIRE(t.str(c.protocol) == "SIMPLE");
  REQUIRE(c.kernel.valid());
}
