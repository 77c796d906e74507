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

TEST_CASE("format_utc writes an epoch time as a UTC date, the fraction only as long as it needs", "[core][time]") {
  // 1790857026 s after 1970-01-01 (tp_serial_b1's baseTimeNanoseconds): python's utcfromtimestamp
  // gives 2026-10-01 12:17:06
  REQUIRE(format_utc(1'790'857'026'000'000'000) == "2026-10-01 12:17:06 UTC");
  REQUIRE(format_utc(1'790'857'026'000'500'000) == "2026-10-01 12:17:06.0005 UTC");
  REQUIRE(format_utc(1'790'857'026'000'012'300) == "2026-10-01 12:17:06.0000123 UTC");
  REQUIRE(format_utc(1'796'037'816'195'372'550) == "2026-11-30 11:23:36.19537255 UTC");  // the collector sample's start
  REQUIRE(format_utc(951'782'400 * kNsPerS) == "2000-02-29 00:00:00 UTC");               // a leap day
  REQUIRE(format_utc(0) == "1970-01-01 00:00:00 UTC");
  REQUIRE(format_utc(-1) == "1969-12-31 23:59:59.999999999 UTC");
}
