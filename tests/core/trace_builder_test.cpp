#include <catch2/catch.hpp>

#include "trace/core/trace_builder.h"

using namespace parascope;

TEST_CASE("TraceBuilder sorts tracks, nests depths and remaps refs", "[core][builder]") {
  TraceBuilder b;
  const uint32_t p = b.add_process(Process{});
  const uint32_t t = b.track(TrackKey{TrackKind::kCpuThread, p, -1, 42}, "thread 42");
  REQUIRE(b.track(TrackKey{TrackKind::kCpuThread, p, -1, 42}) == t);  // same key, same track
  // Added out of order: child (20..30) before parent (10..50), sibling 60..70, grandchild 22..25.
  const EventRef child = b.add_slice(t, 20, 10, b.intern("child"), SliceRef());
  const EventRef sibling = b.add_slice(t, 60, 10, b.intern("sibling"), SliceRef());
  const EventRef parent = b.add_slice(t, 10, 40, b.intern("parent"), SliceRef());
  const EventRef grand = b.add_slice(t, 22, 3, b.intern("grand"), SliceRef());
  b.add_flow(child, sibling, FlowKind::kDependency);
  CollectiveInfo c;
  c.kernel = grand;
  b.add_collective(c);
  const Trace tr = b.finish();

  const auto& s = tr.tracks[t].slices;
  REQUIRE(s.size() == 4);
  // sorted by start: parent(10) child(20) grand(22) sibling(60)
  REQUIRE(tr.str(s.name[0]) == "parent");
  REQUIRE(tr.str(s.name[1]) == "child");
  REQUIRE(tr.str(s.name[2]) == "grand");
  REQUIRE(tr.str(s.name[3]) == "sibling");
  // depths: parent 0, child 1 (inside 10..50), grand 2 (inside 20..30), sibling 0
  REQUIRE(s.depth_of(0) == 0);
  REQUIRE(s.depth_of(1) == 1);
  REQUIRE(s.depth_of(2) == 2);
  REQUIRE(s.depth_of(3) == 0);
  REQUIRE(tr.tracks[t].max_depth == 2);
  // refs handed out before finish() now point at the sorted rows
  REQUIRE(tr.flows[0].from == EventRef{t, 1});
  REQUIRE(tr.flows[0].to == EventRef{t, 3});
  REQUIRE(tr.collectives[0].kernel == EventRef{t, 2});
  (void)parent;
  REQUIRE(tr.time_span() == std::pair<TimeNs, TimeNs>{10, 70});
}

