// The replay engine on hand-made graphs; every expected time is worked out in the comment above
// the check (times in microseconds).
#include <catch2/catch.hpp>

#include "sim/whatif/critical_path.h"
#include "sim/whatif/replay.h"
#include "sim/whatif/step_exposure.h"
#include "sim/whatif/step_range.h"
#include "whatif/graph_fixture.h"

using namespace parascope;
using namespace parascope::whatif;
using parascope::test::GraphFixture;
using parascope::test::us;

TEST_CASE("replay: lane order, launch lag and stream gap", "[whatif][replay]") {
  GraphFixture f(1);
  const uint32_t h = f.thread(0, 1), s = f.stream(0, 7);
  const uint32_t l = f.node(h, NodeType::kHostCall, "cudaLaunchKernel", 0, 2);
  const uint32_t k1 = f.node(s, NodeType::kCompute, "k1", 7, 10);
  const uint32_t k2 = f.node(s, NodeType::kCompute, "k2", 18, 20);
  f.g.nodes[k2].gap = 1000;
  f.edge(l, k1, EdgeKind::kLaunch, EdgeTiming::kStartToStart, 5);
  const ReplayResult r = replay(f.g, {}, ReplayConfig{});
  // L 0..2; K1 waits for its launch: 0 + 5 = 5, runs 10 -> 15; K2 after K1 plus its 1 us gap: 16..36
  CHECK(us(r.end[l]) == 2);
  CHECK(us(r.start[k1]) == 5);
  CHECK(us(r.end[k1]) == 15);
  CHECK(us(r.start[k2]) == 16);
  CHECK(us(r.end[k2]) == 36);
  CHECK(r.start_by[k1] == static_cast<int32_t>(l));
  CHECK(r.start_cause[k1] == Cause::kEdge);
  CHECK(r.start_by[k2] == static_cast<int32_t>(k1));
  CHECK(r.start_cause[k2] == Cause::kLane);
  CHECK(r.warnings.empty());
}

