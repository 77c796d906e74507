// CollectorImport on record kinds the real captures of tests/data/collector do not hold (capture
// ranges, external correlation, dropped counts, graph traces, NVTX marks with marker data, counter
// samples without a clock sync, syncs of an unknown context, NCCL p2p without a kernel), written
// with the collector's own encoder. Every expected value is worked out in the comment next to it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "test_paths.h"
#include "trace/core/error.h"
#include "trace/core/summary.h"
#include "trace/io/collector/collector_records.h"
#include "trace/io/collector/nccl_records.h"
#include "trace/io/pstrace/chunk_reader.h"
#include "trace/io/pstrace/chunk_writer.h"
#include "trace/io/pstrace/crc32c.h"
#include "trace/io/pstrace/pstrace_reader.h"

using namespace parascope;
using namespace parascope::collector;
namespace fs = std::filesystem;

namespace {

CollectedActivity rec(RecordKind k) {
  CollectedActivity a;
  a.kind = k;
  return a;
}

bool has_warning(const Trace& t, const std::string& needle) {
  return std::any_of(t.warnings.begin(), t.warnings.end(), [&](const std::string& w) { return w.find(needle) != std::string::npos; });
}

const Track* track_named(const Trace& t, const std::string& name) {
  for (const Track& tr : t.tracks)
    if (t.str(tr.name) == name) return &tr;
  return nullptr;
}

}  // namespace

