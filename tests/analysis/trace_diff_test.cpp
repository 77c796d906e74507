// trace_diff on the real 2 x H200 traces: two runs of the same tensor-parallel step, NCCL at its
// default channels (tp_serial_b1) and limited to 4 (tp_serial_b1_nch4). Expected numbers were
// worked out from the raw Kineto JSON with Python (json + gzip): each rank's ProfilerStep#N `dur`
// and the summed `dur` of the ncclDevKernel_AllReduce kernels.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <regex>

#include "skip.h"
#include "test_paths.h"
#include "trace/core/analysis/trace_diff.h"
#include "trace/io/load_trace.h"

using namespace parascope;

namespace {

std::string capture(const std::string& variant) {
  return test::source_path("resources/captures/h200x2_2026-11-30/" + variant);
}

const KernelDiff* kernel_named(const TraceDiff& d, std::string_view prefix) {
  for (const KernelDiff& k : d.kernels)
    if (k.name.rfind(prefix, 0) == 0) return &k;
  return nullptr;
}

}  // namespace

TEST_CASE("diff of two TP runs pairs ProfilerStep 3 to 6 and shows the 4-channel slow-down", "[analysis][diff]") {
  const Trace a = load_trace({capture("tp_serial_b1")});
  const Trace b = load_trace({capture("tp_serial_b1_nch4")});
  const TraceDiff d = diff_traces(a, b);
  CHECK(d.steps_a == "ProfilerStep#N");
  CHECK(d.paired_by == "name");
  CHECK(d.unpaired_a == 0);
  CHECK(d.unpaired_b == 0);
  REQUIRE(d.steps.size() == 4);
  CHECK(d.steps[0].name_a == "ProfilerStep#3");
  CHECK(d.steps[3].name_b == "ProfilerStep#6");
  // ProfilerStep#3: rank 0 3915462 ns, rank 1 3936866 ns (A); rank 0 5064284, rank 1 5089086 (B):
  // the slowest rank's range
  CHECK(d.steps[0].host_a == 3936866);
  CHECK(d.steps[0].host_b == 5089086);
  // ProfilerStep#6: max(3852610, 3843182), max(5005336, 5027141)
  CHECK(d.steps[3].host_a == 3852610);
  CHECK(d.steps[3].host_b == 5027141);
  for (const StepDiff& s : d.steps) {
    // GPU span within the host range; exposed communication within the GPU span; more of it with 4 channels
    CHECK(s.gpu_a > 0);
    CHECK(s.gpu_a < s.host_a);
    CHECK(s.exposed_a < s.gpu_a);
    CHECK(s.exposed_b > s.exposed_a);
  }
  // all-reduce kernels: 4 per rank (1 per step); A 1050553 + 1013913 ns, B 3276077 + 3297384 ns
  const KernelDiff* ar = kernel_named(d, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL");
  REQUIRE(ar);
  CHECK(ar->category == Category::kCommunication);
  CHECK(ar->count_a == 8);
  CHECK(ar->count_b == 8);
  CHECK(ar->total_a == 2064466);
  CHECK(ar->total_b == 6573461);
  CHECK(d.kernels.front().name == ar->name);  // the largest change
  // the 64 MiB all-reduce over 2 ranks: busbw = S x 2(n-1)/n / t = 67108864 x 8 / 2064466 ns
  REQUIRE(d.collectives.size() == 3);
  const auto c = std::find_if(d.collectives.begin(), d.collectives.end(),
                              [](const CollectiveDiff& x) { return x.op == CollectiveOp::kAllReduce; });
  REQUIRE(c != d.collectives.end());
  CHECK(c->bytes == 67108864);
  CHECK(c->ranks == 2);
  CHECK(c->count_a == 8);
  CHECK(c->busbw_a == Approx(67108864.0 * 8 / 2064466e-9));
  CHECK(c->busbw_b == Approx(67108864.0 * 8 / 6573461e-9));

  // one compute stream per GPU (stream 7), 8 kernels and 4 memsets per step
  REQUIRE(d.tracks.size() == 2);
  CHECK(d.tracks[0].label == "rank 0 GPU 0 stream 7");
  CHECK(d.tracks[1].label == "rank 1 GPU 1 stream 7");
  for (const TrackDiff& t : d.tracks) {
    CHECK(t.count_a == 48);
    CHECK(t.count_b == 48);
    CHECK(t.track_a >= 0);
    CHECK(t.track_b >= 0);
    CHECK(t.busy_b > t.busy_a);
  }
  // the examples are the first all-reduce of ProfilerStep#3 in each trace
  REQUIRE(ar->example_a.valid());
  REQUIRE(ar->example_b.valid());
  CHECK(a.str(a.tracks[ar->example_a.track].slices.name[ar->example_a.index]) == ar->name);
  CHECK(a.tracks[ar->example_a.track].slices.start[ar->example_a.index] >= d.steps[0].start_a);
  CHECK(a.tracks[ar->example_a.track].slices.start[ar->example_a.index] < d.steps[0].end_a);
  const DataTable steps = diff_steps_table(d);
  REQUIRE(steps.rows.size() == 4);
  CHECK(steps.rows[0][4].value == 5089086 - 3936866);  // host diff
  CHECK(steps.rows[0][5].value == Approx((5089086.0 - 3936866) / 3936866));
  CHECK(diff_kernels_table(d).rows.size() == d.kernels.size());
  CHECK(diff_collectives_table(d).rows.size() == 3);
}

TEST_CASE("diff of a trace with itself has no differences", "[analysis][diff]") {
  const Trace a = load_trace({test::sample_path("allreduce_matmul_2xh200")});
  const TraceDiff d = diff_traces(a, a);
  REQUIRE(d.steps.size() == 3);  // ProfilerStep#2..#4
  CHECK(d.offset() == 0);
  for (const StepDiff& s : d.steps) {
    CHECK(s.host_a == s.host_b);
    CHECK(s.exposed_a == s.exposed_b);
  }
  for (const KernelDiff& k : d.kernels) CHECK(k.delta() == 0);
}

TEST_CASE("find_steps falls back to a pattern, then to the whole trace", "[analysis][diff]") {
  const Trace a = load_trace({test::sample_path("allreduce_matmul_2xh200")});
  CHECK(find_steps(a).steps.size() == 3);
  // the probe file has SM lanes only: no ranges, one step over the whole trace (212.0 ms, `info`)
  const Trace p = load_trace({test::sample_path("fused_probe_2xh200/fused_probe.pstrace")});
  const TraceSteps whole = find_steps(p, "^iter \\d+$");
  CHECK(whole.source == "whole trace");
  REQUIRE(whole.steps.size() == 1);
  CHECK(whole.steps[0].span.length() == Approx(212.0e6).margin(0.05e6));
  // against a ProfilerStep trace the steps pair by order: the first only
  const TraceDiff d = diff_traces(a, p);
  CHECK(d.paired_by == "order");
  CHECK(d.steps.size() == 1);
  CHECK(d.unpaired_a == 2);
  CHECK_THROWS_AS(find_steps(p, "(unclosed"), std::regex_error);
}

namespace {

std::string hta(const std::string& name) { return test::shared_path("external/hta_testdata/" + name); }

}  // namespace

// HTA's own trace-diff pair (Meta's HolisticTraceAnalysis test data, ../shared): control is rank 3
// of 8, test rank 1 of 2, six ProfilerStep#1009..1014 each. Expected numbers from the raw JSON with
// Python (json + gzip): ops assigned by their launch call's ProfilerStep range; HTA's
// TraceDiff ranks Memcpy DtoD first as well (18 -> 4608 copies).
TEST_CASE("diff of HTA's control/test pair counts copies, gives pre-window work its own row, pairs rank 3 with rank 1",
          "[analysis][diff][shared]") {
  if (!std::filesystem::exists(hta("trace_diff__test__test.json.gz"))) PARASCOPE_SKIP("../shared/external/hta_testdata is not present");
  const Trace a = load_trace({hta("trace_diff__control__control.json.gz")});
  const Trace b = load_trace({hta("trace_diff__test__test.json.gz")});
  const TraceDiff d = diff_traces(a, b);
  CHECK(d.paired_by == "name");
  CHECK(d.paired_steps() == 6);

  // (a) copies are GPU ops: Memcpy DtoD, 3 per step in A, 768 in B, sum(dur) 2735 us -> 92625 us
  REQUIRE(!d.kernels.empty());
  const KernelDiff& top = d.kernels.front();
  CHECK(top.name == "Memcpy DtoD (Device -> Device)");
  CHECK(top.kind == SliceKind::kMemcpy);
  CHECK(top.count_a == 18);
  CHECK(top.count_b == 4608);
  CHECK(top.total_a == 2735000);
  CHECK(top.total_b == 92625000);
  const KernelDiff* memset = kernel_named(d, "Memset (Device)");
  REQUIRE(memset);
  CHECK(memset->kind == SliceKind::kMemset);
  CHECK(diff_kernels_table(d).rows.front()[1].text == "memcpy");

  // (b) 614 ops (546 kernels, 38 copies, 30 memsets; correlation ids 1930403..1936855, the first
  // launch call is 1936889) were launched before test.json begins: their own row, first, spanning
  // 265125 .. 304367 us; step 1009's GPU span is its own ops' (156645 us, not 157370 us)
  CHECK(d.before_a == 0);
  CHECK(d.before_b == 614);
  REQUIRE(d.steps.size() == 7);
  CHECK(d.steps[0].before_first);
  CHECK(d.steps[0].name_b == "before the first step");
  CHECK(d.steps[0].host_b == 0);
  CHECK(d.steps[0].gpu_a == 0);
  CHECK(d.steps[0].gpu_b == 39242000);
  CHECK(d.steps[1].name_a == "ProfilerStep#1009");
  CHECK(d.steps[1].gpu_a == 75103000);
  CHECK(d.steps[1].gpu_b == 156645000);
  CHECK(d.offset() == d.steps[1].start_b - d.steps[1].start_a);
  CHECK(diff_steps_table(d).rows.size() == 7);

  // (c) one GPU process each (rank 3 on GPU 3, rank 1 on GPU 1): paired by position; stream 7 by
  // id, 20/21/22 with 14/15/16 by order (ops per step: 47 / 48, 10 / 10, 24 / 24)
  CHECK(d.ranks_paired == "by position (one rank on each side): A's rank 3 with B's rank 1 (streams 20,21,22 with 14,15,16 by order)");
  REQUIRE(d.tracks.size() == 4);
  for (const TrackDiff& t : d.tracks) {
    CHECK(t.track_a >= 0);
    CHECK(t.track_b >= 0);
  }
  const auto s20 = std::find_if(d.tracks.begin(), d.tracks.end(), [](const TrackDiff& t) { return t.label.find("stream 20") != std::string::npos; });
  REQUIRE(s20 != d.tracks.end());
  CHECK(s20->label == "rank 3 GPU 3 stream 20 ~ B rank 1 GPU 1 stream 14");
  CHECK(s20->count_a == 282);
  CHECK(s20->count_b == 288);
  // by hand: the same pairing; a rank the trace lacks is an error naming the ranks it has
  DiffOptions o;
  o.rank_map = {{3, 1}};
  CHECK(diff_traces(a, b, o).tracks.size() == 4);
  o.rank_map = {{0, 1}};
  CHECK_THROWS_WITH(diff_traces(a, b, o), Catch::Contains("A has no rank 0") && Catch::Contains("its ranks: 3"));
}