TEST_CASE("TraceBuilder: a large trace's tracks are finished on several threads with the same result", "[core][builder]") {
  // Over 2^20 rows finish() shares the tracks among threads (trace_builder.cpp, finish_tracks).
  // Each track gets slices in a scrambled order with nesting; the result must be what one thread
  // gives: every track sorted with correct depths, refs remapped to the sorted rows, and the
  // too-deep warnings in track order.
  TraceBuilder b;
  const uint32_t p = b.add_process(Process{});
  constexpr int kTracks = 5;
  constexpr uint32_t kPerTrack = 240'000;  // 1.2 M rows in all
  std::vector<uint32_t> tracks;
  std::vector<EventRef> probes;  // one per track: slice 7
  for (int k = 0; k < kTracks; ++k) {
    const uint32_t t = b.track(TrackKey{TrackKind::kCpuThread, p, -1, k}, "t" + std::to_string(k));
    tracks.push_back(t);
    // slice j (added in a scrambled order): even j a parent at 1000 j lasting 500 ns, odd j its
    // child at 1000 (j - 1) + 1 lasting 10 ns; sorted, slice j is row j at depth j % 2
    for (uint32_t i = 0; i < kPerTrack; ++i) {
      const uint32_t j = static_cast<uint32_t>((uint64_t{i} * 7919u) % kPerTrack);  // 7919: prime, so a permutation
      const TimeNs start = j % 2 ? 1000 * static_cast<TimeNs>(j - 1) + 1 : 1000 * static_cast<TimeNs>(j);
      const EventRef r = b.add_slice(t, start, j % 2 ? 10 : 500, b.intern(j % 2 ? "child" : "parent"), SliceRef());
      if (j == 7) probes.push_back(r);
    }
  }
  // track 3 also nests 300 levels deep at its end: 45 slices past level 255
  for (int d = 0; d < 300; ++d) b.add_slice(tracks[3], 1'000'000'000 + d, 1000 - d, b.intern("deep"), SliceRef());
  for (int k = 0; k < kTracks; ++k) b.add_flow(probes[k], probes[(k + 1) % kTracks], FlowKind::kDependency);
  const Trace tr = b.finish();

  for (int k = 0; k < kTracks; ++k) {
    const auto& s = tr.tracks[tracks[k]].slices;
    REQUIRE(s.size() == kPerTrack + (k == 3 ? 300 : 0));
    bool sorted = true, depths = true;
    for (uint32_t i = 0; i < kPerTrack; ++i) {
      sorted &= i == 0 || s.start[i - 1] < s.start[i];
      depths &= s.depth_of(i) == i % 2;
    }
    REQUIRE(sorted);
    REQUIRE(depths);
    // the probe, slice 7 (a child starting at 6001), is row 7 now, and the flows say so
    REQUIRE(s.start[7] == 6001);
    REQUIRE(tr.flows[k].from == EventRef{tracks[k], 7});
    REQUIRE(tr.flows[(k + kTracks - 1) % kTracks].to == EventRef{tracks[k], 7});
  }
  REQUIRE(tr.tracks[tracks[3]].max_depth == 255);
  REQUIRE(tr.warnings == std::vector<std::string>{"track nests deeper than 255 levels; 44 slices drawn at level 255"});
}

TEST_CASE("TraceBuilder: equal starts put the longer slice first, negative durations are clamped", "[core][builder]") {
  TraceBuilder b;
  const uint32_t p = b.add_process(Process{});
  const uint32_t t = b.track(TrackKey{TrackKind::kGpuStream, p, 0, 7}, "stream 7");
  b.add_slice(t, 100, 5, b.intern("short"), SliceRef());
  b.add_slice(t, 100, 50, b.intern("long"), SliceRef());
  b.add_slice(t, 200, -3, b.intern("bad"), SliceRef());
  const Trace tr = b.finish();
  const auto& s = tr.tracks[t].slices;
  REQUIRE(tr.str(s.name[0]) == "long");
  REQUIRE(s.depth_of(1) == 1);  // short nests in long
  REQUIRE(s.dur[2] == 0);
  REQUIRE(tr.warnings.size() == 1);
  REQUIRE(tr.warnings[0] == "1 slices had a negative duration and were clamped to 0");
}

TEST_CASE("TraceBuilder: warnings and notes are two lists, each in the order given", "[core][builder][notes]") {
  // a warning: something may be wrong with the data; a note: how the trace was made
  TraceBuilder b;
  b.warn("r0.pstrace: 2 NVTX ranges have no end");
  b.note("r0.pstrace: collector: 237 CUPTI records, 0 dropped by CUPTI, 0 buffer requests refused (exit)");
  b.note("r0.pstrace: nvlink sampling: PM sampling on device 0 (GH100) every 1000 us: nvlrx__bytes.sum");
  b.add_slice(b.track(TrackKey{TrackKind::kGpuStream, b.add_process(Process{}), 0, 7}, "stream 7"), 10, -1,
              b.intern("bad"), SliceRef());
  const Trace tr = b.finish();
  // finish()'s own findings are warnings, after the ones given
  REQUIRE(tr.warnings == std::vector<std::string>{"r0.pstrace: 2 NVTX ranges have no end",
                                                  "1 slices had a negative duration and were clamped to 0"});
  REQUIRE(tr.notes.size() == 2);
  CHECK(tr.notes[0].starts_with("r0.pstrace: collector: 237 CUPTI records"));
  CHECK(tr.notes[1].starts_with("r0.pstrace: nvlink sampling: PM sampling on device 0"));
}

TEST_CASE("Detail records are typed tables and launch configs are interned", "[core][builder]") {
  TraceBuilder b;
  const uint32_t p = b.add_process(Process{});
  const uint32_t t = b.track(TrackKey{TrackKind::kGpuStream, p, 0, 7}, "stream 7");
  LaunchConfig lc;
  lc.grid[0] = 24;
  lc.block[0] = 544;
  KernelInfo k;
  k.launch_config = b.add_launch_config(lc);
  REQUIRE(b.add_launch_config(lc) == k.launch_config);
  k.correlation = 240;
  k.graph_node_id = U64Split(0x1'0000'0005ull);
  const SliceRef kr = b.add_kernel(k);
  REQUIRE(kr.kind() == SliceKind::kKernel);
  REQUIRE(kr.index() == 0);
  MemcpyInfo m;
  m.bytes = U64Split(4ull << 30);
  const SliceRef mr = b.add_memcpy(m);
  b.add_slice(t, 0, 10, b.intern("k"), kr);
  b.add_slice(t, 20, 10, b.intern("m"), mr);
  const Trace tr = b.finish();
  REQUIRE(tr.kernel(tr.tracks[t].slices.ref[0]).graph_node_id.get() == 0x1'0000'0005ull);
  REQUIRE(tr.launch_config(tr.kernels[0])->block[0] == 544);
  REQUIRE(tr.memcpy(tr.tracks[t].slices.ref[1]).bytes.get() == (4ull << 30));
  REQUIRE(tr.launch_configs.size() == 1);
}

TEST_CASE("Memory per kernel event stays within 48 bytes (names excluded)", "[core][memory]") {
  // 24 bytes of columns (start, dur, name, ref) + 20 of KernelInfo + 4 of args = 48
  REQUIRE(sizeof(TimeNs) * 2 + sizeof(StringId) + sizeof(SliceRef) + sizeof(KernelInfo) + sizeof(uint32_t) <= 48);
  REQUIRE(sizeof(TimeNs) * 2 + sizeof(StringId) + sizeof(SliceRef) + sizeof(MemcpyInfo) + sizeof(uint32_t) <= 48);
  TraceBuilder b;
  const uint32_t p = b.add_process(Process{});
  const uint32_t t = b.track(TrackKey{TrackKind::kGpuStream, p, 0, 7}, "s");
  const StringId name = b.intern("gemm");
  const Arg arg[] = {{b.intern("queued"), ArgValue::of_int(0)}};
  constexpr int kN = 100000;
  for (int i = 0; i < kN; ++i) {
    KernelInfo k;
    k.correlation = static_cast<uint32_t>(i);
    b.add_slice(t, i * 10, 5, name, b.add_kernel(k), arg);
  }
  Trace tr = b.finish();
  for (auto& tk : tr.tracks) {  // measure without vector growth slack
    tk.slices.start.shrink_to_fit();
    tk.slices.dur.shrink_to_fit();
    tk.slices.name.shrink_to_fit();
    tk.slices.ref.shrink_to_fit();
    tk.slices.args.shrink_to_fit();
  }
  tr.kernels.shrink_to_fit();
  const size_t strings = tr.strings.memory_bytes() + tr.args.memory_bytes();
  const double per_event = static_cast<double>(tr.memory_bytes() - strings - tr.tracks.capacity() * sizeof(Track)) / kN;
  REQUIRE(per_event <= 48.0);
}

TEST_CASE("append_slices gives the same columns as adding row by row", "[core][builder]") {
  // the same 6 slices on two tracks: row by row on one, as two column runs on the other
  const TimeNs start[] = {100, 50, 50, 300, 10, 400};
  const TimeNs dur[] = {20, -5, 80, 10, 1000, 0};
  const SliceRef ref[] = {SliceRef(SliceKind::kKernel, 0), SliceRef(), SliceRef(SliceKind::kCpuOp, 3), SliceRef(),
                          SliceRef(), SliceRef(SliceKind::kKernel, 1)};
  const uint32_t sets[] = {kNone32, kNone32, kNone32, 4, kNone32, 9};
  TraceBuilder b;
  const StringId name[] = {b.intern("a"), b.intern("b"), b.intern("c"), b.intern("d"), b.intern("e"), b.intern("f")};
  const uint32_t rows = b.track(TrackKey{TrackKind::kCpuThread, 0, -1, 1});
  const uint32_t runs = b.track(TrackKey{TrackKind::kCpuThread, 0, -1, 2});
  for (int i = 0; i < 6; ++i) b.add_slice_with_arg_set(rows, start[i], dur[i], name[i], ref[i], sets[i]);
  b.reserve_slices(runs, 6, true);
  // the first run has no args: the column appears with the second, kNone32 before it
  CHECK(b.append_slices(runs, std::span(start, 3), std::span(dur, 3), std::span(name, 3), std::span(ref, 3), {}) == 0);
  CHECK(b.trace().tracks[runs].slices.args.empty());
  CHECK(b.append_slices(runs, std::span(start + 3, 3), std::span(dur + 3, 3), std::span(name + 3, 3), std::span(ref + 3, 3),
                        std::span(sets + 3, 3)) == 3);
  CHECK(b.trace().tracks[runs].slices.start.capacity() == 6);  // reserved once, exactly
  CHECK(b.negative_durations() == 2);  // one per track
  REQUIRE_THROWS_AS(b.append_slices(runs, std::span(start, 2), std::span(dur, 1), std::span(name, 2), std::span(ref, 2), {}),
                    std::invalid_argument);
  const Trace t = b.finish();
  const SliceColumns& x = t.tracks[rows].slices;
  const SliceColumns& y = t.tracks[runs].slices;
  CHECK(x.start == y.start);
  CHECK(x.dur == y.dur);
  CHECK(x.name == y.name);
  CHECK(x.ref == y.ref);
  CHECK(x.args == y.args);
  CHECK(x.depth == y.depth);
  // sorted by (start, longer first): e(10,1000) c(50,80) b(50,0 clamped) a(100) d(300) f(400)
  CHECK(y.start == std::vector<TimeNs>{10, 50, 50, 100, 300, 400});
  CHECK(y.dur == std::vector<TimeNs>{1000, 80, 0, 20, 10, 0});
  CHECK(y.args == std::vector<uint32_t>{kNone32, kNone32, kNone32, kNone32, 4, 9});
}
