#include <catch2/catch.hpp>

#include "test_paths.h"
#include "trace/core/analysis/collective_peers.h"
#include "trace/core/trace_builder.h"
#include "trace/io/load_trace.h"

using namespace parascope;

namespace {

struct PeersTrace {
  Trace trace;
  EventRef kernel[3][2];  // [all-reduce #][rank]
  EventRef cpu_op0;       // rank 0's CPU op of all-reduce #0
  EventRef gemm;          // a kernel that is no collective
  EventRef lone;          // rank 0's all-gather, which rank 1 never ran
};

// Two ranks, one stream and one thread each:
//   rank 0: all-reduce [100,300) issued by a CPU op [90,95), all-reduce [1000,1100), all-gather [2000,2050),
//           a GEMM [400,500)
//   rank 1: all-reduce [130,300), all-reduce [1010,1100)
PeersTrace peers_trace() {
  TraceBuilder b;
  uint32_t stream[2], thread[2];
  for (int r = 0; r < 2; ++r) {
    Process p;
    p.rank = r;
    const uint32_t pi = b.add_process(p);
    Device d;
    d.process = pi;
    d.ordinal = r;
    const auto di = static_cast<int32_t>(b.add_device(d));
    stream[r] = b.track({TrackKind::kGpuStream, pi, di, 7}, "stream 7");
    thread[r] = b.track({TrackKind::kCpuThread, pi, -1, 1}, "thread 1");
  }
  const StringId g0 = b.intern("0"), ranks01 = b.intern("[0, 1]");
  PeersTrace out;
  auto add = [&](int rank, TimeNs start, TimeNs dur, CollectiveOp op, EventRef cpu = {}) {
    CollectiveInfo c;
    c.op = op;
    c.in_elements = c.out_elements = 1024;
    c.dtype_bytes = 4;
    c.group_size = 2;
    c.group = g0;
    c.group_ranks = ranks01;
    c.rank = rank;
    c.cpu_op = cpu;
    c.kernel = b.add_slice(stream[rank], start, dur, b.intern("ncclDevKernel"), b.add_kernel({}));
    b.add_collective(c);
  };
  const EventRef cpu = b.add_slice(thread[0], 90, 5, b.intern("nccl:all_reduce"), b.add_cpu_op({}));
  add(0, 100, 200, CollectiveOp::kAllReduce, cpu);
  add(0, 1000, 100, CollectiveOp::kAllReduce);
  add(0, 2000, 50, CollectiveOp::kAllGather);
  add(1, 130, 170, CollectiveOp::kAllReduce);
  add(1, 1010, 90, CollectiveOp::kAllReduce);
  b.add_slice(stream[0], 400, 100, b.intern("gemm"), b.add_kernel({}));
  out.trace = b.finish();
  // finish() sorts each track by start, so provisional rows may move: find the final ones by time
  auto at = [&](uint32_t track, TimeNs start) {
    const auto& s = out.trace.tracks[track].slices;
    for (uint32_t i = 0; i < s.size(); ++i)
      if (s.start[i] == start) return EventRef{track, i};
    return EventRef{};
  };
  out.kernel[0][0] = at(stream[0], 100);
  out.kernel[0][1] = at(stream[1], 130);
  out.kernel[1][0] = at(stream[0], 1000);
  out.kernel[1][1] = at(stream[1], 1010);
  out.lone = at(stream[0], 2000);
  out.gemm = at(stream[0], 400);
  out.cpu_op0 = at(thread[0], 90);
  return out;
}

}  // namespace

