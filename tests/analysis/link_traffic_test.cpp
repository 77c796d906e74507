#include <catch2/catch.hpp>

#include "test_paths.h"
#include "trace/core/analysis/link_traffic.h"
#include "trace/core/trace_builder.h"
#include "trace/io/load_trace.h"

using namespace parascope;

namespace {

// rank 0 / GPU 0 and rank 1 / GPU 1:
//   peer copy GPU0→GPU1 1000 B over [0,100)   → 10 GB/s
//   peer copy GPU0→GPU1  500 B over [50,100)  → 10 GB/s (20 GB/s together in [50,100))
//   all-reduce of 1024 floats (S = 4096 B, 2 ranks, factor 1): rank 0 [1000,1100) → 40.96 GB/s
//     on GPU0→GPU1, rank 1 [1020,1100) → 51.2 GB/s on GPU1→GPU0 (a complete 2-rank match)
//   all-gather on rank 0 only, S = 1024 floats = 4096 B, factor 1/2 → 2048 B over [2000,2100)
//     on GPU0's egress to the fabric (20.48 GB/s): unmatched, so the peer is unknown
//   a bare ncclDevKernel_SendRecv on rank 1 with no annotation: counted as unsized
Trace link_trace() {
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
  auto copy = [&](TimeNs start, TimeNs dur, uint64_t bytes) {
    MemcpyInfo m;
    m.bytes = U64Split(bytes);
    m.copy_kind = CopyKind::kPtoP;
    m.src_device = 0;
    m.dst_device = 1;
    b.add_slice(stream[0], start, dur, b.intern("Memcpy PtoP"), b.add_memcpy(m));
  };
  copy(0, 100, 1000);
  copy(50, 50, 500);
  auto coll = [&](int rank, TimeNs start, TimeNs dur, CollectiveOp op, uint64_t in, uint64_t out) {
    CollectiveInfo c;
    c.op = op;
    c.in_elements = in;
    c.out_elements = out;
    c.dtype_bytes = 4;
    c.group_size = 2;
    c.group = b.intern("0");
    c.group_ranks = b.intern("[0, 1]");
    c.rank = rank;
    c.kernel = b.add_slice(stream[static_cast<size_t>(rank)], start, dur, b.intern("nccl"), b.add_kernel({}));
    b.add_collective(c);
  };
  coll(0, 1000, 100, CollectiveOp::kAllReduce, 1024, 1024);
  coll(1, 1020, 80, CollectiveOp::kAllReduce, 1024, 1024);
  coll(0, 2000, 100, CollectiveOp::kAllGather, 512, 1024);
  b.add_slice(stream[1], 3000, 10, b.intern("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)"), b.add_kernel({}));
  return b.finish();
}

}  // namespace

TEST_CASE("Link traffic from peer copies and collectives on a hand-worked example", "[analysis][links]") {
  Trace t = link_trace();
  LinkTrafficOptions o;
  o.capacity_bytes_per_s = 100e9;
  const LinkTraffic lt = estimate_link_traffic(t, o);
  CHECK(lt.peer_copies == 2);
  CHECK(lt.collectives == 3);
  CHECK(lt.unannotated_comm_kernels == 1);
  REQUIRE(lt.links.size() == 3);  // (0→1), (0→fabric), (1→0)
  const LinkSeries& a = lt.links[0];
  CHECK(a.link.src_device == 0);
  CHECK(a.link.dst_device == 1);
  CHECK(a.name == "rank 0 GPU 0 \xE2\x86\x92 rank 1 GPU 1");
  CHECK(a.time == std::vector<TimeNs>{0, 50, 100, 1000, 1100});
  REQUIRE(a.bytes_per_s.size() == 5);
  CHECK(a.bytes_per_s[0] == Approx(10e9));
  CHECK(a.bytes_per_s[1] == Approx(20e9));
  CHECK(a.bytes_per_s[2] == 0.0);
  CHECK(a.bytes_per_s[3] == Approx(40.96e9));
  CHECK(a.bytes_per_s[4] == 0.0);
  CHECK(a.bytes == 1000 + 500 + 4096);
  CHECK(a.transfers == 3);
  CHECK(a.active_ns == 200);
  CHECK(a.peak_utilization() == Approx(0.4096));
  // 5596 bytes over 200 active ns = 27.98 GB/s of 100 GB/s
  CHECK(a.mean_active_utilization() == Approx(0.2798));
  const LinkSeries& fabric = lt.links[1];
  CHECK(fabric.link.dst_device == kNoDevice);
  CHECK(fabric.bytes == 2048);
  CHECK(fabric.peak_bytes_per_s == Approx(20.48e9));
  const LinkSeries& back = lt.links[2];
  CHECK(back.link.src_device == 1);
  CHECK(back.time == std::vector<TimeNs>{1020, 1100});
  CHECK(back.bytes_per_s[0] == Approx(51.2e9));

  const size_t tracks_before = t.tracks.size();
  CHECK(append_link_counter_tracks(t, lt) == 3);
  REQUIRE(t.tracks.size() == tracks_before + 3);
  const Track& track = t.tracks[tracks_before];
  CHECK(track.key.kind == TrackKind::kLink);
  CHECK(track.key.device == 0);
  CHECK(track.counter_source == CounterSource::kEstimated);
  CHECK(t.str(track.unit) == "bytes/s");
  CHECK(t.str(track.name) == "rank 0 GPU 0 \xE2\x86\x92 rank 1 GPU 1 (estimated)");
  CHECK(track.counter.time == a.time);
  CHECK(t.links.size() == 3);
  CHECK(t.links[static_cast<size_t>(track.key.id)].dst_device == 1);
  // a second estimate never lands on the first one's kLink tracks
  CHECK(append_link_counter_tracks(t, lt) == 3);
  CHECK(t.tracks.back().key.kind == TrackKind::kCounter);
}

TEST_CASE("Link traffic on the bundled 2 x H200 sample", "[analysis][links][real]") {
  const std::string s = "allreduce_matmul_2xh200/";
  const Trace t = load_trace({test::sample_path(s + "rank0.json"), test::sample_path(s + "rank1.json")});
  const LinkTraffic lt = estimate_link_traffic(t);
  // README: per rank 3 all-reduces of 16 MiB with "Collective name" (matched pairwise) and
  // 3 ncclDevKernel_SendRecv without any size; the copies are DtoH, not peer traffic
  CHECK(lt.peer_copies == 0);
  CHECK(lt.collectives == 6);
  CHECK(lt.unannotated_comm_kernels == 6);
  REQUIRE(lt.links.size() == 2);
  // 2 ranks: factor 2(2−1)/2 = 1, so each rank sends 3 × 16777216 bytes to the other
  CHECK(lt.links[0].bytes == 3ull * 16777216);
  CHECK(lt.links[1].bytes == 3ull * 16777216);
  CHECK(lt.links[0].link.dst_device == 1);
  // rank 0's first all-reduce ran 241246 ns: 16777216 B / 241246 ns = 69.544 GB/s on GPU0→GPU1
  CHECK(lt.links[0].bytes_per_s[0] == Approx(69544017310.13156).epsilon(1e-9));
  // kernel times 241246 + 118815 + 78688 ns, none overlapping
  CHECK(lt.links[0].active_ns == 438749);
  CHECK(lt.links[0].capacity_bytes_per_s == 0.0);  // the Kineto files carry no topology
}
