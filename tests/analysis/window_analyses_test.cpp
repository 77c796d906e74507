#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <string>

#include "analysis/example_trace.h"
#include "trace/core/analysis/overlap.h"
#include "trace/core/analysis/range_summary.h"
#include "trace/core/analysis/window_activity.h"
#include "trace/core/slice_search.h"
#include "trace/core/trace_builder.h"

using namespace parascope;

// Expected values are read off the timeline drawn in example_trace.h.

TEST_CASE("Device activity inside a window is clipped to it", "[analysis][window]") {
  const auto ex = test::make_example_trace();
  const SliceClassifier c(ex.trace);
  // [100, 260): gemm [0, 100) ends at the window's start (out); gemm [150, 250) in; the sync
  // [250, 300) clipped to [250, 260); the all-reduce [50, 200) clipped to [100, 200)
  const DeviceActivity a = device_activity_in(ex.trace, c, 0, {100, 260});
  REQUIRE(a.sets.compute.intervals() == std::vector<Interval>{{150, 250}});
  REQUIRE(a.sets.communication.intervals() == std::vector<Interval>{{100, 200}});
  REQUIRE(a.sets.sync.total() == 10);
  REQUIRE(a.sets.memory.empty());  // the copy [320, 340) is outside
  REQUIRE(a.first == 100);
  REQUIRE(a.last == 260);
  REQUIRE(a.streams.size() == 2);
  REQUIRE(a.sm_lanes.size() == 1);
  REQUIRE(a.sm_lanes[0].sets.compute.empty());  // SM 3's spans end by 60
  // the whole-trace overlap analysis runs on it unchanged: 50 of the 100 ns of communication
  // ([150, 200)) ran under compute, so 50 ns were exposed in this window
  const auto ov = compute_overlap(std::vector<DeviceActivity>{a});
  REQUIRE(ov[0].totals.overlap_ns == 50);
  REQUIRE(ov[0].totals.communication_ns - ov[0].totals.overlap_ns == 50);
  REQUIRE(ov[0].streams[1].stream == 17);
  REQUIRE(ov[0].streams[1].comm_under_compute_ns == 50);
}

TEST_CASE("SM window shares split each SM's time by probe role", "[analysis][window]") {
  const auto ex = test::make_example_trace();
  // SM 3: compute [0, 40), communicate [20, 60)
  auto s = sm_window_shares(ex.trace, 0, {10, 50});
  REQUIRE(s.size() == 1);
  REQUIRE(s[0].sm == 3);
  REQUIRE(s[0].compute_ns == 30);      // [10, 40)
  REQUIRE(s[0].communicate_ns == 30);  // [20, 50)
  REQUIRE(s[0].wait_ns == 0);
  REQUIRE(s[0].idle_ns == 0);          // something runs all through [10, 50)
  s = sm_window_shares(ex.trace, 0, {0, 100});
  REQUIRE(s[0].compute_ns == 40);
  REQUIRE(s[0].communicate_ns == 40);
  REQUIRE(s[0].idle_ns == 40);         // [60, 100)
  REQUIRE(sm_window_shares(ex.trace, 1, {0, 100}).empty());  // device 1 has no SM lanes
}