TEST_CASE("Collective peers: a selected all-reduce kernel gives the other rank's kernel and the arrival skew", "[analysis][collectives]") {
  const PeersTrace p = peers_trace();
  const CollectivePeerIndex index(p.trace, match_collectives(p.trace));
  REQUIRE(index.match().complete == 2);
  SECTION("rank 1's first all-reduce: rank 0 arrived first (100), rank 1 30 ns later (130)") {
    const CollectivePeers peers = index.peers_of(p.trace, p.kernel[0][1]);
    REQUIRE(peers.found());
    CHECK(peers.match == 0);  // the first matched instance by first start
    REQUIRE(peers.members.size() == 2);
    CHECK(peers.members[0].rank == 0);
    CHECK(peers.members[0].slice == p.kernel[0][0]);
    CHECK(peers.members[0].after_first_ns == 0);
    CHECK_FALSE(peers.members[0].selected);
    CHECK(peers.members[1].rank == 1);
    CHECK(peers.members[1].slice == p.kernel[0][1]);
    CHECK(peers.members[1].after_first_ns == 30);
    CHECK(peers.members[1].device == 1);
    REQUIRE(peers.selected() != nullptr);
    CHECK(peers.selected()->rank == 1);
  }
  SECTION("the second all-reduce pairs with the second, 10 ns apart") {
    const CollectivePeers peers = index.peers_of(p.trace, p.kernel[1][0]);
    REQUIRE(peers.members.size() == 2);
    CHECK(peers.match == 1);
    CHECK(peers.members[1].slice == p.kernel[1][1]);
    CHECK(peers.members[1].after_first_ns == 10);
  }
  SECTION("the CPU op that issued an all-reduce selects it too; a peer without a CPU op is pointed at by its kernel") {
    const CollectivePeers peers = index.peers_of(p.trace, p.cpu_op0);
    REQUIRE(peers.members.size() == 2);
    CHECK(peers.members[0].selected);
    CHECK(peers.members[0].slice == p.cpu_op0);
    CHECK(peers.members[1].slice == p.kernel[0][1]);
    CHECK(peers.members[1].after_first_ns == 30);  // arrivals are kernel starts, as the matcher times them
  }
  SECTION("an incomplete match has only its own member; other slices have no peers") {
    const CollectivePeers lone = index.peers_of(p.trace, p.lone);
    REQUIRE(lone.found());
    CHECK(lone.members.size() == 1);
    CHECK(index.match().collectives[lone.match].missing_ranks == std::vector<int32_t>{1});
    CHECK_FALSE(index.peers_of(p.trace, p.gemm).found());
    CHECK_FALSE(index.peers_of(p.trace, EventRef{}).found());
  }
}

TEST_CASE("Collective peers on the real 2 x H200 sample", "[analysis][collectives][real]") {
  const std::string s = "allreduce_matmul_2xh200/";
  const Trace t = load_trace({test::sample_path(s + "rank0.json"), test::sample_path(s + "rank1.json")});
  const CollectivePeerIndex index(t, match_collectives(t));
  REQUIRE(index.match().complete == 3);
  // every matched all-reduce kernel finds the other rank's, and the two agree on the instance
  for (size_t m = 0; m < index.match().collectives.size(); ++m) {
    const MatchedCollective& mc = index.match().collectives[m];
    REQUIRE(mc.members.size() == 2);
    for (const CollectiveMember& mm : mc.members) {
      const CollectivePeers peers = index.peers_of(t, t.collectives[mm.collective].kernel);
      REQUIRE(peers.found());
      CHECK(peers.match == m);
      REQUIRE(peers.members.size() == 2);
      CHECK(peers.selected()->rank == mm.rank);
    }
  }
  // the first all-reduce (collective_test.cpp: kernel starts from the files): rank 0 at
  // 1796033537019104314 ns, rank 1 at 1796033537019271512 ns, 167198 ns later
  const MatchedCollective& ar0 = index.match().collectives[0];
  const CollectivePeers peers = index.peers_of(t, t.collectives[ar0.members[0].collective].kernel);
  CHECK(peers.members[0].rank == 0);
  CHECK(peers.members[0].after_first_ns == 0);
  CHECK(peers.members[1].rank == 1);
  CHECK(peers.members[1].after_first_ns == 167198);
  CHECK(t.tracks[peers.members[1].slice.track].slices.start[peers.members[1].slice.index] == 1796033537019271512LL);
}
