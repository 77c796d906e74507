#include <catch2/catch.hpp>

#include <algorithm>

#include "test_paths.h"
#include "trace/core/analysis/link_stats.h"
#include "trace/core/summary.h"
#include "trace/io/load_trace.h"

using namespace parascope;

// One series: 10 B/s from 100 ns, 30 B/s from 200 ns, 0 from 400 ns.
static const std::vector<TimeNs> kTime = {100, 200, 400};
static const std::vector<double> kValue = {10, 30, 0};

TEST_CASE("Counter statistics are time-weighted over the covered part of a window", "[analysis][links]") {
  SECTION("the whole series") {
    // covered [100, 500) = 400 ns (nothing holds before 100); active [100, 400) = 300 ns
    // integral 10·100e-9 + 30·200e-9 = 7e-6; mean 7e-6 / 400e-9 = 17.5
    const CounterStats s = counter_stats(kTime, kValue, {0, 500});
    CHECK(s.covered_ns == 400);
    CHECK(s.active_ns == 300);
    CHECK(s.integral == Approx(7e-6));
    CHECK(s.mean == Approx(17.5));
    CHECK(s.peak == 30);
    CHECK(s.samples == 3);
    // by value: 0 for 100 ns, 10 for 100 ns, 30 for 200 ns. p50 needs 200 ns: reached at 10
    CHECK(s.p50 == 10);
    CHECK(s.p90 == 30);
    CHECK(s.p99 == 30);
  }
  SECTION("a window inside the series starts with the value holding at its start") {
    // [150, 200) at 10 and [200, 250) at 30: mean 20, p50 = 10 (50 ns of 100 at ≤ 10)
    const CounterStats s = counter_stats(kTime, kValue, {150, 250});
    CHECK(s.covered_ns == 100);
    CHECK(s.mean == Approx(20));
    CHECK(s.peak == 30);
    CHECK(s.p50 == 10);
    CHECK(s.samples == 1);
  }
  SECTION("a sample at the window's end holds for no time") {
    const CounterStats s = counter_stats(kTime, kValue, {100, 200});
    CHECK(s.peak == 10);
    CHECK(s.samples == 1);
    CHECK(s.covered_ns == 100);
  }
  SECTION("an empty window or series gives zeros") {
    CHECK(counter_stats(kTime, kValue, {300, 300}).covered_ns == 0);
    CHECK(counter_stats({}, {}, {0, 10}).mean == 0);
    CHECK(counter_stats(kTime, kValue, {0, 100}).covered_ns == 0);
  }
}

TEST_CASE("Min/max decimation keeps every value that held inside each bucket", "[analysis][links]") {
  SECTION("five buckets of 100 ns") {
    const auto b = decimate_min_max(kTime, kValue, {0, 500}, 5);
    REQUIRE(b.size() == 5);
    CHECK_FALSE(b[0].covered);  // [0, 100): before the first sample
    CHECK((b[1].covered && b[1].min == 10 && b[1].max == 10));
    CHECK((b[2].min == 30 && b[2].max == 30));
    CHECK((b[3].min == 30 && b[3].max == 30));
    CHECK((b[4].min == 0 && b[4].max == 0));
  }
  SECTION("buckets with uneven integer bounds: starts 0, 166, 333") {
    const auto b = decimate_min_max(kTime, kValue, {0, 500}, 3);
    CHECK((b[0].min == 10 && b[0].max == 10));  // [0,166): 10 from 100
    CHECK((b[1].min == 10 && b[1].max == 30));  // [166,333): 10 then 30
    CHECK((b[2].min == 0 && b[2].max == 30));   // [333,500): 30 then 0
  }
  SECTION("more buckets than nanoseconds") {
    const auto b = decimate_min_max(kTime, kValue, {198, 202}, 8);
    // len 4, 8 buckets: starts 198,198,199,199,200,200,201,201 — the empty ones stay uncovered
    CHECK((b[0].covered == false && b[1].min == 10));
    CHECK(b[4].covered == false);
    CHECK(b[5].min == 30);
  }
}

TEST_CASE("Measured NVLink counters of the collector sample", "[analysis][links][real]") {
  const Trace t = load_trace({test::sample_path("record_torch_nccl_2xh200")});
  const std::vector<LinkCounter> counters = link_counters(t, false);
  // two processes with one GPU each sampling nvlrx/nvltx: 4 measured kLink tracks
  REQUIRE(counters.size() == 4);
  const TraceSummary summary = summarize(t);
  const auto [start, end] = t.time_span();
  const auto stats = link_stats(counters, {start, end});
  for (const LinkCounter& c : counters) {
    CHECK(c.source == CounterSource::kMeasured);
    CHECK(c.link.dst_device == kNoDevice);
    // CUPTI's NV18 pair bandwidth 849 960 000 kB/s, halved per direction
    CHECK(c.link.capacity_bytes_per_s == Approx(424.98e9));
  }
  // `parascope-cli info`: rank 0 GPU 0 NVLink tx peak 117.5 GB/s, 2.577 GB in 2.589 s
  const auto tx0 = std::find_if(counters.begin(), counters.end(), [&](const LinkCounter& c) {
    return c.link.direction == LinkDirection::kTx && device_label(t, c.link.src_device) == "rank 0 GPU 0";
  });
  REQUIRE(tx0 != counters.end());
  CHECK(tx0->name == "rank 0 GPU 0 \xE2\x86\x92 fabric (NVLink tx)");
  const LinkStats& s = stats[static_cast<size_t>(tx0 - counters.begin())];
  CHECK(s.stats.integral == Approx(2.577e9).margin(0.0005e9));
  CHECK(s.stats.peak == Approx(117.5e9).margin(0.05e9));
  CHECK(s.peak_utilization() == Approx(117.5 / 424.98).margin(0.0002));
  // the samples end with a 0, so the integral equals info's (which stops at the last sample)
  double summary_integral = -1;
  for (const auto& p : summary.processes)
    for (const auto& d : p.devices)
      for (const auto& c : d.counters)
        if (c.track == static_cast<uint32_t>(tx0->track)) summary_integral = c.integral;
  CHECK(s.stats.integral == Approx(summary_integral));
  // the median 1 ms sample of a mostly idle run is far below the mean
  CHECK(s.stats.p50 < s.stats.mean);
  CHECK(s.stats.p99 <= s.stats.peak);

  SECTION("with estimates: the peer copies and collectives add estimated series") {
    const auto all = link_counters(t, true);
    CHECK(all.size() > counters.size());
    CHECK(all.back().source == CounterSource::kEstimated);
    CHECK(all.back().track == -1);
  }
}
