#include <catch2/catch.hpp>

#include <algorithm>

#include "example_trace.h"
#include "test_paths.h"
#include "trace/core/analysis/kernel_stats.h"
#include "trace/core/trace_builder.h"
#include "trace/io/load_trace.h"

using namespace parascope;

TEST_CASE("Nearest-rank percentiles", "[analysis][kernel_stats]") {
  const std::vector<TimeNs> v = {10, 20, 30, 40, 50};
  CHECK(nearest_rank_percentile(v, 50) == 30);   // ceil(2.5) = 3rd
  CHECK(nearest_rank_percentile(v, 95) == 50);   // ceil(4.75) = 5th
  CHECK(nearest_rank_percentile(v, 20) == 10);   // ceil(1.0) = 1st
  CHECK(nearest_rank_percentile(v, 21) == 20);   // ceil(1.05) = 2nd
  CHECK(nearest_rank_percentile({}, 50) == 0);
}

TEST_CASE("Kernel statistics per device and overall on the hand-worked example", "[analysis][kernel_stats]") {
  const auto ex = test::make_example_trace();
  const KernelStats ks = kernel_stats(ex.trace);
  // overall: gemm 100, 100, 10 (total 210); fused_allreduce 150; relu 10..50 (total 150)
  REQUIRE(ks.overall.rows.size() == 3);
  CHECK(ks.overall.kernels == 9);
  CHECK(ks.overall.total_ns == 510);
  const KernelStat& gemm = ks.overall.rows[0];
  CHECK(ex.trace.str(gemm.name) == "gemm");
  CHECK(gemm.count == 3);
  CHECK(gemm.total_ns == 210);
  CHECK(gemm.mean_ns == Approx(70.0));
  CHECK(gemm.p50_ns == 100);  // sorted 10, 100, 100: ceil(1.5) = 2nd
  CHECK(gemm.p95_ns == 100);
  CHECK(gemm.min_ns == 10);
  CHECK(gemm.max_ns == 100);
  CHECK(gemm.category == Category::kCompute);
  // ties on total (150) order by name: fused_allreduce before relu
  CHECK(ex.trace.str(ks.overall.rows[1].name) == "fused_allreduce");
  CHECK(ks.overall.rows[1].category == Category::kCommunication);
  CHECK(ex.trace.str(ks.overall.rows[2].name) == "relu");
  REQUIRE(ks.per_device.size() == 2);
  // device 1: relu 10,20,30,40,50 → mean 30, p50 30, p95 50; gemm 10
  const KernelStatsTable& d1 = ks.per_device[1];
  CHECK(d1.device == 1);
  REQUIRE(d1.rows.size() == 2);
  CHECK(ex.trace.str(d1.rows[0].name) == "relu");
  CHECK(d1.rows[0].count == 5);
  CHECK(d1.rows[0].mean_ns == Approx(30.0));
  CHECK(d1.rows[0].p50_ns == 30);
  CHECK(d1.rows[0].p95_ns == 50);
  CHECK(d1.rows[1].total_ns == 10);
  // device 0: gemm 200, fused_allreduce 150
  CHECK(ks.per_device[0].kernels == 3);
  CHECK(ks.per_device[0].rows[0].total_ns == 200);
}

