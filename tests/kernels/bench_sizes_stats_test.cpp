#include <catch2/catch.hpp>

#include <cmath>

#include "host/bench_options.h"
#include "host/size_spec.h"
#include "host/stats.h"

using namespace parascope::bench;

TEST_CASE("sizes parse in binary units and refuse what they do not understand", "[bench][sizes]") {
  REQUIRE(parse_bytes("4096") == 4096);
  REQUIRE(parse_bytes("4KiB") == 4096);
  REQUIRE(parse_bytes("4K") == 4096);
  REQUIRE(parse_bytes("64MiB") == 64ull << 20);
  REQUIRE(parse_bytes("1GiB") == 1ull << 30);
  REQUIRE_THROWS_AS(parse_bytes("4kb"), UsageError);
  REQUIRE_THROWS_AS(parse_bytes("KiB"), UsageError);
  REQUIRE_THROWS_AS(parse_bytes("99999999999GiB"), UsageError);
  REQUIRE(format_bytes(4096) == "4 KiB");
  REQUIRE(format_bytes(1536) == "1536 B");      // not a whole KiB
  REQUIRE(format_bytes(3ull << 30) == "3 GiB");
  REQUIRE(format_bytes(0) == "0 B");
}

TEST_CASE("log sweeps include both ends when the factor reaches them", "[bench][sizes]") {
  // 1 KiB · 4^k for k = 0..10 reaches 1 GiB exactly: 11 sizes
  const auto s = parse_size_list("1KiB:1GiB:x4");
  REQUIRE(s.size() == 11);
  REQUIRE(s.front() == 1024);
  REQUIRE(s[1] == 4096);
  REQUIRE(s.back() == 1ull << 30);
  // 4 KiB ·4 ... ≤ 1 GiB: 4K,16K,...,1G = 10 sizes (the collectives' sweep)
  REQUIRE(parse_size_list("4KiB:1GiB:x4").size() == 10);
  // 1 KiB · 8^k ≤ 100 KiB: 1K, 8K, 64K
  REQUIRE(log_sweep(1024, 100 * 1024, 8) == std::vector<uint64_t>{1024, 8192, 65536});
  REQUIRE(parse_size_list("4KiB,1MiB") == std::vector<uint64_t>{4096, 1 << 20});
  REQUIRE_THROWS_AS(parse_size_list("1KiB:1GiB:4"), UsageError);
  REQUIRE_THROWS_AS(log_sweep(1024, 4096, 1), UsageError);
  REQUIRE(parse_int_list("1,2,132", 1, 132) == std::vector<int>{1, 2, 132});
  REQUIRE_THROWS_AS(parse_int_list("0,4", 1, 132), UsageError);
  REQUIRE_THROWS_AS(parse_int_list("4,,8", 1, 132), UsageError);
}

TEST_CASE("options are declared: unknown ones and missing values are usage errors", "[bench][options]") {
  const std::vector<OptionSpec> specs = {{"--sizes", true, "LIST"}, {"--quick", false, ""}};
  Options o({"--sizes", "4KiB,8KiB", "--quick"}, specs);
  REQUIRE(o.get("--sizes", "") == "4KiB,8KiB");
  REQUIRE(o.has("--quick"));
  REQUIRE(o.get_int("--reps", 7) == 7);
  REQUIRE_THROWS_AS(Options({"--size", "4KiB"}, specs), UsageError);
  REQUIRE_THROWS_AS(Options({"--sizes"}, specs), UsageError);
  Options bad({"--sizes", "x"}, specs);
  REQUIRE_THROWS_AS(bad.get_int("--sizes", 0), UsageError);
}

TEST_CASE("percentiles interpolate like numpy and summaries hold every statistic", "[bench][stats]") {
  REQUIRE(percentile({4, 1, 3, 2}, 0.5) == Approx(2.5));
  // 1..10: p10 at position 0.9 → 1.9, p90 at position 8.1 → 9.1
  std::vector<double> v;
  for (int i = 1; i <= 10; ++i) v.push_back(i);
  const Summary s = summarize(v);
  REQUIRE(s.n == 10);
  REQUIRE(s.median == Approx(5.5));
  REQUIRE(s.p10 == Approx(1.9));
  REQUIRE(s.p90 == Approx(9.1));
  REQUIRE(s.min == 1);
  REQUIRE(s.max == 10);
  REQUIRE(s.mean == Approx(5.5));
  REQUIRE(std::isnan(percentile({}, 0.5)));
  REQUIRE(summarize({}).n == 0);
}

TEST_CASE("bus bandwidth uses nccl-tests factors", "[bench][stats]") {
  REQUIRE(busbw_factor(Collective::kAllReduce, 2) == Approx(1.0));
  REQUIRE(busbw_factor(Collective::kAllReduce, 8) == Approx(1.75));
  REQUIRE(busbw_factor(Collective::kAllGather, 4) == Approx(0.75));
  REQUIRE(busbw_factor(Collective::kReduceScatter, 2) == Approx(0.5));
  REQUIRE(busbw_factor(Collective::kSendRecv, 8) == Approx(1.0));
  // 1 GiB in 1 ms = 1073.741824 GB/s
  REQUIRE(gbps(1ull << 30, 1e6) == Approx(1073.741824));
  // NCCL's 1 GiB bf16 all-reduce of the 2026-11-30 capture: 3,267,577 ns ≈ 328.6 GB/s bus bandwidth on 2 GPUs
  REQUIRE(gbps(1ull << 30, 3.2676e6) * busbw_factor(Collective::kAllReduce, 2) == Approx(328.6).epsilon(0.001));
}

TEST_CASE("timing plans put at least 100 small ops in a graph and one long op per sample", "[bench][stats]") {
  const TimingPlan small = plan_timing(10e3);
  REQUIRE(small.ops_per_graph == 100);
  REQUIRE(small.reps == 15);
  REQUIRE(plan_timing(100e3).ops_per_graph == 10);  // 1 ms / 100 us
  REQUIRE(plan_timing(400e3).ops_per_graph == 3);   // ceil(2.5)
  const TimingPlan big = plan_timing(3e6);
  REQUIRE(big.ops_per_graph == 1);
  REQUIRE(big.reps == 8);
  REQUIRE(big.warmup == 1);
}
