#include <catch2/catch.hpp>

#include "models/timeline_index.h"
#include "trace/core/analysis/busy_idle.h"
#include "trace/core/trace_builder.h"

using namespace parascope;
using namespace parascope::models;

namespace {

// Rank 0, GPU 0: stream 7 computes on [0, 400) and sets memory on [800, 900); stream 17 runs an
// all-reduce on [200, 700) and waits on [1000, 2000); SM lane 0 computes on [5000, 6000) (a probe
// span inside some kernel: not device-level activity, the device has streams). Rank 1, GPU 1: only
// a wait. GPU 2 of a probe-only rank 2: SM 0 computes on [0, 100), SM 1 communicates on [50, 150).
Trace activity_trace() {
  TraceBuilder b;
  Device d;
  Process p;
  p.rank = 0;
  d.process = b.add_process(p);
  const auto g0 = static_cast<int32_t>(b.add_device(d));
  const uint32_t s7 = b.track({TrackKind::kGpuStream, d.process, g0, 7}, "stream 7");
  const uint32_t s17 = b.track({TrackKind::kGpuStream, d.process, g0, 17}, "stream 17");
  b.add_slice(s7, 0, 400, b.intern("gemm"), b.add_kernel(KernelInfo{}));
  b.add_slice(s7, 800, 100, b.intern("memset"), b.add_memset(MemsetInfo{}));
  b.add_slice(s17, 200, 500, b.intern("ncclDevKernel_AllReduce_Sum_f32_RING_LL"), b.add_kernel(KernelInfo{}));
  b.add_slice(s17, 1'000, 1'000, b.intern("wait"), b.add_sync(SyncInfo{}));
  SmSpanInfo compute;
  compute.role = SmRole::kCompute;
  b.add_slice(b.track({TrackKind::kSmLane, d.process, g0, 0}, "SM 0"), 5'000, 1'000, b.intern("tile"), b.add_sm_span(compute));
  p.rank = 1;
  d.process = b.add_process(p);
  const auto g1 = static_cast<int32_t>(b.add_device(d));
  b.add_slice(b.track({TrackKind::kGpuStream, d.process, g1, 7}, "stream 7"), 0, 500, b.intern("wait"), b.add_sync(SyncInfo{}));
  p.rank = 2;
  d.process = b.add_process(p);
  const auto g2 = static_cast<int32_t>(b.add_device(d));
  SmSpanInfo comm;
  comm.role = SmRole::kCommunicate;
  b.add_slice(b.track({TrackKind::kSmLane, d.process, g2, 0}, "SM 0"), 0, 100, b.intern("tile"), b.add_sm_span(compute));
  b.add_slice(b.track({TrackKind::kSmLane, d.process, g2, 1}, "SM 1"), 50, 100, b.intern("push"), b.add_sm_span(comm));
  return b.finish();
}

}  // namespace

TEST_CASE("ActivitySummary: a folded GPU's busy share over time, each moment once, as busy/idle counts it", "[app][lod][activity]") {
  const Trace t = activity_trace();
  const TimelineIndex index(t);
  const ActivitySummary& a = index.activity(0);
  REQUIRE(!a.empty());
  REQUIRE(a.tracks() == std::vector<uint32_t>{0, 1});  // the two streams, not the SM lane
  REQUIRE(a.busy_slices() == 3);                         // the wait is not busy work
  // busy: [0, 700) ∪ [800, 900) = 800 ns, the overlap [200, 400) once; stats' busy/idle agrees
  REQUIRE(a.busy_ns() == 800);
  const std::vector<BusyIdle> bi = busy_idle(t);
  REQUIRE(bi[0].busy_ns() == 800);

  // grid: 3 busy slices over [0, 900) at one per bucket: 300 ns, rounded up to 512; 900 / 512 → 2 buckets
  const LodGrid& g = a.pyramid().grid();
  REQUIRE(g.bucket_ns == 512);
  REQUIRE(g.buckets0 == 2);
  SECTION("from the pyramid: the busy share of each bucket and the work that took most of it") {
    // [0, 512): covered 512; compute 400 ns, communication 312 ns → compute
    // [512, 1024): covered 188 + 100 = 288 → 288 / 512 = 0.5625 → ceil(17.4) = 18; communication 188, memory 100
    REQUIRE(a.pyramid().cell(0, 0).share == 1.0f);
    REQUIRE(a.pyramid().cell(0, 0).category == Category::kCompute);
    REQUIRE(a.pyramid().cell(0, 1).share == Approx(18.0 / 31));
    REQUIRE(a.pyramid().cell(0, 1).category == Category::kCommunication);
    // top (1024 ns): 800 / 1024 → ceil(24.2) = 25; compute 400 < communication 500
    REQUIRE(a.pyramid().cell(1, 0).share == Approx(25.0 / 31));
    REQUIRE(a.pyramid().cell(1, 0).category == Category::kCommunication);
    Coverage px[2];
    size_t walked = 0;
    index.sample_activity(0, 0.0, 512.0, 2, px, &walked);  // a pixel per bucket
    REQUIRE(walked == 0);
    REQUIRE(px[0].share == 1.0f);
    REQUIRE(px[1].share == Approx(18.0 / 31));
    REQUIRE(px[1].category == Category::kCommunication);
  }
  SECTION("finer than a bucket: the slices themselves, exact to the nanosecond") {
    std::vector<Coverage> px(2'000);
    size_t walked = 0;
    index.sample_activity(0, 0.0, 1.0, 2'000, px.data(), &walked);
    REQUIRE(walked == 4);  // the four stream slices in [0, 2000]
    REQUIRE(px[100].share == 1.0f);
    REQUIRE(px[100].category == Category::kCompute);
    REQUIRE(px[300].share == 1.0f);  // compute and communication together: busy once
    REQUIRE(px[650].share == 1.0f);
    REQUIRE(px[650].category == Category::kCommunication);
    REQUIRE(px[750].share == 0.0f);  // idle between the all-reduce and the memset
    REQUIRE(px[850].category == Category::kMemory);
    REQUIRE(px[1'500].share == 0.0f);  // waiting is never busy
    // half a pixel of work: [699.5, 700.5) holds the all-reduce's last half nanosecond
    Coverage half;
    index.sample_activity(0, 699.5, 1.0, 1, &half);
    REQUIRE(half.share == Approx(0.5));
  }
  SECTION("a GPU that only waited has nothing to show; a probe-only GPU shows its SM spans") {
    REQUIRE(index.activity(1).empty());
    Coverage px[4];
    index.sample_activity(1, 0.0, 100.0, 4, px);
    REQUIRE(px[0].share == 0.0f);
    const ActivitySummary& probe = index.activity(2);
    REQUIRE(probe.tracks().size() == 2);
    REQUIRE(probe.busy_ns() == 150);  // [0, 100) ∪ [50, 150)
    REQUIRE(bi[2].busy_ns() == 150);
    REQUIRE(index.activity(7).empty());  // no such device
  }
}
