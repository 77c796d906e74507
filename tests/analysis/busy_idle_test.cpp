#include <catch2/catch.hpp>

#include "example_trace.h"
#include "test_paths.h"
#include "trace/core/analysis/busy_idle.h"
#include "trace/io/load_trace.h"

using namespace parascope;

TEST_CASE("Busy/idle partitions each device's window on the hand-worked example", "[analysis][busy_idle]") {
  const auto ex = test::make_example_trace();
  SECTION("each device's own window") {
    const auto b = busy_idle(ex.trace);
    REQUIRE(b.size() == 2);
    // device 0, window [0,340): overlapped [50,100)+[150,200) = 100; compute only [0,50)+[200,250)
    // = 100; communication only [100,150) = 50; memory only [320,340) = 20; sync only [250,300)
    // = 50; idle [300,320) = 20. 100+100+50+20+50+20 = 340.
    CHECK(b[0].window_start == 0);
    CHECK(b[0].window_end == 340);
    CHECK(b[0].overlapped_ns == 100);
    CHECK(b[0].compute_only_ns == 100);
    CHECK(b[0].communication_only_ns == 50);
    CHECK(b[0].memory_only_ns == 20);
    CHECK(b[0].sync_only_ns == 50);
    CHECK(b[0].idle_ns == 20);
    CHECK(b[0].busy_ns() == 270);
    CHECK(b[0].busy_fraction() == Approx(270.0 / 340.0));
    // device 1, window [1000,1510): compute 10+20+30+40+50+10 = 160, idle 350
    CHECK(b[1].window_ns() == 510);
    CHECK(b[1].compute_only_ns == 160);
    CHECK(b[1].idle_ns == 350);
  }
  SECTION("one window for all devices") {
    BusyIdleOptions o;
    o.common_window = true;
    const auto b = busy_idle(ex.trace, o);
    // [0,1510) for both: device 0 adds 1510 − 340 idle to its 20; device 1 adds the 1000 before
    CHECK(b[0].window_ns() == 1510);
    CHECK(b[0].idle_ns == 20 + 1170);
    CHECK(b[1].idle_ns == 1510 - 160);
  }
  SECTION("an explicit window clips activity") {
    BusyIdleOptions o;
    o.window = Interval{75, 175};
    const auto b = busy_idle(ex.trace, o);
    // [75,175): overlapped [75,100)+[150,175) = 50, communication only [100,150) = 50
    CHECK(b[0].overlapped_ns == 50);
    CHECK(b[0].communication_only_ns == 50);
    CHECK(b[0].compute_only_ns == 0);
    CHECK(b[0].idle_ns == 0);
  }
}

TEST_CASE("Busy/idle on the bundled 2 x H200 sample", "[analysis][busy_idle][real]") {
  const std::string s = "allreduce_matmul_2xh200/";
  const Trace t = load_trace({test::sample_path(s + "rank0.json"), test::sample_path(s + "rank1.json")});
  const auto b = busy_idle(t);
  REQUIRE(b.size() == 2);
  // python3 tests/analysis/expected_values.py: rank 0 window 1796033537018780763 ..
  // 1796033537021673997 (2893234 ns), busy 1172250 = compute 185376 + communication 751739 +
  // memory 235135 (three 4 MiB DtoH copies), no sync events, idle 1720984
  CHECK(b[0].window_start == 1796033537018780763LL);
  CHECK(b[0].window_ns() == 2893234);
  CHECK(b[0].busy_ns() == 1172250);
  CHECK(b[0].compute_only_ns == 185376);
  CHECK(b[0].communication_only_ns == 751739);
  CHECK(b[0].memory_only_ns == 1172250 - 185376 - 751739);
  CHECK(b[0].sync_only_ns == 0);
  CHECK(b[0].idle_ns == 1720984);
  // rank 1: busy 1133845, idle 1535768
  CHECK(b[1].busy_ns() == 1133845);
  CHECK(b[1].idle_ns == 1535768);
}
