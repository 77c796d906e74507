#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "models/timeline_index.h"
#include "models/track_lod.h"
#include "trace/core/trace_builder.h"

using namespace parascope;
using namespace parascope::models;

TEST_CASE("LodGrid picks a power-of-two bucket and the level for a pixel width", "[app][lod]") {
  // 8000 ns holding 8 slices at one slice per bucket: 1000 ns wanted, rounded up to 1024;
  // 8000 / 1024 = 7.8 → 8 buckets; levels until one bucket holds all: 8, 4, 2, 1
  const LodGrid g = LodGrid::for_span(1'000, 9'000, 8, 1.0);
  REQUIRE(g.origin == 1'000);
  REQUIRE(g.bucket_ns == 1'024);
  REQUIRE(g.buckets0 == 8);
  REQUIRE(g.levels == 4);
  REQUIRE(g.buckets(1) == 4);
  REQUIRE(g.buckets(3) == 1);
  REQUIRE(g.level_for(1'023) == -1);  // a pixel narrower than a bucket: walk the slices
  REQUIRE(g.level_for(1'024) == 0);
  REQUIRE(g.level_for(4'095) == 1);
  REQUIRE(g.level_for(4'096) == 2);
  REQUIRE(g.level_for(1e12) == 3);  // never beyond the top level
}

TEST_CASE("CoveragePyramid holds the covered share and the dominant category per bucket", "[app][lod]") {
  LodGrid g;
  g.origin = 0;
  g.bucket_ns = 100;
  g.buckets0 = 4;
  g.levels = 3;
  CoveragePyramid::Builder b(g);
  b.add(0, 60, Category::kCompute);         // bucket 0: 60 ns compute
  b.add(60, 190, Category::kCommunication); // bucket 0: 40, bucket 1: 100, bucket 2: 50 ns comm
  const CoveragePyramid p = b.finish();
  REQUIRE(p.levels() == 3);
  // level 0: shares are quantized to 31ths, rounded up so any activity stays visible
  REQUIRE(p.cell(0, 0).share == 1.0f);
  REQUIRE(p.cell(0, 0).category == Category::kCompute);  // 60 ns compute vs 40 ns comm
  REQUIRE(p.cell(0, 1).share == 1.0f);
  REQUIRE(p.cell(0, 1).category == Category::kCommunication);
  REQUIRE(p.cell(0, 2).share == Approx(16.0 / 31));  // 50 / 100 → ceil(15.5) = 16
  REQUIRE(p.cell(0, 3).share == 0.0f);
  // level 1 (200 ns): 60 compute + 140 comm → full, comm; then 50 / 200 → ceil(7.75) = 8
  REQUIRE(p.cell(1, 0).share == 1.0f);
  REQUIRE(p.cell(1, 0).category == Category::kCommunication);
  REQUIRE(p.cell(1, 1).share == Approx(8.0 / 31));
  // level 2 (400 ns): 250 / 400 = 0.625 → ceil(19.4) = 20
  REQUIRE(p.cell(2, 0).share == Approx(20.0 / 31));

  SECTION("sampling pixels that straddle buckets weights each bucket by its overlap") {
    Coverage px[2];
    // pixel [40, 140): 60 ns of bucket 0 (full) + 40 ns of bucket 1 (full); pixel [140, 240):
    // 60 ns of bucket 1 (full) + 40 ns of bucket 2 (16/31)
    p.sample(0, 40.0, 100.0, 2, px);
    REQUIRE(px[0].share == Approx(1.0));
    REQUIRE(px[0].category == Category::kCompute);  // bucket 0 contributes the larger part
    REQUIRE(px[1].share == Approx((60 + 40 * 16.0 / 31) / 100));
    REQUIRE(px[1].category == Category::kCommunication);
  }
  SECTION("pixels outside the grid are empty") {
    Coverage px[1];
    p.sample(0, 1'000.0, 100.0, 1, px);
    REQUIRE(px[0].share == 0.0f);
  }
}

TEST_CASE("CoveragePyramid::Builder takes its share from covered spans when it is given them", "[app][lod]") {
  LodGrid g;
  g.origin = 0;
  g.bucket_ns = 100;
  g.buckets0 = 2;
  g.levels = 2;
  CoveragePyramid::Builder b(g);
  // two streams overlapping on [0, 50): 100 ns of work in 50 ns of time, then 30 ns of copies
  b.add(0, 50, Category::kCompute);
  b.add(0, 50, Category::kCommunication);
  b.add(120, 30, Category::kMemory);
  b.add_covered(0, 50);
  b.add_covered(120, 30);
  const CoveragePyramid p = b.finish();
  // bucket 0: 50 / 100 covered (not 100 / 100: the overlap counts once), compute wins the tie
  REQUIRE(p.cell(0, 0).share == Approx(16.0 / 31));  // ceil(15.5)
  REQUIRE(p.cell(0, 0).category == Category::kCompute);
  REQUIRE(p.cell(0, 1).share == Approx(10.0 / 31));  // 30 / 100 → ceil(9.3)
  REQUIRE(p.cell(0, 1).category == Category::kMemory);
  // level 1 (200 ns): 80 / 200 → ceil(12.4) = 13
  REQUIRE(p.cell(1, 0).share == Approx(13.0 / 31));
}

TEST_CASE("EndIndex finds where slices that may still be running start", "[app][lod]") {
  // 100 slices [10 i, 10 i + 5); blocks of 32
  std::vector<TimeNs> start(100), end(100);
  for (int i = 0; i < 100; ++i) {
    start[static_cast<size_t>(i)] = 10 * i;
    end[static_cast<size_t>(i)] = 10 * i + 5;
  }
  EndIndex e;
  e.build(100, [&](size_t i) { return end[i]; });
  REQUIRE(e.first_ending_at_or_after(0) == 0);
  // block 0 ends by 315, block 1 by 635: t = 700 starts the walk at block 2 (slice 64)
  REQUIRE(e.first_ending_at_or_after(700) == 64);
  REQUIRE(e.first_ending_at_or_after(10'000) == 128);  // past the end: nothing to walk
  SECTION("a long slice keeps its block in the walk") {
    end[40] = 2'000;  // slice 40 runs to 2000: block 1 may still be running at 700
    e.build(100, [&](size_t i) { return end[i]; });
    REQUIRE(e.first_ending_at_or_after(700) == 32);
  }
}

namespace {

// A stream of back-to-back kernels, a nested CPU thread, and an SM lane whose compute spans
// overlap now and then (every 97th runs 25 us) and whose communicate role is sparse.
Trace lod_trace() {
  TraceBuilder b;
  Process p;
  p.rank = 0;
  const uint32_t proc = b.add_process(p);
  Device d;
  d.process = proc;
  d.ordinal = 0;
  const uint32_t dev = b.add_device(d);
  const uint32_t stream = b.track({TrackKind::kGpuStream, proc, static_cast<int32_t>(dev), 7}, "stream 7");
  const uint32_t sm = b.track({TrackKind::kSmLane, proc, static_cast<int32_t>(dev), 0}, "SM 0");
  const uint32_t cpu = b.track({TrackKind::kCpuThread, proc, -1, 1}, "thread 1");
  const StringId k = b.intern("gemm");
  for (int i = 0; i < 2'000; ++i) {
    const TimeNs s = i * 1'000;
    b.add_slice(stream, s, 400 + (i * 37) % 500, k, b.add_kernel(KernelInfo{}));
    SmSpanInfo span;
    span.role = i % 10 == 0 ? SmRole::kCommunicate : SmRole::kCompute;
    b.add_slice(sm, s, i % 97 == 0 ? 25'000 : 900, b.intern(i % 10 == 0 ? "put" : "tile"), b.add_sm_span(span));
  }
  for (int step = 0; step < 10; ++step) {  // 10 steps of 200 us, each with 50 ops of 3 us
    b.add_slice(cpu, step * 200'000, 199'000, b.intern("step"), b.add_cpu_op(CpuOpInfo{}));
    for (int op = 0; op < 50; ++op)
      b.add_slice(cpu, step * 200'000 + op * 3'900, 3'000, b.intern("op"), b.add_cpu_op(CpuOpInfo{}));
  }
  return b.finish();
}

std::set<uint32_t> brute(const Trace& t, uint32_t track, TimeNs t0, TimeNs t1, int sub) {
  std::set<uint32_t> out;
  const auto& s = t.tracks[track].slices;
  for (uint32_t i = 0; i < s.size(); ++i)
    if (s.start[i] <= t1 && s.start[i] + s.dur[i] >= t0 && (sub < 0 || slice_sub_row(t, t.tracks[track], i) == sub))
      out.insert(i);
  return out;
}

}  // namespace

TEST_CASE("TrackLod splits tracks into lanes and visits exactly the slices in a window", "[app][lod]") {
  const Trace t = lod_trace();
  const SliceClassifier classify(t);
  const uint32_t stream = 0, sm = 1, cpu = 2;
  const TrackLod ls(t, stream, classify), lsm(t, sm, classify), lc(t, cpu, classify);

  // the stream is one lane walked whole; 2000 slices over [0, 1 999 863) at one slice per bucket:
  // 1000 ns → 1024 ns buckets
  REQUIRE(ls.sub_rows() == 1);
  REQUIRE(!ls.lane(0).has_rows);
  REQUIRE(ls.lane(0).pyramid.grid().bucket_ns == 1'024);
  // the SM lane: 1800 compute spans are dense (walked with the track), 200 communicate spans
  // (< a quarter) keep their own rows
  REQUIRE(lsm.sub_rows() == kSmRoleCount);
  REQUIRE(lsm.lane(0).count == 1'800);
  REQUIRE(!lsm.lane(0).has_rows);
  REQUIRE(lsm.lane(1).count == 200);
  REQUIRE(lsm.lane(1).has_rows);
  // the CPU thread nests two deep: each depth is a lane with its rows
  REQUIRE(lc.sub_rows() == 2);
  REQUIRE(lc.lane(0).rows.size() == 10);
  REQUIRE(lc.lane(1).rows.size() == 500);

  for (TimeNs t0 : {TimeNs{0}, TimeNs{1'234'567}, TimeNs{1'999'000}}) {
    for (TimeNs len : {TimeNs{1}, TimeNs{5'000}, TimeNs{300'000}}) {
      const TimeNs t1 = t0 + len;
      for (auto [track, lod] : {std::pair{stream, &ls}, std::pair{sm, &lsm}, std::pair{cpu, &lc}}) {
        std::set<uint32_t> seen;
        lod->visit(t, track, t0, t1, ~0u, [&](uint32_t i, int sub) {
          REQUIRE(sub == slice_sub_row(t, t.tracks[track], i));
          REQUIRE(seen.insert(i).second);
          return true;
        });
        REQUIRE(seen == brute(t, track, t0, t1, -1));
        for (int sub = 0; sub < lod->sub_rows(); ++sub) {
          std::set<uint32_t> one;
          lod->visit(t, track, t0, t1, 1u << sub, [&](uint32_t i, int) { return one.insert(i).second; });
          REQUIRE(one == brute(t, track, t0, t1, sub));
        }
      }
    }
  }
  SECTION("wide lists hold the slices at least four buckets long, per level") {
    const LodLane& lane = lsm.lane(0);
    const auto& g = lane.pyramid.grid();
    const auto& s = t.tracks[sm].slices;
    for (int level = 0; level < g.levels; ++level) {
      size_t expect = 0;
      for (size_t i = 0; i < s.size(); ++i)
        expect += slice_sub_row(t, t.tracks[sm], i) == 0 && s.dur[i] >= kWideBuckets * g.width(level);
      REQUIRE(lane.wide[static_cast<size_t>(level)].size() == expect);
    }
    // 1800 compute spans over [1000, 1 999 900): 1110 ns → 2048 ns buckets; the 18 compute spans
    // of 25 us (i % 97 == 0, less i = 0, 970 and 1940, which communicate) are ≥ 4 × 2048 and
    // 4 × 4096 ns, not 4 × 8192
    REQUIRE(g.bucket_ns == 2'048);
    REQUIRE(lane.wide[0].size() == 18);
    REQUIRE(lane.wide[1].size() == 18);
    REQUIRE(lane.wide[2].empty());
  }
}

TEST_CASE("TimelineIndex groups SM lanes for the heat strip and keeps counter maxima", "[app][lod]") {
  TraceBuilder b;
  const uint32_t proc = b.add_process(Process{});
  Device d;
  d.process = proc;
  const uint32_t dev = b.add_device(d);
  // 4 SMs: SM s busy (compute) for the first (s + 1) quarters of [0, 4000)
  for (int s = 0; s < 4; ++s) {
    const uint32_t t = b.track({TrackKind::kSmLane, proc, static_cast<int32_t>(dev), s}, "SM");
    SmSpanInfo span;
    span.role = SmRole::kCompute;
    b.add_slice(t, 0, 1'000 * (s + 1), b.intern("tile"), b.add_sm_span(span));
  }
  const uint32_t c = b.track({TrackKind::kCounter, proc, -1, 1}, "bytes");
  for (int i = 0; i < 1'000; ++i) b.add_counter_sample(c, i * 10, i == 637 ? 99.0 : i % 7);
  const Trace t = b.finish();
  const TimelineIndex index(t);
  REQUIRE(index.sm_lanes(0).size() == 4);
  const LodGrid& g = index.sm_grid(0);
  // the top level of a pair holds SMs 0 and 1 and of the four holds all: over [0, 4000) they
  // are busy (1 + 2) / 8 and (1 + 2 + 3 + 4) / 16 of the time
  const CoveragePyramid* pair = index.sm_group(0, 2, 0);
  const CoveragePyramid* all = index.sm_group(0, 4, 0);
  REQUIRE(pair != nullptr);
  REQUIRE(all != nullptr);
  REQUIRE(index.sm_group(0, 8, 0) == nullptr);
  // averages of quantized cells: the top level of one lane covers its share exactly in 31ths
  const int top = g.levels - 1;
  const double span_ns = static_cast<double>(g.width(top));
  auto q = [](double share) { return std::ceil(share * 31) / 31; };
  REQUIRE(pair->cell(top, 0).share == Approx(q((q(1'000 / span_ns) + q(2'000 / span_ns)) / 2)).margin(1e-6));
  REQUIRE(all->cell(top, 0).share ==
          Approx(q((q((q(1'000 / span_ns) + q(2'000 / span_ns)) / 2) + q((q(3'000 / span_ns) + q(4'000 / span_ns)) / 2)) / 2)).margin(1e-6));
  REQUIRE(all->cell(top, 0).category == Category::kCompute);

  SECTION("counter maxima over any index range") {
    const CounterLod& cl = index.counter(c);
    REQUIRE(cl.max() == 99.0);
    const auto& col = t.tracks[c].counter;
    REQUIRE(cl.max_in(col, 0, 637) == 6.0);
    REQUIRE(cl.max_in(col, 600, 700) == 99.0);
    REQUIRE(cl.max_in(col, 638, 1'000) == 6.0);
    REQUIRE(cl.max_in(col, 637, 638) == 99.0);
    REQUIRE(cl.max_in(col, 5, 5) == 0.0);
  }
}
