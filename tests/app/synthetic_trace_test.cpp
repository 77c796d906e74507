#include <catch2/catch.hpp>

#include "bench/synthetic_trace.h"
#include "trace/core/classify.h"

using namespace parascope;

TEST_CASE("The synthetic trace has the shape of an N-GPU training run", "[app][synthetic]") {
  bench::SyntheticOptions o;
  o.ranks = 2;
  o.sms = 8;
  o.steps = 2;
  bench::SyntheticStats st;
  const Trace t = bench::make_synthetic_trace(o, &st);
  REQUIRE(st.steps == 2);
  REQUIRE(st.events() == bench::synthetic_events_per_step(o) * 2);
  REQUIRE(t.processes.size() == 2);
  REQUIRE(t.devices.size() == 2);
  // per rank and step: 96 compute-stream kernels + 4 NCCL all-reduces
  REQUIRE(st.kernels == 2 * 2 * 100);
  REQUIRE(t.collectives.size() == 2 * 2 * 4);
  // per rank: a CPU thread, 3 streams, NVTX, 2 NVLink counters and one lane per SM
  REQUIRE(t.tracks.size() == 2 * (1 + 3 + 1 + 2 + 8));
  // SM spans per rank and step with 8 SMs (2 communication SMs, 2 NCCL channels):
  // 16 GEMMs × 6 tiles × 8 + fused: 8 × 6 × (6 + 2 × 2) + NCCL: 4 × 10 × 2 × 2
  REQUIRE(st.sm_spans == 2 * 2 * (16 * 6 * 8 + 8 * 6 * 10 + 4 * 10 * 2 * 2));
  const SliceClassifier c(t);
  int64_t comm_kernels = 0;
  for (uint32_t ti = 0; ti < t.tracks.size(); ++ti)
    for (uint32_t i = 0; i < t.tracks[ti].slices.size(); ++i)
      comm_kernels += t.tracks[ti].slices.ref[i].kind() == SliceKind::kKernel && c.is_communication(ti, i);
  REQUIRE(comm_kernels == 2 * 2 * 4);  // the NCCL kernels, recognised by their collective annotations
  // every launch flow ends on a GPU slice that starts after the launch call ends
  for (const Flow& f : t.flows) {
    if (f.kind != FlowKind::kLaunch) continue;
    const auto& a = t.tracks[f.from.track].slices;
    const auto& b = t.tracks[f.to.track].slices;
    REQUIRE(b.start[f.to.index] >= a.start[f.from.index] + a.dur[f.from.index]);
  }
  SECTION("the same options give the same trace") {
    const Trace u = bench::make_synthetic_trace(o);
    REQUIRE(u.slice_count() == t.slice_count());
    REQUIRE(u.tracks[9].slices.start == t.tracks[9].slices.start);
    REQUIRE(u.tracks[9].slices.dur == t.tracks[9].slices.dur);
  }
}