TEST_CASE("replay: collective members rendezvous and end together", "[whatif][replay]") {
  GraphFixture f(2);
  const uint32_t s0 = f.stream(0, 7), s1 = f.stream(1, 7);
  f.node(s0, NodeType::kCompute, "x", 0, 10);
  const uint32_t a0 = f.node(s0, NodeType::kCollective, "allreduce", 10, 70);
  const uint32_t x1 = f.node(s1, NodeType::kCompute, "x", 0, 30);
  const uint32_t a1 = f.node(s1, NodeType::kCollective, "allreduce", 30, 50);
  f.group(CollectiveOp::kAllReduce, 50'000, {a0, a1});
  const ReplayResult r = replay(f.g, f.work_by_bytes(0), ReplayConfig{});
  // rank 0 arrives at 10, rank 1 at 30; the 50 us transfer runs 30..80 on both
  CHECK(us(r.start[a0]) == 10);
  CHECK(us(r.start[a1]) == 30);
  CHECK(us(r.end[a0]) == 80);
  CHECK(us(r.end[a1]) == 80);
  CHECK(us(r.group_start[0]) == 30);
  CHECK(r.end_by[a0] == static_cast<int32_t>(a1));
  CHECK(r.end_cause[a0] == Cause::kRendezvous);
  // critical path: rank 1's x (0..30, compute), then the transfer from its arrival (30..80)
  const CriticalPath p = critical_path(f.g, r);
  CHECK(us(p.end - p.start) == 80);
  CHECK(us(p.compute_ns) == 30);
  CHECK(us(p.communication_ns) == 50);
  CHECK(p.wait_ns == 0);
  REQUIRE(p.segments.size() == 2);
  CHECK(p.segments[0].node == x1);
  CHECK(p.segments[1].node == a1);
}

TEST_CASE("replay: a communication node outside every group runs alone for its measured time", "[whatif][replay]") {
  // A stand-in call whose group could not be rebuilt (world_graph) is a collective node with
  // group -1: it runs on its own for its work and leaves the groups' slots alone (it once wrote
  // group_start[-1], the heap corruption of the first one-GPU batch; the asan preset sees that).
  GraphFixture f(2);
  const uint32_t s0 = f.stream(0, 7), s1 = f.stream(1, 7);
  const uint32_t lone = f.node(s0, NodeType::kCollective, "stand-in all_reduce", 5, 10);
  const uint32_t a0 = f.node(s0, NodeType::kCollective, "allreduce", 30, 20);
  const uint32_t a1 = f.node(s1, NodeType::kCollective, "allreduce", 30, 20);
  f.group(CollectiveOp::kAllReduce, 20'000, {a0, a1});
  REQUIRE(f.g.nodes[lone].group == -1);
  const ReplayResult r = replay(f.g, f.work_by_bytes(0), ReplayConfig{});
  // the lone node 5..15 (its 10 us); the pair at 30 for 20 us: 30..50
  CHECK(us(r.start[lone]) == 5);
  CHECK(us(r.end[lone]) == 15);
  CHECK(us(r.end[a0]) == 50);
  REQUIRE(r.group_start.size() == 1);
  CHECK(us(r.group_start[0]) == 30);
  CHECK(us(r.group_end[0]) == 50);
}

TEST_CASE("step exposure: a rank's communication not under its compute, clipped to the step", "[whatif][replay]") {
  GraphFixture f(2);
  // the two gemms on streams of their own: a second node of one lane with no launch edge would
  // start as soon as the first ends (50, not 80)
  const uint32_t s0 = f.stream(0, 7), s0b = f.stream(0, 9), c0 = f.stream(0, 8), s1 = f.stream(1, 7);
  const uint32_t g0 = f.node(s0, NodeType::kCompute, "gemm", 0, 50);
  const uint32_t g1 = f.node(s0b, NodeType::kCompute, "gemm", 80, 10);
  const uint32_t a0 = f.node(c0, NodeType::kCollective, "allreduce", 40, 60);
  const uint32_t a1 = f.node(s1, NodeType::kCollective, "allreduce", 40, 60);
  f.group(CollectiveOp::kAllReduce, 60'000, {a0, a1});
  const ReplayResult r = replay(f.g, f.work_by_bytes(0), ReplayConfig{});
  // nothing moves: the collective 40..100 on both, the gemms 0..50 and 80..90
  REQUIRE(us(r.start[a0]) == 40);
  REQUIRE(us(r.end[a0]) == 100);
  REQUIRE(us(r.end[g0]) == 50);
  REQUIRE(us(r.start[g1]) == 80);
  REQUIRE(us(r.end[g1]) == 90);
  const StepExposure e(f.g, r);
  // rank 0: communication 40..100 minus compute 0..50 and 80..90: 50..80 and 90..100 = 40 us;
  // in [0, 85): 50..80 = 30 us. Rank 1 has no compute: all 60 us; in [45, 200): 55 us.
  CHECK(us(e.exposed(0, 0, 1'000'000)) == 40);
  CHECK(us(e.exposed(0, 0, 85'000)) == 30);
  CHECK(us(e.exposed(1, 0, 1'000'000)) == 60);
  CHECK(us(e.exposed(1, 45'000, 200'000)) == 55);
  CHECK(e.exposed(7, 0, 1'000'000) == 0);  // no such process
}

TEST_CASE("replay: compute shares its GPU with communication", "[whatif][replay][interference]") {
  GraphFixture f(2);
  const uint32_t s = f.stream(0, 7), t0 = f.stream(0, 8), t1 = f.stream(1, 8);
  const uint32_t c = f.node(s, NodeType::kCompute, "gemm", 0, 100);
  const uint32_t a0 = f.node(t0, NodeType::kCollective, "allreduce", 20, 40);
  const uint32_t a1 = f.node(t1, NodeType::kCollective, "allreduce", 20, 40);
  f.group(CollectiveOp::kAllReduce, 40'000, {a0, a1});
  ReplayConfig cfg;
  cfg.comm_interference = 0.25;
  SECTION("compute slows, communication does not") {
    const ReplayResult r = replay(f.g, f.work_by_bytes(20), cfg);
    // while the transfer runs (20..60) the GEMM has 80 of 100 SMs, / 1.25: rate 0.64.
    // done by 60: 20 + 40 x 0.64 = 45.6 us; the other 54.4 us at full rate: ends at 114.4
    CHECK(us(r.end[a0]) == 60);
    CHECK(us(r.end[c]) == Approx(114.4).margin(0.002));
  }
  SECTION("and communication slows while compute runs") {
    cfg.comm_slowdown = 0.6;
    const ReplayResult r = replay(f.g, f.work_by_bytes(20), cfg);
    // transfer at 1 / 1.6 = 0.625 while the GEMM runs: 40 us of work take 64 us: 20..84.
    // GEMM: 20 + 64 x 0.64 = 60.96 done at 84, 39.04 left at full rate: ends at 123.04
    CHECK(us(r.end[a0]) == Approx(84).margin(0.002));
    CHECK(us(r.end[c]) == Approx(123.04).margin(0.002));
  }
}

TEST_CASE("replay: a kernel ready while a one-wave kernel holds every SM waits for it", "[whatif][replay]") {
  GraphFixture f(2);
  const uint32_t s = f.stream(0, 7), t0 = f.stream(0, 8), t1 = f.stream(1, 8);
  const uint32_t gemm = f.node(s, NodeType::kCompute, "persistent gemm", 0, 100);
  f.g.nodes[gemm].fills_gpu = true;
  const uint32_t a0 = f.node(t0, NodeType::kCollective, "allreduce", 20, 10);
  const uint32_t a1 = f.node(t1, NodeType::kCollective, "allreduce", 20, 10);
  f.group(CollectiveOp::kAllReduce, 10'000, {a0, a1});
  ReplayConfig cfg;
  cfg.comm_interference = 0.25;
  const ReplayResult r = replay(f.g, f.work_by_bytes(20), cfg);
  // rank 0's all-reduce is ready at 20 but gets no SM until the GEMM ends at 100 (the GEMM is not
  // slowed: nothing of rank 0's communication runs before 100); rank 1 waits for it: 100..110
  CHECK(us(r.end[gemm]) == 100);
  CHECK(us(r.start[a0]) == 100);
  CHECK(r.start_cause[a0] == Cause::kDispatch);
  CHECK(r.start_by[a0] == static_cast<int32_t>(gemm));
  CHECK(us(r.start[a1]) == 20);
  CHECK(us(r.end[a0]) == 110);
  CHECK(us(r.end[a1]) == 110);
}

TEST_CASE("replay: a blocking host call ends after the GPU work it waits for", "[whatif][replay][host]") {
  GraphFixture f(1);
  const uint32_t h = f.thread(0, 1), s = f.stream(0, 7);
  const uint32_t l = f.node(h, NodeType::kHostCall, "cudaLaunchKernel", 0, 1);
  const uint32_t sync = f.node(h, NodeType::kHostCall, "cudaDeviceSynchronize", 2, 100);
  f.g.nodes[sync].work = 1000;
  f.g.nodes[sync].gap = 1000;
  f.g.nodes[sync].blocking = true;
  const uint32_t k = f.node(s, NodeType::kCompute, "k", 3, 50);
  f.edge(l, k, EdgeKind::kLaunch, EdgeTiming::kStartToStart, 3);
  f.edge(k, sync, EdgeKind::kHostSync, EdgeTiming::kFinishToFinish, 2);
  SECTION("as measured") {
    const ReplayResult r = replay(f.g, {}, ReplayConfig{});
    // L 0..1; sync starts after its 1 us gap at 2, would end at 3, but waits for K (3..53) + 2 us
    CHECK(us(r.start[sync]) == 2);
    CHECK(us(r.end[k]) == 53);
    CHECK(us(r.end[sync]) == 55);
    CHECK(r.end_cause[sync] == Cause::kHostWait);
    CHECK(r.end_by[sync] == static_cast<int32_t>(k));
  }
  SECTION("cpu_scale=0: host work and gaps vanish, GPU work stays") {
    ReplayConfig cfg;
    cfg.cpu_scale = 0;
    const ReplayResult r = replay(f.g, {}, cfg);
    // L 0..0; sync 0..(wait); K launched at 0 + 3 -> 3..53; sync ends 55
    CHECK(us(r.end[l]) == 0);
    CHECK(us(r.start[sync]) == 0);
    CHECK(us(r.end[sync]) == 55);
  }
}

TEST_CASE("replay: measured interference is taken out of compute durations", "[whatif][replay][interference]") {
  // 100 us measured, 40 of them beside communication at rate 0.5: 60 + 40 x 0.5 = 80 us of work
  CHECK(deinterfered_work(100'000, 40'000, 0.5) == 80'000);
  CHECK(deinterfered_work(100'000, 0, 0.5) == 100'000);
  // overlap longer than the kernel is clipped to it
  CHECK(deinterfered_work(100'000, 150'000, 0.5) == 50'000);
}

TEST_CASE("replay: the communication slow-down beside compute the measurement shows", "[whatif][replay][interference]") {
  GraphFixture f(2);
  const uint32_t s0 = f.stream(0, 8), s1 = f.stream(1, 8);
  // Each group: rank 0's member (d us measured, o of it beside compute), rank 1's 10 us longer
  // (it arrived first and waited), so rank 0's is the last arrival; alone = the model's time.
  auto add = [&](double d, double o) {
    const uint32_t a = f.node(s0, NodeType::kCollective, "allreduce", 0, d);
    const uint32_t b = f.node(s1, NodeType::kCollective, "allreduce", 0, d + 10);
    f.g.nodes[a].compute_overlap = static_cast<TimeNs>(o * 1000);
    f.g.nodes[b].compute_overlap = static_cast<TimeNs>((d + 10) * 1000);  // not the one read
    f.group(CollectiveOp::kAllReduce, 1000, {a, b});
  };
  add(100, 80);   // 20 alone; 80 us did 60 - 20 = 40 us of work: factor 2.0
  add(50, 50);    // all beside compute, 40 us of work: 1.25
  add(100, 40);   // less than half beside compute: skipped
  add(100, 60);   // 40 alone already more than the model's 30: it waited, skipped
  add(90, 90);    // 60 us of work in 90: 1.5
  const std::vector<TimeNs> alone = {60'000, 40'000, 50'000, 30'000, 60'000};
  // median of 1.25, 1.5, 2.0 = 1.5 -> 0.5
  CHECK(measured_comm_slowdown(f.g, alone) == Approx(0.5));
  // only group 1 (1.25): 0.25; with the model slower than the measurement (alone 60 for d = o = 50:
  // factor 0.83) the slow-down is 0, never a speed-up; no model time: nothing to read
  CHECK(measured_comm_slowdown(f.g, {0, 40'000, 0, 0, 0}) == Approx(0.25));
  CHECK(measured_comm_slowdown(f.g, {0, 60'000, 0, 0, 0}) == 0);
  CHECK(measured_comm_slowdown(f.g, {}) == 0);
}

TEST_CASE("replay: a cycle never runs and is reported", "[whatif][replay]") {
  GraphFixture f(1);
  const uint32_t s = f.stream(0, 7), t = f.stream(0, 8);
  const uint32_t a = f.node(s, NodeType::kCompute, "a", 0, 10);
  const uint32_t b = f.node(t, NodeType::kCompute, "b", 0, 10);
  f.edge(a, b, EdgeKind::kEventWait, EdgeTiming::kFinishToStart);
  f.edge(b, a, EdgeKind::kEventWait, EdgeTiming::kFinishToStart);
  const ReplayResult r = replay(f.g, {}, ReplayConfig{});
  CHECK(r.end[a] < 0);
  REQUIRE(r.warnings.size() == 1);
  CHECK_THAT(r.warnings[0], Catch::StartsWith("2 operations never ran (first: a)"));
}

TEST_CASE("step range: anchored on the range's own thread, not a helper thread's call inside it", "[whatif][replay][steps]") {
  // The main thread (id 1) holds the step range 10..60; a helper thread (id 2) makes one call at
  // 15, before the main thread's first call of the step (at 20). At cpu_scale 2 the main thread
  // drifts (its gaps double), the helper's lone call does not.
  GraphFixture f(1);
  const uint32_t main = f.thread(0, 1), helper = f.thread(0, 2);
  f.node(main, NodeType::kHostCall, "p", 0, 1);
  const uint32_t a = f.node(main, NodeType::kHostCall, "a", 20, 1);
  const uint32_t b = f.node(main, NodeType::kHostCall, "b", 50, 1);
  const uint32_t h = f.node(helper, NodeType::kHostCall, "h", 15, 1);
  f.g.nodes[a].gap = 19'000;
  f.g.nodes[b].gap = 29'000;
  ReplayConfig cfg;
  cfg.cpu_scale = 2;
  const ReplayResult r = replay(f.g, {}, cfg);
  // p 0..2; a after p's end and its doubled gap: 2 + 38 = 40..42; b: 42 + 58 = 100..102; h 15..17
  CHECK(us(r.start[a]) == 40);
  CHECK(us(r.end[b]) == 102);
  CHECK(us(r.start[h]) == 15);
  const std::vector<uint32_t> step = {h, a, b};
  StepRange range{0, 10'000, 60'000, 1};
  const auto own = step_anchors(f.g, range, step);
  REQUIRE(own);
  CHECK(own->first == a);
  CHECK(own->last == b);
  // a moved by +20, b's end by +51: 30..111 (81 us; the measured 50 plus the doubled host time)
  const ReplayedRange moved = replayed_range(f.g, r, range, *own);
  CHECK(us(moved.start) == 30);
  CHECK(us(moved.end) == 111);
  // a range of no one thread (an NVTX domain's, or merged from several) anchors on any call: the
  // helper's call is then first and the range stretches by the whole drift, 10..111
  range.thread = -1;
  const auto any = step_anchors(f.g, range, step);
  REQUIRE(any);
  CHECK(any->first == h);
  CHECK(us(replayed_range(f.g, r, range, *any).start) == 10);
  // a thread with no call in the step falls back to every call
  range.thread = 3;
  CHECK(step_anchors(f.g, range, step)->first == h);
  CHECK(!step_anchors(f.g, range, {}));
}