TEST_CASE("A range summary counts what is inside the range", "[analysis][window]") {
  const auto ex = test::make_example_trace();
  const SliceClassifier c(ex.trace);
  // [120, 1210): gemm [150, 250) 100 ns, sync 50, copy 20, all-reduce [120, 200) 80,
  // relu 10 + 20 + 10 (the third one is cut at 1210); SM 3's spans end at 60
  const RangeSummary r = summarize_range(ex.trace, c, {120, 1'210});
  REQUIRE(r.slices == 7);
  REQUIRE(r.tracks == 3);
  REQUIRE(r.count[static_cast<size_t>(Category::kCompute)] == 4);
  REQUIRE(r.time_ns[static_cast<size_t>(Category::kCompute)] == 140);
  REQUIRE(r.time_ns[static_cast<size_t>(Category::kCommunication)] == 80);
  REQUIRE(r.time_ns[static_cast<size_t>(Category::kSync)] == 50);
  REQUIRE(r.time_ns[static_cast<size_t>(Category::kMemory)] == 20);
  REQUIRE(r.top_names.size() == 5);
  REQUIRE(ex.trace.str(r.top_names[0].name) == "gemm");
  REQUIRE(ex.trace.str(r.top_names[1].name) == "fused_allreduce");
  REQUIRE(r.top_names[1].category == Category::kCommunication);
  REQUIRE(ex.trace.str(r.top_names[3].name) == "relu");
  REQUIRE(r.top_names[3].count == 3);
  REQUIRE(r.top_names[3].time_ns == 40);
  SECTION("limited to some tracks") {
    const RangeSummary only = summarize_range(ex.trace, c, {120, 1'210}, {ex.s17});
    REQUIRE(only.slices == 1);
    REQUIRE(only.time_ns[static_cast<size_t>(Category::kCommunication)] == 80);
  }
  SECTION("the whole trace") {
    const RangeSummary all = summarize_range(ex.trace, c, {0, 2'000});
    REQUIRE(all.slices == 13);
    // gemm 100 + 100, mma 40, relu 150, gemm on device 1 10
    REQUIRE(all.time_ns[static_cast<size_t>(Category::kCompute)] == 400);
    REQUIRE(all.time_ns[static_cast<size_t>(Category::kCommunication)] == 190);  // 150 + put 40
  }
}

TEST_CASE("SliceSearch steps through matches in time order", "[analysis][search]") {
  const auto ex = test::make_example_trace();
  const Trace& t = ex.trace;
  // tracks: 0 stream 7, 1 stream 17, 2 SM 3, 3 device 1's stream 7 (relu ×5 then gemm at 1500)
  const SliceSearch gemm(t, "GEMM", MatchMode::kSubstring);
  REQUIRE(gemm.error().empty());
  REQUIRE(gemm.count() == 3);
  REQUIRE(gemm.next({}) == EventRef{0, 0});
  REQUIRE(gemm.next({0, 0}) == EventRef{0, 1});
  REQUIRE(gemm.next({0, 1}) == EventRef{3, 5});
  REQUIRE(!gemm.next({3, 5}).valid());
  REQUIRE(gemm.previous({}) == EventRef{3, 5});
  REQUIRE(gemm.previous({0, 1}) == EventRef{0, 0});
  REQUIRE(!gemm.previous({0, 0}).valid());
  REQUIRE(gemm.next({2, 0}) == EventRef{0, 1});  // from a non-match (mma at 0 on track 2)

  SECTION("equal starts are ordered by track") {
    const SliceSearch s(t, "^(gemm|mma)$", MatchMode::kRegex);
    REQUIRE(s.count() == 4);
    REQUIRE(s.next({}) == EventRef{0, 0});
    REQUIRE(s.next({0, 0}) == EventRef{2, 0});
    REQUIRE(s.next({2, 0}) == EventRef{0, 1});
    REQUIRE(s.previous({0, 1}) == EventRef{2, 0});
  }
  SECTION("exact names, regular expressions and their errors") {
    REQUIRE(SliceSearch(t, "gemm", MatchMode::kExact).count() == 3);
    REQUIRE(SliceSearch(t, "gem", MatchMode::kExact).count() == 0);
    const SliceSearch relu(t, "relu|MMA", MatchMode::kRegex);
    REQUIRE(relu.count() == 6);
    REQUIRE(relu.first_at_or_after(1'150) == EventRef{3, 2});
    const SliceSearch bad(t, "([", MatchMode::kRegex);
    REQUIRE(!bad.error().empty());
    REQUIRE(bad.count() == 0);
    REQUIRE(!bad.next({}).valid());
  }
}

namespace {

constexpr TimeNs kFar = TimeNs{1} << 62;  // readers accept times within +-2^62 ns

// Damaged input: a kernel "gemm" [-2^62, 2^62 - 1) (duration INT64_MAX) on each of these streams
// of one device.
Trace damaged_gemm_trace(std::initializer_list<int64_t> streams) {
  TraceBuilder b;
  Process p;
  p.rank = 0;
  const uint32_t pi = b.add_process(p);
  Device d;
  d.process = pi;
  d.ordinal = 0;
  const auto di = static_cast<int32_t>(b.add_device(d));
  for (int64_t stream : streams) {
    const uint32_t s = b.track({TrackKind::kGpuStream, pi, di, stream}, "stream " + std::to_string(stream));
    b.add_slice(s, -kFar, std::numeric_limits<TimeNs>::max(), b.intern("gemm"), b.add_kernel({}));
  }
  return b.finish();
}

}  // namespace

TEST_CASE("Range sums of damaged input with 2^62 ns slices hold at the int64 limit", "[analysis][window]") {
  // So a slice can last up to 2^63 ns. Two kernels on two streams, each [-2^62, 2^62 - 1): each
  // lies 2^63 - 1 ns inside the range [-2^62, 2^62); their sum (2^64 - 2) is past int64 and must
  // stay at INT64_MAX, the per-name time as well.
  const Trace t = damaged_gemm_trace({7, 8});
  const SliceClassifier c(t);
  const RangeSummary r = summarize_range(t, c, {-kFar, kFar});
  REQUIRE(r.slices == 2);
  CHECK(r.time_ns[static_cast<size_t>(Category::kCompute)] == INT64_MAX);
  REQUIRE(r.top_names.size() == 1);
  CHECK(r.top_names[0].time_ns == INT64_MAX);
}

TEST_CASE("Window activity over a 2^63 ns slice of damaged input neither overflows nor loses it", "[analysis][window]") {
  // One kernel [-2^62, 2^62 - 1) (duration INT64_MAX): the window [0, 100) lies inside it, so the
  // whole window is compute; looking back by the longest slice from 0 reaches -2^63 + 1, and from
  // -2^62 it would pass int64 (UBSan) without the saturation.
  const Trace t = damaged_gemm_trace({7});
  const SliceClassifier c(t);
  CHECK(device_activity_in(t, c, 0, {0, 100}).sets.compute.intervals() == std::vector<Interval>{{0, 100}});
  CHECK(device_activity_in(t, c, 0, {-kFar, 0}).sets.compute.intervals() == std::vector<Interval>{{-kFar, 0}});
}