TEST_CASE("Collector records of every kind become model events, drops and gaps are said", "[io][collector]") {
  std::vector<CollectedActivity> acts;
  // device facts: CUPTI's DEVICE record, then the driver's device_info (wins for the PCI bus id)
  CollectedActivity dev = rec(RecordKind::kDevice);
  dev.device = 0, dev.name = "GPU from CUPTI", dev.sm_count = 132, dev.uuid = "GPU-aaaa", dev.memory_bytes = 1000;
  acts.push_back(dev);
  CollectedActivity info = rec(RecordKind::kDeviceInfo);
  info.device = 0, info.name = "NVIDIA H200", info.pci_bus_id = "0000:00:06.0", info.uuid = "GPU-aaaa";
  acts.push_back(info);
  CollectedActivity ctx = rec(RecordKind::kContext);
  ctx.context = 1, ctx.device = 0;
  acts.push_back(ctx);
  CollectedActivity stream = rec(RecordKind::kStream);
  stream.context = 1, stream.stream = 13, stream.priority = -5, stream.flags = 2;
  acts.push_back(stream);
  // a runtime call launching a graph (correlation 9, external id 77), and the graph's execution
  CollectedActivity ext = rec(RecordKind::kExternalCorrelation);
  ext.external_kind = 2, ext.external_id = 77, ext.correlation = 9;
  acts.push_back(ext);
  CollectedActivity api = rec(RecordKind::kApi);
  api.api_domain = ApiDomain::kRuntime, api.name = "cudaGraphLaunch_v10000", api.tid = 5, api.correlation = 9;
  api.start_ns = 1'000, api.end_ns = 1'400;
  acts.push_back(api);
  CollectedActivity graph = rec(RecordKind::kGraphTrace);
  graph.device = 0, graph.context = 1, graph.stream = 13, graph.correlation = 9, graph.graph_id = 4;
  graph.start_ns = 2'000, graph.end_ns = 5'000;
  acts.push_back(graph);
  // an NVTX mark with marker data (ARGB colour, category 3, u64 payload 42), a range without end
  CollectedActivity mark = rec(RecordKind::kMarker);
  mark.flags = 1, mark.marker_id = 20, mark.object_kind = 2, mark.object_id[0] = 100, mark.object_id[1] = 5;
  mark.start_ns = mark.end_ns = 1'200, mark.name = "checkpoint", mark.domain = "app";
  acts.push_back(mark);
  CollectedActivity md = rec(RecordKind::kMarkerData);
  md.marker_id = 20, md.flags = 2, md.color = 0xFF00FF00, md.category = 3, md.payload_kind = 1, md.payload = 42;
  acts.push_back(md);
  CollectedActivity open = rec(RecordKind::kMarker);
  open.flags = 2, open.marker_id = 21, open.object_kind = 2, open.object_id[1] = 5, open.start_ns = 1'300, open.name = "never closed";
  acts.push_back(open);
  // an event sync on context 1 (stream 0xFFFFFFFF) and one on a context nobody declared
  CollectedActivity sync = rec(RecordKind::kSync);
  sync.context = 1, sync.stream = 0xFFFFFFFFu, sync.sync_type = 1, sync.event_id = 3, sync.start_ns = 5'000, sync.end_ns = 5'100;
  acts.push_back(sync);
  CollectedActivity lost_sync = sync;
  lost_sync.context = 99;
  acts.push_back(lost_sync);
  // CUPTI overhead on the thread, capture start/stop, drops on two streams
  CollectedActivity over = rec(RecordKind::kOverhead);
  over.overhead_kind = 1u << 16, over.object_kind = 2, over.object_id[1] = 5, over.start_ns = 6'000, over.end_ns = 6'500;
  acts.push_back(over);
  CollectedActivity cap = rec(RecordKind::kCaptureRange);
  cap.flags = 1, cap.start_ns = 900, cap.name = "step 100";
  acts.push_back(cap);
  cap.flags = 0, cap.start_ns = 7'000, cap.name = "step 110";
  acts.push_back(cap);
  CollectedActivity drop = rec(RecordKind::kDropped);
  drop.context = 1, drop.stream = 13, drop.count = 5;
  acts.push_back(drop);
  drop.stream = 14, drop.count = 2;
  acts.push_back(drop);
  // a counter on the globaltimer clock with no clock sync in the file: shown unshifted, said once
  CollectedActivity cs = rec(RecordKind::kCounterSample);
  cs.device = 0, cs.name = "nvltx__bytes.sum", cs.clock = ClockDomain::kGlobalTimer, cs.start_ns = 10'000, cs.end_ns = 11'000;
  cs.counter_value = 4'000;  // 4000 bytes in 1 µs = 4 GB/s
  acts.push_back(cs);
  cs.start_ns = 11'000, cs.end_ns = 13'000, cs.counter_value = 1'000;  // 0.5 GB/s, then 0 at 13 µs
  acts.push_back(cs);

  // NCCL: a communicator of 2 ranks and a send whose launch CUPTI never correlated
  std::vector<NcclRecord> nccl;
  NcclRecord comm;
  comm.kind = NcclRecordKind::kCommInit, comm.comm_hash = 0xabc, comm.nranks = 2, comm.rank = 1, comm.comm_name = "tp";
  nccl.push_back(comm);
  NcclRecord send;
  send.kind = NcclRecordKind::kP2p, send.comm_hash = 0xabc, send.rank = 1, send.func = "Send", send.count = 1024;
  send.datatype = "ncclFloat32", send.peer = 0, send.launch = 3;
  nccl.push_back(send);

  const fs::path dir = test::temp_dir("collector-kinds");
  const std::string path = (dir / "node-a-100-r1.pstrace").string();
  {
    ChunkWriter w(path);
    ByteWriter b;
    for (const auto& a : acts) encode(b, a);
    w.append(ChunkType::kCuptiRecords, b.bytes());
    ByteWriter n;
    for (const auto& r : nccl) encode(n, r);
    w.append(ChunkType::kNcclRecords, n.bytes());
    w.close();
  }
  PstraceFileReport report;
  const Trace t = read_pstrace(path, {}, &report);
  REQUIRE(t.processes.size() == 1);
  CHECK(t.processes[0].rank == 1);  // from the file name
  REQUIRE(t.devices.size() == 1);
  CHECK(t.devices[0].name == "NVIDIA H200");
  CHECK(t.devices[0].pci_bus_id == "0000:00:06.0");
  CHECK(t.devices[0].sm_count == 132);
  CHECK(t.devices[0].memory_bytes == 1000);

  // the graph execution on stream 13, named with its priority, with a launch flow from the call
  const Track* s13 = track_named(t, "stream 13 (priority -5)");
  REQUIRE(s13);
  REQUIRE(s13->slices.size() == 1);
  CHECK(t.str(s13->slices.name[0]) == "CUDA graph 4");
  REQUIRE(t.flows.size() == 1);
  CHECK(t.flows[0].to == EventRef{static_cast<uint32_t>(s13 - t.tracks.data()), 0});
  // the call: on thread 5, version suffix dropped, the external id as an argument
  const Track* thread = track_named(t, "thread 5");
  REQUIRE(thread);
  std::vector<std::string> on_thread;
  for (uint32_t i = 0; i < thread->slices.size(); ++i) on_thread.emplace_back(t.str(thread->slices.name[i]));
  // by start: cudaGraphLaunch 1000, checkpoint 1200, never closed 1300, overhead 6000
  CHECK(on_thread == std::vector<std::string>{"cudaGraphLaunch", "checkpoint", "never closed", "CUPTI overhead: buffer flush"});
  bool external = false;
  for (const Arg& a : t.args.get(thread->slices.args_of(0)))
    if (t.str(a.key) == "external id") external = a.value.u == 77;
  CHECK(external);
  // the mark carries its marker data
  const NvtxInfo& n = t.nvtx[thread->slices.ref[1].index()];
  CHECK(thread->slices.dur[1] == 0);
  CHECK(t.str(n.domain) == "app");
  CHECK(n.color_argb == 0xFF00FF00u);
  CHECK(t.str(n.category) == "3");
  CHECK(n.payload_type == 1);
  CHECK(n.payload.get() == 42);
  CHECK(has_warning(t, "1 NVTX range has no end"));
  // the event sync on the device's no-stream track; the other context is unknown
  const Track* nostream = track_named(t, "synchronisation (no stream)");
  REQUIRE(nostream);
  REQUIRE(nostream->slices.size() == 1);
  const SyncInfo& y = t.syncs[nostream->slices.ref[0].index()];
  CHECK(y.kind == SyncKind::kEventSync);
  CHECK(y.event_id == 3);
  CHECK(has_warning(t, "1 synchronisation record names a CUDA context with no CONTEXT record"));
  // capture range 900 .. 7000
  const Track* capture = track_named(t, "capture ranges (parascope_collector_start/stop)");
  REQUIRE(capture);
  REQUIRE(capture->slices.size() == 1);
  CHECK(capture->slices.start[0] == 900);
  CHECK(capture->slices.dur[0] == 6'100);
  // 5 + 2 records dropped
  CHECK(report.collector.dropped_records == 7);
  CHECK(has_warning(t, "CUPTI dropped 7 records (2 counts)"));
  // the counter: rates at 10 µs and 11 µs, 0 at 13 µs; unshifted, said
  const Track* tx = track_named(t, "NVLink tx (nvltx__bytes.sum)");
  REQUIRE(tx);
  CHECK(tx->counter.time == std::vector<TimeNs>{10'000, 11'000, 13'000});
  CHECK(tx->counter.value == std::vector<double>{4e9, 5e8, 0});
  CHECK(has_warning(t, "counter nvltx__bytes.sum of GPU 0 is on the globaltimer clock and the file has no clock sync"));
  // the send: annotated (op, elements, peer, group from the communicator) but without a kernel
  REQUIRE(t.collectives.size() == 1);
  const CollectiveInfo& c = t.collectives[0];
  CHECK(c.op == CollectiveOp::kSend);
  CHECK(c.in_elements == 1024);
  CHECK(c.out_elements == 0);
  CHECK(c.dtype_bytes == 4);
  CHECK(c.peer == 0);
  CHECK(c.group_size == 2);
  CHECK(t.str(c.group) == "tp");
  CHECK_FALSE(c.kernel.valid());
  CHECK(has_warning(t, "1 NCCL operation could not be linked to the kernel that ran it"));
  // only tracks with events: stream 13, the no-stream track, thread 5, capture, the counter
  CHECK(t.tracks.size() == 5);
  fs::remove_all(dir);
}

TEST_CASE("Mutated collector payloads with valid checksums are read or rejected, never crash", "[io][collector][damage]") {
  // The real graph and peer captures, rewritten uncompressed; each mutation flips bits of one payload
  // byte and rewrites the chunk's CRC, so CollectorImport (not the checksum) meets the damage.
  const fs::path dir = test::temp_dir("collector-mutate");
  uint64_t state = 4242;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(state >> 33);
  };
  size_t read = 0, rejected = 0;
  for (const char* rel : {"collector/graph_rec/vm-3397-rnone.pstrace", "collector/peer_rec/vm-3377-rnone.pstrace",
                          "collector/probe_rec/vm-3289-rnone.pstrace"}) {
    const std::string clean = (dir / "clean.pstrace").string();
    {
      ChunkReader in(test::data_path(rel));
      ChunkWriter out(clean);
      for (const ChunkInfo& c : in.chunks())
        out.append(static_cast<ChunkType>(c.header.type), in.payload(c), Codec::kNone);
      out.close();
    }
    std::vector<char> bytes;
    {
      std::ifstream in(clean, std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    std::vector<ChunkInfo> chunks;
    const ChunkReader clean_reader(clean);
    for (const ChunkInfo& c : clean_reader.chunks())
      if (c.header.type == static_cast<uint32_t>(ChunkType::kCuptiRecords) ||
          c.header.type == static_cast<uint32_t>(ChunkType::kProbeRecords))
        chunks.push_back(c);
    REQUIRE(!chunks.empty());
    const std::string path = (dir / "m.pstrace").string();
    for (int i = 0; i < 700; ++i) {
      std::vector<char> m = bytes;
      const ChunkInfo& c = chunks[next() % chunks.size()];
      const uint64_t body = c.offset + 20;
      m[body + next() % c.header.length] ^= static_cast<char>(1 + next() % 255);
      const uint32_t crc = crc32c(m.data() + body, c.header.length);
      std::memcpy(m.data() + c.offset + 16, &crc, 4);
      std::ofstream(path, std::ios::binary | std::ios::trunc).write(m.data(), static_cast<std::streamsize>(m.size()));
      try {
        read_pstrace(path);
        ++read;
      } catch (const InputError&) {
        ++rejected;
      }
    }
  }
  INFO(read << " read, " << rejected << " rejected");
  CHECK(read + rejected == 2100);
  CHECK(rejected > 50);  // flips of kinds, lengths and counts are caught
  fs::remove_all(dir);
}
