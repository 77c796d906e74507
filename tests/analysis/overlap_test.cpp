#include <catch2/catch.hpp>

#include "example_trace.h"
#include "test_paths.h"
#include "trace/core/analysis/exposed_communication.h"
#include "trace/core/analysis/overlap.h"
#include "trace/io/load_trace.h"

using namespace parascope;

TEST_CASE("Overlap per device, stream and SM lane on the hand-worked example", "[analysis][overlap]") {
  const auto ex = test::make_example_trace();
  const auto ov = compute_overlap(ex.trace);
  REQUIRE(ov.size() == 2);
  // device 0: C = [0,100) ∪ [150,250) = 200, M = [50,200) = 150 (annotated kernel), sync and the
  // HtoD copy are neither; C ∩ M = [50,100) ∪ [150,200) = 100
  CHECK(ov[0].totals.compute_ns == 200);
  CHECK(ov[0].totals.communication_ns == 150);
  CHECK(ov[0].totals.overlap_ns == 100);
  CHECK(ov[0].totals.communication_overlapped() == Approx(100.0 / 150.0));
  CHECK(ov[0].totals.compute_overlapped() == Approx(0.5));
  REQUIRE(ov[0].streams.size() == 2);
  // stream 7 holds all compute (200), 100 of it under the device's communication
  CHECK(ov[0].streams[0].stream == 7);
  CHECK(ov[0].streams[0].compute_ns == 200);
  CHECK(ov[0].streams[0].communication_ns == 0);
  CHECK(ov[0].streams[0].compute_under_comm_ns == 100);
  // stream 17 holds all communication (150), 100 of it under the device's compute
  CHECK(ov[0].streams[1].stream == 17);
  CHECK(ov[0].streams[1].communication_ns == 150);
  CHECK(ov[0].streams[1].comm_under_compute_ns == 100);
  // SM 3: compute role [0,40), communicate role [20,60): overlap [20,40) = 20
  REQUIRE(ov[0].sm_lanes.size() == 1);
  CHECK(ov[0].sm_lanes[0].sm == 3);
  CHECK(ov[0].sm_lanes[0].totals.compute_ns == 40);
  CHECK(ov[0].sm_lanes[0].totals.communication_ns == 40);
  CHECK(ov[0].sm_lanes[0].totals.overlap_ns == 20);
  // device 1 only computes: 10+20+30+40+50+10 = 160, no communication
  CHECK(ov[1].totals.compute_ns == 160);
  CHECK(ov[1].totals.communication_ns == 0);
  CHECK(ov[1].totals.communication_overlapped() == 0.0);
}

TEST_CASE("Exposed communication on the hand-worked example", "[analysis][exposed]") {
  const auto ex = test::make_example_trace();
  const auto e = exposed_communication(ex.trace);
  REQUIRE(e.size() == 2);
  // M − C = [50,200) − ([0,100) ∪ [150,250)) = [100,150) = 50 exposed, 100 hidden
  CHECK(e[0].communication_ns == 150);
  CHECK(e[0].hidden_ns == 100);
  CHECK(e[0].exposed_ns == 50);
  CHECK(e[0].exposed_fraction() == Approx(1.0 / 3.0));
  REQUIRE(e[0].by_name.size() == 1);
  CHECK(ex.trace.str(e[0].by_name[0].name) == "fused_allreduce");
  CHECK(e[0].by_name[0].count == 1);
  CHECK(e[0].by_name[0].total_ns == 150);
  CHECK(e[0].by_name[0].exposed_ns == 50);
  CHECK(e[1].communication_ns == 0);
  CHECK(e[1].by_name.empty());
}

namespace {
const std::string kSample = "allreduce_matmul_2xh200/";
const std::string kTpOverlap = "resources/captures/h200x2_2026-11-30/tp_overlap_b1";
}  // namespace

TEST_CASE("Overlap and exposed communication on the real 2 x H200 traces", "[analysis][overlap][real]") {
  // Expected values computed independently with Python (json + Decimal timestamps, unions of
  // kernel intervals; communication = kernels with "Collective name" or named nccl*):
  //   python3 tests/analysis/expected_values.py FILES...
  SECTION("bundled sample: serial, nothing hidden") {
    const Trace t = load_trace({test::sample_path(kSample + "rank0.json"), test::sample_path(kSample + "rank1.json")});
    const auto ov = compute_overlap(t);
    const auto ex = exposed_communication(t);
    REQUIRE(ov.size() == 2);
    // rank 0: compute 185376 ns, communication 751739 ns, overlap 0 → all of it exposed
    CHECK(ov[0].totals.compute_ns == 185376);
    CHECK(ov[0].totals.communication_ns == 751739);
    CHECK(ov[0].totals.overlap_ns == 0);
    CHECK(ex[0].exposed_ns == 751739);
    // rank 1: compute 183132 ns, communication 715547 ns
    CHECK(ov[1].totals.compute_ns == 183132);
    CHECK(ov[1].totals.communication_ns == 715547);
    CHECK(ex[1].exposed_ns == 715547);
  }
  SECTION("tensor-parallel step with the all-reduce overlapped") {
    const Trace t = load_trace({test::source_path(kTpOverlap)});
    REQUIRE(t.devices.size() == 2);
    const auto ov = compute_overlap(t);
    const auto ex = exposed_communication(t);
    // rank 0: compute 12568745, communication 3177194, overlap 1757139, exposed 1420055
    CHECK(ov[0].totals.compute_ns == 12568745);
    CHECK(ov[0].totals.communication_ns == 3177194);
    CHECK(ov[0].totals.overlap_ns == 1757139);
    CHECK(ex[0].exposed_ns == 1420055);
    // rank 1 (the gzipped file): compute 12736041, communication 3058474, overlap 1140247, exposed 1918227
    CHECK(ov[1].totals.compute_ns == 12736041);
    CHECK(ov[1].totals.communication_ns == 3058474);
    CHECK(ov[1].totals.overlap_ns == 1140247);
    CHECK(ex[1].exposed_ns == 1918227);
  }
}
