#include <catch2/catch.hpp>

#include "trace/core/clock_alignment.h"
#include "trace/core/trace_builder.h"

using namespace parascope;

namespace {

struct Rank {
  int32_t rank = -1;
  TimeNs offset = 0;
  std::string reason;
  TimeNs first_event = 0;  // on the trace clock (the offset already added, as the importers do)
  std::string name;
};

// One process per entry, each with one CPU slice at its first event.
Trace ranks(const std::vector<Rank>& rs) {
  TraceBuilder b;
  for (const Rank& r : rs) {
    Process p;
    p.rank = r.rank;
    p.pid = 100 + static_cast<int64_t>(b.trace().processes.size());
    p.name = r.name;
    p.clock_offset_ns = r.offset;
    p.clock_offset_reason = r.reason;
    const uint32_t proc = b.add_process(p);
    const uint32_t t = b.track({TrackKind::kCpuThread, proc, -1, 1}, "thread");
    b.add_slice(t, r.first_event, 10, b.intern("op"), SliceRef{});
  }
  return b.finish();
}

constexpr TimeNs kBase = 1'790'857'026'000'000'000;  // tp_serial_b1's baseTimeNanoseconds

}  // namespace

TEST_CASE("clock_alignments says what put each rank on the common timeline, relative to the lowest rank", "[core][clock]") {
  SECTION("Kineto ranks with their own baseTimeNanoseconds: shifts from rank 0, the base as a UTC date") {
    const Trace t = ranks({{1, kBase + 12'300, "baseTimeNanoseconds", kBase + 12'300 + 5'000},
                           {0, kBase, "baseTimeNanoseconds", kBase + 7'000}});
    const auto a = clock_alignments(t);
    REQUIRE(a.size() == 2);
    // rank 0 (process 1) is the reference, whatever the order of the files
    REQUIRE(a[0].reference == 1);
    REQUIRE(a[1].reference == 1);
    REQUIRE(a[1].label == "clock reference");
    REQUIRE(a[1].aligned);
    REQUIRE(a[1].basis == ClockBasis::kWallClock);
    REQUIRE(a[1].details == "file times + 2026-10-01 12:17:06 UTC (+1790857026000000000 ns); importer: baseTimeNanoseconds");
    // rank 1's base is 12.3 us after rank 0's
    REQUIRE(a[0].shift_ns == 12'300);
    REQUIRE(a[0].label == "clock +12.30 us vs rank 0");
    REQUIRE(a[0].details == "file times + 2026-10-01 12:17:06.0000123 UTC (+1790857026000012300 ns); importer: baseTimeNanoseconds");
    REQUIRE(a[0].text ==
            "clock aligned to rank 0, +12.30 us: file times + 2026-10-01 12:17:06.0000123 UTC (+1790857026000012300 ns); "
            "importer: baseTimeNanoseconds");
  }
  SECTION("the collector: epoch times, nothing added; the unranked launcher is aligned to rank 0 too") {
    const std::string reason = "collector: CUPTI clock = CLOCK_REALTIME ns, not shifted";
    const TimeNs start = 1'796'037'816'195'372'550;  // record_torch_nccl_2xh200's first event
    const Trace t = ranks({{-1, 0, reason, start, "torchrun"}, {0, 0, reason, start + 1'000}, {1, 0, reason, start + 2'000}});
    const auto a = clock_alignments(t);
    REQUIRE(a[0].reference == 1);
    REQUIRE(a[0].label == "clock +0 ns vs rank 0");
    REQUIRE(a[1].label == "clock reference");
    REQUIRE(a[1].text == "clock reference: file times as recorded, already wall-clock time (UTC); importer: " + reason);
    REQUIRE(a[2].label == "clock +0 ns vs rank 0");
    REQUIRE(a[2].basis == ClockBasis::kWallClock);
    REQUIRE(a[2].details == "file times as recorded, already wall-clock time (UTC); importer: " + reason);
  }
  SECTION("a sync event shifted rank 1 onto rank 0's own clock") {
    const Trace t = ranks({{0, 0, "sync event", 1'000}, {1, 1'234, "sync event", 2'234}});
    const auto a = clock_alignments(t);
    REQUIRE(a[0].label == "clock reference");
    REQUIRE(a[0].details == "file times as recorded, on the file's own clock; importer: sync event");
    REQUIRE(a[1].basis == ClockBasis::kShifted);
    REQUIRE(a[1].label == "clock +1.234 us vs rank 0");
    REQUIRE(a[1].details == "file times +1.234 us (+1234 ns); importer: sync event");
  }
  SECTION("two files on their own clocks are not aligned: neither is the reference of anything") {
    const Trace t = ranks({{0, 0, "none (file clock used as is)", 1'000}, {1, 0, "none (file clock used as is)", 500}});
    const auto a = clock_alignments(t);
    REQUIRE(a[0].label == "clock not aligned");
    REQUIRE(!a[0].aligned);
    REQUIRE(a[1].label == "clock not aligned");
    REQUIRE(a[1].text == "clock not aligned (own clock): file times as recorded, on the file's own clock; importer: none (file clock used as is)");
    REQUIRE(a[1].details == "file times as recorded, on the file's own clock; importer: none (file clock used as is)");
  }
  SECTION("a wall-clock rank beside a rank on its own clock: not aligned with it") {
    const Trace t = ranks({{0, 0, "none (file clock used as is)", 1'000}, {1, kBase, "baseTimeNanoseconds", kBase + 1'000}});
    const auto a = clock_alignments(t);
    REQUIRE(a[0].label == "clock not aligned");
    REQUIRE(a[1].label == "clock not aligned to rank 0");
    REQUIRE(a[1].text == "clock not aligned to rank 0: file times + 2026-10-01 12:17:06 UTC (+1790857026000000000 ns); importer: baseTimeNanoseconds");
    REQUIRE(a[1].shift_ns == kBase);
  }
  SECTION("one process: nothing to align, so no label; the details still say what was applied") {
    const Trace t = ranks({{0, kBase, "baseTimeNanoseconds", kBase + 3}});
    const auto a = clock_alignments(t);
    REQUIRE(a[0].label.empty());
    REQUIRE(a[0].text == "clock: file times + 2026-10-01 12:17:06 UTC (+1790857026000000000 ns); importer: baseTimeNanoseconds");
  }
  SECTION("negative shifts keep their sign; a process without events is placed by its offset") {
    TraceBuilder b;
    Process p0, p1;
    p0.rank = 0;
    p0.clock_offset_ns = kBase;
    p1.rank = 1;
    p1.clock_offset_ns = kBase - 2'500'000;
    b.add_process(p0);
    b.add_process(p1);
    const Trace t = b.finish();
    const auto a = clock_alignments(t);
    REQUIRE(a[1].basis == ClockBasis::kWallClock);
    REQUIRE(a[1].label == "clock -2.500 ms vs rank 0");
    REQUIRE(a[1].details == "file times + 2026-10-01 12:17:05.9975 UTC (+1790857025997500000 ns)");
  }
}
