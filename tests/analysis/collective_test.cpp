#include <catch2/catch.hpp>

#include "example_trace.h"
#include "test_paths.h"
#include "trace/core/analysis/collective_bandwidth.h"
#include "trace/core/analysis/collective_matcher.h"
#include "trace/io/load_trace.h"

using namespace parascope;

TEST_CASE("NCCL bus bandwidth factors and collective sizes", "[analysis][collectives]") {
  // nccl-tests doc/PERFORMANCE.md: all-reduce 2(n-1)/n, all-gather/reduce-scatter (n-1)/n, p2p 1
  CHECK(bus_bandwidth_factor(CollectiveOp::kAllReduce, 2) == Approx(1.0));
  CHECK(bus_bandwidth_factor(CollectiveOp::kAllReduce, 8) == Approx(1.75));
  CHECK(bus_bandwidth_factor(CollectiveOp::kAllGather, 8) == Approx(0.875));
  CHECK(bus_bandwidth_factor(CollectiveOp::kReduceScatter, 4) == Approx(0.75));
  CHECK(bus_bandwidth_factor(CollectiveOp::kAllToAll, 2) == Approx(0.5));
  CHECK(bus_bandwidth_factor(CollectiveOp::kSendRecv, 2) == 1.0);
  CHECK(bus_bandwidth_factor(CollectiveOp::kBroadcast, 16) == 1.0);
  CHECK(bus_bandwidth_factor(CollectiveOp::kAllReduce, 0) == 0.0);  // unknown group size: no guess
  CHECK(bus_bandwidth_factor(CollectiveOp::kBarrier, 2) == 0.0);
  // all-gather: S is the gathered output (1024 bf16 = 2048 bytes), not the 512-element input
  CollectiveInfo ag;
  ag.op = CollectiveOp::kAllGather;
  ag.in_elements = 512;
  ag.out_elements = 1024;
  ag.dtype_bytes = 2;
  CHECK(collective_bytes(ag) == 2048);
  CHECK(parse_group_ranks("[0, 1, 6]") == std::vector<int32_t>{0, 1, 6});
  CHECK(parse_group_ranks("all").empty());
}

TEST_CASE("algbw and busbw per collective on the hand-worked example", "[analysis][collectives]") {
  const auto ex = test::make_example_trace();
  const auto rows = collective_bandwidth(ex.trace);
  REQUIRE(rows.size() == 1);
  // all-reduce of 1000 floats, S = 4000 bytes, in 150 ns, 4 ranks:
  // algbw = 4000 / 150e-9 = 26.667 GB/s, busbw = algbw × 2·3/4 = 40 GB/s
  CHECK(rows[0].bytes == 4000);
  CHECK(rows[0].device == 0);
  CHECK(rows[0].algbw_bytes_per_s == Approx(4000.0 / 150e-9));
  CHECK(rows[0].busbw_bytes_per_s == Approx(40e9));
  const auto sum = summarize_collective_bandwidth(ex.trace, rows);
  REQUIRE(sum.size() == 2);  // device 0 all-reduce, then all devices all-reduce
  CHECK(sum[0].device == 0);
  CHECK(sum[1].device == -1);
  CHECK(sum[1].count == 1);
  CHECK(sum[1].busbw_bytes_per_s == Approx(40e9));
}

namespace {

// Two ranks, one device each, one stream each:
//   rank 0: all-reduce [100,300), all-reduce [1000,1100), all-gather [2000,2050), group "tp"
//           reduce-scatter seq 5 [3000,3010)
//   rank 1: all-reduce [130,300), all-reduce [1010,1100), no all-gather, "tp" seq 5 [2990,3020)
Trace two_rank_trace() {
  TraceBuilder b;
  std::vector<uint32_t> stream;
  for (int r = 0; r < 2; ++r) {
    Process p;
    p.rank = r;
    const uint32_t pi = b.add_process(p);
    Device d;
    d.process = pi;
    d.ordinal = r;
    const auto di = static_cast<int32_t>(b.add_device(d));
    stream.push_back(b.track({TrackKind::kGpuStream, pi, di, 7}, "stream 7"));
  }
  const StringId g0 = b.intern("0"), ranks01 = b.intern("[0, 1]"), tp = b.intern("tp");
  auto add = [&](int rank, TimeNs start, TimeNs dur, CollectiveOp op, uint64_t in, uint64_t out, StringId group,
                 int64_t seq) {
    CollectiveInfo c;
    c.op = op;
    c.in_elements = in;
    c.out_elements = out;
    c.dtype_bytes = 4;
    c.group_size = 2;
    c.group = group;
    c.group_ranks = ranks01;
    c.sequence = seq;
    c.rank = rank;
    c.kernel = b.add_slice(stream[static_cast<size_t>(rank)], start, dur, b.intern("ncclDevKernel"), b.add_kernel({}));
    return b.add_collective(c);
  };
  add(0, 100, 200, CollectiveOp::kAllReduce, 1024, 1024, g0, -1);
  add(0, 1000, 100, CollectiveOp::kAllReduce, 1024, 1024, g0, -1);
  add(0, 2000, 50, CollectiveOp::kAllGather, 512, 1024, g0, -1);  // collective #2
  add(0, 3000, 10, CollectiveOp::kReduceScatter, 2048, 1024, tp, 5);
  add(1, 2990, 30, CollectiveOp::kReduceScatter, 2048, 1024, tp, 5);  // appears first on rank 1
  add(1, 130, 170, CollectiveOp::kAllReduce, 1024, 1024, g0, -1);
  add(1, 1010, 90, CollectiveOp::kAllReduce, 1024, 1024, g0, -1);
  return b.finish();
}

}  // namespace

