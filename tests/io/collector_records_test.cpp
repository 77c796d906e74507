#include <catch2/catch.hpp>

#include "trace/core/error.h"
#include "trace/io/collector/collector_records.h"
#include "trace/io/collector/nccl_records.h"

using namespace parascope;
using namespace parascope::collector;

namespace {

CollectedActivity round_trip(const CollectedActivity& a) {
  ByteWriter w;
  encode(w, a);
  ByteReader r(w.bytes().data(), w.size(), "mem", 0);
  CollectedActivity b = decode(r);
  REQUIRE(r.done());
  return b;
}

}  // namespace

TEST_CASE("Kernel records keep launch geometry, graph ids and queue times", "[io][collector]") {
  CollectedActivity k;
  k.kind = RecordKind::kKernel;
  k.start_ns = 1'790'000'000'000'000'100ull;
  k.end_ns = k.start_ns + 25'000;
  k.device = 1, k.context = 3, k.stream = 13, k.correlation = 4242;
  k.name = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
  k.grid[0] = 24, k.block[0] = 512, k.cluster[0] = 1;
  k.registers = 96, k.static_smem = 1024, k.dynamic_smem = 38144, k.shared_mem_executed = 233472;
  k.graph_id = 7, k.graph_node_id = 0x1'0000'0002ull;
  k.local_mem_per_thread = 0, k.local_mem_total = 1ull << 33;
  k.grid_id = -3;
  k.queued_ns = k.start_ns - 5'000, k.submitted_ns = k.start_ns - 1'200;
  k.launch_type = 0, k.channel_id = 2, k.channel_type = 1, k.device_launched = 0;
  const CollectedActivity b = round_trip(k);
  CHECK(b.kind == RecordKind::kKernel);
  CHECK(b.start_ns == k.start_ns);
  CHECK(b.end_ns == k.start_ns + 25'000);
  CHECK(b.device == 1);
  CHECK(b.stream == 13);
  CHECK(b.correlation == 4242);
  CHECK(b.name == k.name);
  CHECK(b.grid[0] == 24);
  CHECK(b.block[0] == 512);
  CHECK(b.dynamic_smem == 38144);
  CHECK(b.shared_mem_executed == 233472);
  CHECK(b.graph_id == 7);
  CHECK(b.graph_node_id == 0x1'0000'0002ull);
  CHECK(b.local_mem_total == (1ull << 33));
  CHECK(b.grid_id == -3);
  CHECK(b.queued_ns == k.start_ns - 5'000);
  CHECK(b.submitted_ns == k.start_ns - 1'200);
  CHECK(b.channel_id == 2);
  CHECK(b.channel_type == 1);
}

TEST_CASE("Peer copies keep source and destination devices and API records keep their name", "[io][collector]") {
  CollectedActivity m;
  m.kind = RecordKind::kMemcpy;
  m.peer = true;
  m.start_ns = 1000, m.end_ns = 1000 + 640;
  m.device = 0, m.src_device = 0, m.dst_device = 1, m.src_context = 1, m.dst_context = 2;
  m.bytes = 64ull << 20, m.copy_kind = 10;  // CUPTI_ACTIVITY_MEMCPY_KIND_PTOP
  const CollectedActivity b = round_trip(m);
  CHECK(b.peer);
  CHECK(b.src_device == 0);
  CHECK(b.dst_device == 1);
  CHECK(b.dst_context == 2);
  CHECK(b.bytes == (64ull << 20));
  CHECK(b.copy_kind == 10);

  CollectedActivity api;
  api.kind = RecordKind::kApi;
  api.api_domain = ApiDomain::kDriver;
  api.cbid = 652, api.name = "cuLaunchKernelEx", api.pid = 77, api.tid = 78, api.correlation = 9;
  api.start_ns = 50, api.end_ns = 57;
  const CollectedActivity c = round_trip(api);
  CHECK(c.api_domain == ApiDomain::kDriver);
  CHECK(c.name == "cuLaunchKernelEx");
  CHECK(c.tid == 78);
  CHECK(c.end_ns - c.start_ns == 7);
}

TEST_CASE("Markers, NVLink topology, clock syncs and counter samples round-trip", "[io][collector]") {
  CollectedActivity mk;
  mk.kind = RecordKind::kMarker;
  mk.start_ns = mk.end_ns = 123456789;
  mk.marker_id = 5, mk.flags = 2, mk.object_kind = 2, mk.object_id[0] = 100, mk.object_id[1] = 101;
  mk.name = "step 3", mk.domain = "NCCL";
  CollectedActivity b = round_trip(mk);
  CHECK(b.name == "step 3");
  CHECK(b.domain == "NCCL");
  CHECK(b.object_id[1] == 101);
  CHECK(b.start_ns == 123456789);

  CollectedActivity nv;
  nv.kind = RecordKind::kNvLink;
  nv.nvlink_version = 4, nv.dev_type[0] = 1, nv.dev_type[1] = 2;
  nv.dev_id[0] = "GPU-01234567-89ab-cdef-0123-456789abcdef", nv.dev_id[1] = "npu:0:3";
  nv.physical_links = 18, nv.ports[0] = {0, 1, 17}, nv.bandwidth_kbps = 26'562'500, nv.nvswitch_connected = true;
  b = round_trip(nv);
  CHECK(b.dev_id[1] == "npu:0:3");
  CHECK(b.ports[0] == std::vector<int8_t>{0, 1, 17});
  CHECK(b.ports[1].empty());
  CHECK(b.physical_links == 18);
  CHECK(b.nvswitch_connected);

  CollectedActivity cs;
  cs.kind = RecordKind::kClockSync;
  cs.device = 1, cs.clock = ClockDomain::kGlobalTimer, cs.offset_ns = -1234, cs.uncertainty_ns = 700, cs.samples = 32;
  cs.start_ns = 99;
  b = round_trip(cs);
  CHECK(b.offset_ns == -1234);
  CHECK(b.clock == ClockDomain::kGlobalTimer);
  CHECK(b.uncertainty_ns == 700);

  CollectedActivity sample;
  sample.kind = RecordKind::kCounterSample;
  sample.device = 0, sample.name = "nvltx__bytes.sum", sample.start_ns = 10, sample.end_ns = 1'000'010;
  sample.clock = ClockDomain::kGlobalTimer, sample.counter_value = 1.5e9;
  b = round_trip(sample);
  CHECK(b.name == "nvltx__bytes.sum");
  CHECK(b.counter_value == 1.5e9);
  CHECK(b.end_ns == 1'000'010);
}

TEST_CASE("Unknown record kinds are skipped and longer bodies tolerated; short bodies are errors", "[io][collector]") {
  ByteWriter w;
  // a future kind 200 with a 3-byte body, then a memset
  w.u8(200);
  w.varint(3);
  w.u8(1), w.u8(2), w.u8(3);
  CollectedActivity ms;
  ms.kind = RecordKind::kMemset;
  ms.start_ns = 7, ms.end_ns = 9, ms.bytes = 4096, ms.value = 0;
  encode(w, ms);
  {
    ByteReader r(w.bytes().data(), w.size(), "mem", 0);
    const auto all = decode_all(r);
    REQUIRE(all.size() == 1);
    CHECK(all[0].kind == RecordKind::kMemset);
    CHECK(all[0].bytes == 4096);
  }
  SECTION("a body that grew at its end (a newer writer) still decodes") {
    ByteWriter g;
    ByteWriter body;
    CollectedActivity d;
    d.kind = RecordKind::kDropped;
    d.stream = 3, d.count = 17;
    encode(body, d);  // u8 kind, v len, body
    // rebuild with two extra bytes appended to the body
    ByteReader br(body.bytes().data(), body.size(), "mem", 0);
    br.u8();
    const uint64_t n = br.varint();
    g.u8(static_cast<uint8_t>(RecordKind::kDropped));
    g.varint(n + 2);
    g.raw(br.raw(n), n);
    g.u8(0xAA), g.u8(0xBB);
    ByteReader r(g.bytes().data(), g.size(), "mem", 0);
    const CollectedActivity x = decode(r);
    CHECK(x.kind == RecordKind::kDropped);
    CHECK(x.count == 17);
    CHECK(r.done());
  }
  SECTION("a body shorter than its kind needs names the kind and the file offset") {
    ByteWriter t;
    t.u8(static_cast<uint8_t>(RecordKind::kKernel));
    t.varint(2);
    t.u8(1), t.u8(2);
    ByteReader r(t.bytes().data(), t.size(), "x.pstrace", 500);
    REQUIRE_THROWS_WITH(decode(r), Catch::StartsWith("x.pstrace (byte 504): truncated kernel record (2 bytes)"));
  }
}

TEST_CASE("NCCL records round-trip and map NCCL names to the model's vocabulary", "[io][collector][nccl]") {
  NcclRecord c;
  c.kind = NcclRecordKind::kCollective;
  c.comm_hash = 0xfeedbeefcafe1234ull, c.rank = 1, c.sequence = 41, c.func = "AllReduce", c.count = 16 << 20;
  c.datatype = "ncclBfloat16", c.root = -1, c.channels = 24, c.warps = 16, c.algorithm = "RING", c.protocol = "SIMPLE";
  c.group = 9, c.launch = 12, c.stream = 0x55aa00ull, c.start_ns = 100, c.end_ns = 130, c.api_start_ns = 40;
  c.api_end_ns = 60, c.tid = 3141;
  ByteWriter w;
  encode(w, c);
  ByteReader r(w.bytes().data(), w.size(), "mem", 0);
  const NcclRecord b = decode_nccl(r);
  CHECK(b.comm_hash == 0xfeedbeefcafe1234ull);
  CHECK(b.sequence == 41);
  CHECK(b.datatype == "ncclBfloat16");
  CHECK(b.algorithm == "RING");
  CHECK(b.channels == 24);
  CHECK(b.launch == 12);
  CHECK(b.api_end_ns == 60);
  CHECK(b.tid == 3141);

  CHECK(nccl_op("AllReduce") == CollectiveOp::kAllReduce);
  CHECK(nccl_op("ReduceScatter") == CollectiveOp::kReduceScatter);
  CHECK(nccl_op("AlltoAll") == CollectiveOp::kAllToAll);
  CHECK(nccl_op("SendRecv") == CollectiveOp::kSendRecv);
  CHECK(nccl_dtype_bytes("ncclBfloat16") == 2);
  CHECK(nccl_dtype_bytes("ncclFloat8e4m3") == 1);
  CHECK(nccl_dtype_bytes("ncclUint64") == 8);
  CHECK(nccl_dtype_bytes("Unknown") == 0);
  uint64_t in = 0, out = 0;
  nccl_elements(CollectiveOp::kAllGather, 1000, 8, &in, &out);  // sendcount 1000 on 8 ranks
  CHECK(in == 1000);
  CHECK(out == 8000);
  nccl_elements(CollectiveOp::kReduceScatter, 1000, 8, &in, &out);  // recvcount 1000
  CHECK(in == 8000);
  CHECK(out == 1000);
}

TEST_CASE("NCCL operations link to their kernel through the launch serial or the launching thread", "[io][collector][nccl]") {
  std::vector<NcclRecord> recs(4);
  // launch 1 carries its correlation (the collector's driver callback saw cuLaunchKernelEx)
  recs[0].kind = NcclRecordKind::kKernelLaunch, recs[0].launch = 1, recs[0].group = 5, recs[0].correlation = 700;
  recs[1].kind = NcclRecordKind::kCollective, recs[1].launch = 1, recs[1].group = 5;
  // launch 2 has none: resolved from the driver API record on thread 9 inside [2000, 2100]
  recs[2].kind = NcclRecordKind::kKernelLaunch, recs[2].launch = 2, recs[2].tid = 9;
  recs[2].start_ns = 2000, recs[2].end_ns = 2100;
  recs[3].kind = NcclRecordKind::kP2p, recs[3].launch = 2;
  std::vector<CollectedActivity> api(3);
  for (auto& a : api) a.kind = RecordKind::kApi, a.api_domain = ApiDomain::kDriver;
  api[0].name = "cuLaunchKernelEx", api[0].tid = 9, api[0].start_ns = 1990, api[0].correlation = 801;  // before: no
  api[1].name = "cuMemcpyAsync", api[1].tid = 9, api[1].start_ns = 2010, api[1].correlation = 802;     // not a launch
  api[2].name = "cuLaunchKernelEx", api[2].tid = 9, api[2].start_ns = 2050, api[2].correlation = 803;  // this one
  const auto corr = nccl_kernel_correlations(recs, api);
  CHECK(corr == std::vector<uint32_t>{700, 700, 803, 803});

  SECTION("an operation whose launch was never seen stays unlinked") {
    recs[1].launch = 99;
    CHECK(nccl_kernel_correlations(recs, api)[1] == 0);
  }
}
