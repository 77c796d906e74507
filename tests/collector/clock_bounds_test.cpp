#include <catch2/catch.hpp>

#include "trace/collector/clock_bounds.h"

using namespace parascope::collector;

// Numbers shaped like the 2026-11-30 H200 run: CUPTI − globaltimer ≈ −1 064 960 ns, host window
// 2 334 ns wide (±1 167 ns), spans found up to 409 ns before their kernel's start.
TEST_CASE("Host windows and kernel brackets are hard bounds and combine by intersection", "[collector][clock]") {
  const uint64_t g = 5'000'000'000;
  // host raised the flag at t0, saw g at t1 = t0 + 2334
  const ClockBounds host = host_window_bounds(g - 1'066'127, g - 1'066'127 + 2334, g);
  REQUIRE(host.valid);
  CHECK(host.lo == -1'066'127);
  CHECK(host.hi == -1'063'793);
  CHECK(host.width() == 2334);
  // a bracket kernel: first read 300 ns of GPU time after CUPTI's start, last read 500 ns before
  // its end, true offset −1 064 500: start = g0 + off − 300, end = g1 + off + 500
  const int64_t off = -1'064'500;
  const uint64_t g0 = 7'000'000'000, g1 = g0 + 40;
  const ClockBounds k = kernel_bracket_bounds(g0 + off - 300, g1 + off + 500, g0, g1);
  REQUIRE(k.valid);
  CHECK(k.lo == off - 300);
  CHECK(k.hi == off + 500);
  // a second kernel with a tighter head (120 ns) and a looser tail (900 ns) narrows the low side
  const ClockBounds k2 = kernel_bracket_bounds(g0 + off - 120, g1 + off + 900, g0, g1);
  const ClockBounds ks = intersect(k, k2);
  CHECK(ks.lo == off - 120);
  CHECK(ks.hi == off + 500);
  // with the host window [−1 066 127, −1 063 793]: [−1 064 620, −1 064 000], width 620 → ±310
  const ClockEstimate e = combine_clock_bounds(host, ks);
  CHECK(e.method == "host window ∩ kernel brackets");
  CHECK(e.offset_ns == -1'064'310);
  CHECK(e.uncertainty_ns == 310);
  CHECK(e.note.empty());
}

TEST_CASE("Disjoint clock bounds keep the kernel brackets and say by how much they disagree", "[collector][clock]") {
  const ClockBounds host{-2000, -1000, true};
  const ClockBounds brackets{-500, -100, true};
  const ClockEstimate e = combine_clock_bounds(host, brackets);
  CHECK(e.method == "kernel brackets");
  CHECK(e.offset_ns == -300);
  CHECK(e.uncertainty_ns == 200);
  CHECK(e.note.find("by 500 ns") != std::string::npos);
  // only one kind of measurement: that one; an inconsistent kernel (end − g_last < start − g_first)
  // gives no bounds at all
  CHECK(combine_clock_bounds(host, {}).method == "host window");
  CHECK(combine_clock_bounds(host, {}).offset_ns == -1500);
  CHECK_FALSE(kernel_bracket_bounds(1000, 1010, 0, 500).valid);
  CHECK_FALSE(intersect(host, brackets).valid);
}