TEST_CASE("The collective matcher pairs by sequence, else by order, and reports the rest", "[analysis][collectives]") {
  const Trace t = two_rank_trace();
  const CollectiveMatch m = match_collectives(t);
  CHECK(m.complete == 3);
  CHECK(m.by_sequence == 1);
  CHECK(m.by_order == 2);
  CHECK(m.incomplete == 1);
  CHECK(m.unmatched == std::vector<uint32_t>{2});  // the all-gather only rank 0 ran
  REQUIRE(m.collectives.size() == 4);
  // sorted by first start: all-reduce #0 (100), all-reduce #1 (1000), all-gather (2000), "tp" seq 5 (2990)
  const MatchedCollective& ar0 = m.collectives[0];
  CHECK(ar0.op == CollectiveOp::kAllReduce);
  CHECK(ar0.ordinal == 0);
  CHECK(ar0.complete());
  REQUIRE(ar0.members.size() == 2);
  CHECK(ar0.members[0].rank == 0);
  CHECK(ar0.members[1].rank == 1);
  CHECK(ar0.members[1].device == 1);
  // rank 1 arrived 30 ns after rank 0; both ended at 300; the slowest took 200 ns
  CHECK(ar0.skew_ns() == 30);
  CHECK(ar0.max_duration_ns == 200);
  CHECK(ar0.concurrent_ns() == 170);
  // S = 1024 × 4 = 4096 bytes; algbw = 4096 / 200 ns = 20.48 GB/s, × 2(2−1)/2 = 1 → busbw the same
  CHECK(ar0.bytes == 4096);
  CHECK(ar0.algbw_bytes_per_s == Approx(20.48e9));
  CHECK(ar0.busbw_bytes_per_s == Approx(20.48e9));
  CHECK(ar0.algbw_concurrent_bytes_per_s == Approx(4096.0 / 170e-9));
  CHECK(m.collectives[1].ordinal == 1);
  CHECK(m.collectives[1].skew_ns() == 10);
  const MatchedCollective& ag = m.collectives[2];
  CHECK(ag.op == CollectiveOp::kAllGather);
  CHECK_FALSE(ag.complete());
  CHECK(ag.missing_ranks == std::vector<int32_t>{1});
  const MatchedCollective& rs = m.collectives[3];
  CHECK(rs.sequence == 5);
  CHECK(rs.complete());
  CHECK(rs.consistent);
  CHECK(t.str(rs.group) == "tp");
}

TEST_CASE("Collectives on the real 2 x H200 traces", "[analysis][collectives][real]") {
  SECTION("bundled sample: three all-reduces per rank, matched by order (no Seq in these files)") {
    const std::string s = "allreduce_matmul_2xh200/";
    const Trace t = load_trace({test::sample_path(s + "rank0.json"), test::sample_path(s + "rank1.json")});
    const CollectiveMatch m = match_collectives(t);
    CHECK(m.complete == 3);
    CHECK(m.incomplete == 0);
    CHECK(m.by_order == 3);
    REQUIRE(m.collectives.size() == 3);
    // kernel starts (ns, trace clock) taken with Python json + Decimal:
    //   rank 0: 1796033537019104314 (241246 ns), rank 1: 1796033537019271512 (76704 ns)
    const MatchedCollective& ar0 = m.collectives[0];
    CHECK(ar0.first_start == 1796033537019104314LL);
    CHECK(ar0.skew_ns() == 1796033537019271512LL - 1796033537019104314LL);  // 167198 ns
    CHECK(ar0.max_duration_ns == 241246);
    // S = 4194304 floats = 16777216 bytes; algbw on the slowest rank 16777216 / 241246 ns = 69.544 GB/s
    CHECK(ar0.bytes == 16777216);
    CHECK(ar0.algbw_bytes_per_s == Approx(69544017310.13156).epsilon(1e-9));
    // after the late rank arrived: last end (rank 1: 1796033537019348216) − last start = 76704 ns
    CHECK(ar0.concurrent_ns() == 76704);
    CHECK(ar0.busbw_concurrent_bytes_per_s == Approx(16777216.0 / 76704e-9));
    const auto rows = collective_bandwidth(t);
    REQUIRE(rows.size() == 6);
    CHECK(rows[0].algbw_bytes_per_s == Approx(69544017310.13156).epsilon(1e-9));
  }
  SECTION("bundled sample, one rank only: every all-reduce is reported unmatched") {
    const Trace t = load_trace({test::sample_path("allreduce_matmul_2xh200/rank0.json")});
    const CollectiveMatch m = match_collectives(t);
    CHECK(m.complete == 0);
    CHECK(m.incomplete == 3);
    CHECK(m.unmatched.size() == 3);
    CHECK(m.collectives[0].missing_ranks == std::vector<int32_t>{1});
  }
  SECTION("tensor-parallel capture: 4 all-gathers, 4 reduce-scatters, 4 all-reduces per rank") {
    const Trace t = load_trace({test::source_path("resources/captures/h200x2_2026-11-30/tp_overlap_b1")});
    const CollectiveMatch m = match_collectives(t);
    CHECK(m.complete == 12);
    CHECK(m.incomplete == 0);
    // first all-gather: 16777216 bf16 in, 33554432 out → S = 67108864 bytes; rank 0 took 161567 ns,
    // rank 1 274398 ns; busbw factor (2−1)/2
    const MatchedCollective& ag = m.collectives[0];
    CHECK(ag.op == CollectiveOp::kAllGather);
    CHECK(ag.bytes == 67108864);
    CHECK(ag.max_duration_ns == 274398);
    CHECK(ag.busbw_bytes_per_s == Approx(67108864.0 / 274398e-9 * 0.5));
    CHECK(ag.consistent);
  }
}
