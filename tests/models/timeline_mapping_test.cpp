#include <catch2/catch.hpp>

#include "models/timeline_mapping.h"

using namespace parascope;
using namespace parascope::models;

TEST_CASE("TimelineMapping converts time and pixels both ways", "[app][mapping]") {
  TimelineMapping m(1'000, 11'000, 1000);  // 10 us over 1000 px: 10 ns per pixel
  REQUIRE(m.ns_per_px() == 10.0);
  REQUIRE(m.x_of(1'000) == 0.0);
  REQUIRE(m.x_of(6'000) == 500.0);
  REQUIRE(m.time_at(250) == 3'500);
  SECTION("zoom keeps the time under the cursor in place") {
    m.zoom(2.0, 250);  // 2x in, anchored at x=250 (t=3500)
    REQUIRE(m.duration() == 5'000);
    REQUIRE(m.time_at(250) == 3'500);
    REQUIRE(m.start() == 2'250);
  }
  SECTION("zoom never goes below the minimum visible time") {
    m.zoom(1e9, 0, 100);
    REQUIRE(m.duration() == 100);
  }
  SECTION("pan moves by whole pixels' worth of time") {
    m.pan_px(100);  // drag right by 100 px: view moves 1000 ns earlier
    REQUIRE(m.start() == 0);
    REQUIRE(m.end() == 10'000);
  }
  SECTION("clamp keeps the view inside the trace") {
    m.pan_px(500);
    m.clamp_to(0, 50'000);
    REQUIRE(m.start() == 0);
    REQUIRE(m.duration() == 10'000);
  }
}

TEST_CASE("Ruler ticks use 1-2-5 steps and readable labels", "[app][mapping]") {
  const TimelineMapping m(0, 3'457'877, 1600);  // 3.46 ms over 1600 px: 2161 ns/px
  REQUIRE(tick_step(m, 90) == 200'000);          // 90 px ≈ 194 us → 200 us
  REQUIRE(tick_label(400'000, 0, 200'000) == "400 us");
  REQUIRE(tick_label(12'500'000, 0, 500'000) == "12.5 ms");
  REQUIRE(tick_label(1'500, 0, 500) == "1.5 us");
  REQUIRE(tick_label(250, 0, 50) == "250 ns");
}

TEST_CASE("Absolute ruler labels give the time of day on epoch clocks", "[app][mapping]") {
  // 1 764 500 000.123456789 s after 1970-01-01: 10:53:20 UTC; a 1 us step shows 6 decimals
  REQUIRE(tick_label_absolute(1'764'500'000'123'456'789, 1'000) == "10:53:20.123456");
  REQUIRE(tick_label_absolute(1'764'500'000'123'456'789, 100'000'000) == "10:53:20.1");
  REQUIRE(tick_label_absolute(1'764'500'000'000'000'000, 1'000'000'000) == "10:53:20");
  // a clock that is not an epoch keeps its own seconds
  REQUIRE(tick_label_absolute(12'500'000, 500'000) == "12.5 ms");
}
