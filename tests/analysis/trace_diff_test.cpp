// trace_diff on the real 2 x H200 traces: two runs of the same tensor-parallel step, NCCL at its
// default channels (tp_serial_b1) and limited to 4 (tp_serial_b1_nch4). Expected numbers were
// worked out from the raw Kineto JSON with Python (json + gzip): each rank's ProfilerStep#N `dur`
// and the summed `dur` of the ncclDevKernel_AllReduce kernels.
#include <catch2/catch.hpp>

#include <algorithm>
#include <regex>

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

  // one compute stream per GPU (stream 7), 8 kernels per step (Memset excluded: not a kernel)
  REQUIRE(d.tracks.size() == 2);
  CHECK(d.tracks[0].label == "rank 0 GPU 0 stream 7");
  CHECK(d.tracks[1].label == "rank 1 GPU 1 stream 7");
  for (const TrackDiff& t : d.tracks) {
    CHECK(t.count_a == 32);
    CHECK(t.count_b == 32);
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