TEST_CASE("Kernel statistics on real 2 x H200 traces", "[analysis][kernel_stats][real]") {
  // python3 tests/analysis/expected_values.py (nearest-rank percentiles over the kernel durations)
  SECTION("bundled sample, rank 0: the NCCL all-reduce kernel dominates") {
    const Trace t = load_trace({test::sample_path("allreduce_matmul_2xh200/rank0.json")});
    const KernelStats ks = kernel_stats(t);
    REQUIRE(!ks.per_device[0].rows.empty());
    const KernelStat& top = ks.per_device[0].rows[0];
    CHECK(t.str(top.name).rfind("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 0) == 0);
    // durations 241246, 118815, 78688 ns
    CHECK(top.count == 3);
    CHECK(top.total_ns == 438749);
    CHECK(top.p50_ns == 118815);
    CHECK(top.p95_ns == 241246);
    CHECK(top.min_ns == 78688);
    CHECK(top.max_ns == 241246);
    CHECK(top.category == Category::kCommunication);
    CHECK(ks.per_device[0].kernels == 21);
  }
  SECTION("a collector recording: its own clock-sync kernel is not the user's (issue 18 item 10)") {
    const Trace t = load_trace({test::sample_path("record_torch_nccl_2xh200/vm-3490-r0.pstrace")});
    const KernelStats ks = kernel_stats(t);
    // one parascope_clock_sync launch on the rank's GPU, which `stats` listed as a compute kernel
    CHECK(ks.overall.collector_kernels == 1);
    for (const KernelStat& r : ks.overall.rows) CHECK(t.str(r.name) != kCollectorClockSyncKernel);
    int64_t on_devices = 0;
    for (const KernelStatsTable& d : ks.per_device) on_devices += d.collector_kernels;
    CHECK(on_devices == 1);
  }
  SECTION("tensor-parallel capture, both ranks: the big GEMM") {
    const Trace t = load_trace({test::source_path("resources/captures/h200x2_2026-11-30/tp_overlap_b1")});
    const KernelStats ks = kernel_stats(t);
    REQUIRE(ks.per_device.size() == 2);
    // rank 0: nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NNT × 8, total 6043126, p50 739355, p95 790618
    const KernelStat& r0 = ks.per_device[0].rows[0];
    CHECK(t.str(r0.name) == "nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NNT");
    CHECK(r0.count == 8);
    CHECK(r0.total_ns == 6043126);
    CHECK(r0.p50_ns == 739355);
    CHECK(r0.p95_ns == 790618);
    CHECK(r0.min_ns == 731803);
    // rank 1 (gzipped file): × 8, total 6253590, p50 771771, p95 818554, min 759579
    const KernelStat& r1 = ks.per_device[1].rows[0];
    CHECK(r1.total_ns == 6253590);
    CHECK(r1.p50_ns == 771771);
    CHECK(r1.p95_ns == 818554);
    CHECK(r1.min_ns == 759579);
    // overall: the 16 launches of both ranks together
    CHECK(ks.overall.rows[0].count == 16);
    CHECK(ks.overall.rows[0].total_ns == 6043126 + 6253590);
    CHECK(ks.overall.kernels == 64);  // 32 kernels per rank
  }
}

namespace {

// Device 0: a kernel record and a probe span inside no kernel (left unlinked); device 1: probes
// only — "ag_fused" launches 1 and 2 (communicate / wait spans on two SMs each), "gemm_probe"
// launch 3 (a compute span), and a span of a buffer without a kernel name (named by its role).
Trace probe_trace() {
  TraceBuilder b;
  Process p;
  const uint32_t proc = b.add_process(p);
  for (int o = 0; o < 2; ++o) {
    Device d;
    d.process = proc;
    d.ordinal = o;
    b.add_device(d);
  }
  const uint32_t stream = b.track({TrackKind::kGpuStream, proc, 0, 7}, "stream 7");
  b.add_slice(stream, 0, 50, b.intern("cupti_kernel"), b.add_kernel(KernelInfo{}));
  auto span = [&](int32_t dev, int sm, TimeNs start, TimeNs dur, const char* name, uint32_t launch, SmRole role) {
    const uint32_t t = b.track({TrackKind::kSmLane, proc, dev, sm}, "SM " + std::to_string(sm));
    SmSpanInfo s;
    s.launch_id = launch;
    s.role = role;
    b.add_slice(t, start, dur, b.intern(name), b.add_sm_span(s));
  };
  span(0, 0, 100, 10, "ag_fused", 9, SmRole::kCommunicate);  // device 0 has kernel records: not a kernel
  span(1, 0, 100, 200, "ag_fused", 1, SmRole::kCommunicate);  // launch 1: 100 .. 400
  span(1, 1, 150, 250, "ag_fused", 1, SmRole::kWait);
  span(1, 0, 1'000, 100, "ag_fused", 2, SmRole::kCommunicate);  // launch 2: 1000 .. 1150
  span(1, 1, 1'050, 100, "ag_fused", 2, SmRole::kCommunicate);
  span(1, 2, 2'000, 80, "gemm_probe", 3, SmRole::kCompute);  // launch 3: 80 ns
  span(1, 3, 3'000, 500, "communicate", 4, SmRole::kCommunicate);  // no kernel name
  return b.finish();
}

}  // namespace

TEST_CASE("A device with probe spans and no kernel records counts each probe launch as a kernel", "[analysis][kernel_stats][probes]") {
  // issue 18: a probe-only trace showed "0 kernels"
  const Trace t = probe_trace();
  const KernelStats ks = kernel_stats(t);
  REQUIRE(ks.per_device.size() == 2);
  // device 0: its kernel record only
  REQUIRE(ks.per_device[0].rows.size() == 1);
  CHECK(t.str(ks.per_device[0].rows[0].name) == "cupti_kernel");
  CHECK(ks.per_device[0].probe_kernels == 0);
  // device 1: two launches of ag_fused (300 and 150 ns), one of gemm_probe (80 ns)
  const KernelStatsTable& d1 = ks.per_device[1];
  CHECK(d1.kernels == 3);
  CHECK(d1.probe_kernels == 3);
  CHECK(d1.total_ns == 530);
  REQUIRE(d1.rows.size() == 2);
  CHECK(t.str(d1.rows[0].name) == "ag_fused");
  CHECK(d1.rows[0].count == 2);
  CHECK(d1.rows[0].total_ns == 450);
  CHECK(d1.rows[0].min_ns == 150);
  CHECK(d1.rows[0].max_ns == 300);
  CHECK(d1.rows[0].category == Category::kCommunication);  // its probes only communicate and wait
  CHECK(t.str(d1.rows[1].name) == "gemm_probe");
  CHECK(d1.rows[1].total_ns == 80);
  CHECK(d1.rows[1].category == Category::kCompute);
  CHECK(ks.overall.kernels == 4);
  CHECK(ks.overall.probe_kernels == 3);
}

TEST_CASE("The probe-only fused sample has its kernels' statistics", "[analysis][kernel_stats][probes][real]") {
  const Trace t = load_trace({test::sample_path("fused_probe_2xh200/fused_probe.pstrace")});
  const KernelStats ks = kernel_stats(t);
  // 12 probe buffers (README): 2 kernels x 3 buffers (barrier, push, wait) on each of 2 GPUs
  CHECK(ks.overall.kernels == 12);
  CHECK(ks.overall.probe_kernels == 12);
  REQUIRE(ks.overall.rows.size() == 6);
  REQUIRE(ks.per_device.size() == 2);
  for (const KernelStatsTable& d : ks.per_device) {
    CHECK(d.kernels == 6);
    CHECK(d.rows.size() == 6);
  }
  // first to last span of the all-gather + GEMM's push buffer on GPU 1 (Python, decimal, over its
  // 32 spans in `convert`'s JSON: 1796037666730851.584 .. 1796037666731217.408 us)
  const auto push = std::find_if(ks.per_device[1].rows.begin(), ks.per_device[1].rows.end(),
                                 [&](const KernelStat& s) { return t.str(s.name) == "ag_gemm_fused_tma_8sm_8192x8192x8192/push"; });
  REQUIRE(push != ks.per_device[1].rows.end());
  CHECK(push->count == 1);
  CHECK(push->total_ns == 365824);
  CHECK(push->category == Category::kCommunication);
}
