#include <catch2/catch.hpp>

#include "trace/core/time.h"

using namespace parascope;

TEST_CASE("picosecond/nanosecond conversion rounds half away from zero", "[core][time]") {
  REQUIRE(ns_to_ps(18) == 18000);
  REQUIRE(ps_to_ns(18204) == 18);   // an 8 KiB chunk at 450 GB/s: 18.204 ns
  REQUIRE(ps_to_ns(18500) == 19);
  REQUIRE(ps_to_ns(-18500) == -19);
  REQUIRE(ps_to_ns(499) == 0);
}

TEST_CASE("format_duration picks a unit and about four significant digits", "[core][time]") {
  REQUIRE(format_duration(850) == "850 ns");
  REQUIRE(format_duration(12'500) == "12.50 us");
  REQUIRE(format_duration(1'234'567) == "1.235 ms");
  REQUIRE(format_duration(3'457'877'000) == "3.458 s");
  REQUIRE(format_duration(241'246) == "241.2 us");
}
