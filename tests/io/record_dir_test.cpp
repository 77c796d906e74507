#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "test_paths.h"
#include "trace/core/error.h"
#include "trace/core/probe_record.h"
#include "trace/core/summary.h"
#include "trace/io/collector/collector_records.h"
#include "trace/io/collector/record_manifest.h"
#include "trace/io/load_trace.h"
#include "trace/io/pstrace/chunk_writer.h"
#include "trace/io/pstrace/pstrace_reader.h"

using namespace parascope;
namespace fs = std::filesystem;

namespace {

collector::CollectedActivity kernel(uint32_t device, uint32_t stream, uint32_t corr, uint64_t start, uint64_t end,
                                    const char* name) {
  collector::CollectedActivity a;
  a.kind = collector::RecordKind::kKernel;
  a.device = device;
  a.stream = stream;
  a.correlation = corr;
  a.start_ns = start;
  a.end_ns = end;
  a.name = name;
  a.grid[0] = 132;
  a.block[0] = 256;
  a.registers = 64;
  a.dynamic_smem = 1024;
  a.graph_id = 3;
  a.graph_node_id = 77;
  return a;
}

collector::CollectedActivity copy(uint32_t device, uint8_t kind, uint32_t src, uint32_t dst, uint64_t start, uint64_t bytes) {
  collector::CollectedActivity a;
  a.kind = collector::RecordKind::kMemcpy;
  a.device = device;
  a.stream = 7;
  a.correlation = 100 + kind;
  a.start_ns = start;
  a.end_ns = start + 50;
  a.bytes = bytes;
  a.copy_kind = kind;
  a.src_device = src;
  a.dst_device = dst;
  return a;
}

ProbeRecord probe(uint64_t t0, uint64_t t1, uint32_t block, uint16_t smid, uint8_t role, uint32_t tag) {
  ProbeRecord r{};
  r.t_start_ns = t0;
  r.t_end_ns = t1;
  r.block = block;
  r.smid = smid;
  r.warp = 0xff;
  r.role = role;
  r.tag = tag;
  r.launch_id = 4;
  return r;
}

// The kProbeRecords payload as documented in pstrace_format.h.
std::vector<uint8_t> probe_chunk(uint32_t ordinal, int64_t offset, uint32_t correlation, const std::string& name,
                                 uint64_t overflow, const std::vector<ProbeRecord>& records) {
  ByteWriter w;
  w.varint(ordinal);
  w.svarint(offset);
  w.varint(correlation);
  w.varint(4);  // launch id
  w.str(name);
  w.varint(overflow);
  w.varint(records.size());
  w.raw(records.data(), records.size() * sizeof(ProbeRecord));
  return w.bytes();
}

// A collector file: raw chunks only, no declarations. `killed`: no index or trailer.
void write_collector_file(const std::string& path, const std::vector<collector::CollectedActivity>& acts,
                          const std::vector<std::vector<uint8_t>>& probes, bool killed) {
  {
    ChunkWriter w(path);
    ByteWriter b;
    for (const auto& a : acts) collector::encode(b, a);
    w.append(ChunkType::kCuptiRecords, b.bytes());
    for (const auto& p : probes) w.append(ChunkType::kProbeRecords, p);
    w.close();
  }
  if (killed) {
    std::ifstream in(path, std::ios::binary);
    in.seekg(-16, std::ios::end);
    uint64_t index_at = 0;
    in.read(reinterpret_cast<char*>(&index_at), 8);
    in.close();
    fs::resize_file(path, index_at);
  }
}

}  // namespace

TEST_CASE("Collector chunks decode into stream tracks and SM lanes with the stored clock offset", "[io][pstrace][collector]") {
  const fs::path dir = test::temp_dir("collector");
  const std::string path = (dir / "node-a-4242-r3.pstrace").string();
  write_collector_file(path,
                       {kernel(0, 7, 5, 10'000, 20'000, "probe_kernel"), copy(0, 1, 0, 0, 1'000, 4096),
                        copy(0, 10, 0, 1, 21'000, 1 << 20), copy(1, 2, 1, 1, 22'000, 64)},
                       {probe_chunk(0, 1'000, 5, "probe_kernel", 4,
                                    {probe(9'500, 10'500, 0, 2, 0, 1), probe(10'600, 12'000, 0, 2, 1, 2),
                                     probe(9'600, 11'000, 1, 9, 7, 3)})},
                       false);
  PstraceFileReport report;
  const Trace t = read_pstrace(path, {}, &report);
  // identity from the file name
  REQUIRE(t.processes.size() == 1);
  CHECK(t.processes[0].host == "node-a");
  CHECK(t.processes[0].pid == 4242);
  CHECK(t.processes[0].rank == 3);
  CHECK(report.cupti_records == 4);
  CHECK(report.probe_records == 3);
  // devices 0 and 1 (1 appears as a peer and with its own copy)
  REQUIRE(t.devices.size() == 2);
  const TraceSummary s = summarize(t);
  REQUIRE(s.processes[0].devices.size() == 2);
  CHECK(s.processes[0].devices[0].kernels == 1);
  CHECK(s.processes[0].devices[0].memcpys == 2);
  CHECK(s.processes[0].devices[0].sm_spans == 3);
  CHECK(s.processes[0].devices[1].memcpys == 1);
  // the PtoP copy names both devices
  size_t ptop = 0;
  for (const MemcpyInfo& m : t.memcpys)
    if (m.copy_kind == CopyKind::kPtoP) {
      ++ptop;
      CHECK(t.devices[m.src_device].ordinal == 0);
      CHECK(t.devices[m.dst_device].ordinal == 1);
    }
  CHECK(ptop == 1);
  // SM lanes: one track per (device, smid), spans shifted by the chunk's offset (+1000 ns)
  std::vector<const Track*> lanes;
  for (const Track& tr : t.tracks)
    if (tr.key.kind == TrackKind::kSmLane) lanes.push_back(&tr);
  REQUIRE(lanes.size() == 2);
  CHECK(lanes[0]->key.id == 2);
  CHECK(t.str(lanes[0]->name) == "SM 2");
  REQUIRE(lanes[0]->slices.size() == 2);
  CHECK(lanes[0]->slices.start[0] == 10'500);  // 9'500 + 1'000
  CHECK(lanes[0]->slices.dur[0] == 1'000);
  CHECK(lanes[0]->slices.start[1] == 11'600);
  const SmSpanInfo& comm = t.sm_spans[lanes[0]->slices.ref[1].index()];
  CHECK(comm.role == SmRole::kCommunicate);
  CHECK(comm.tag == 2);
  CHECK(comm.launch_id == 4);
  CHECK(comm.warp == 0xff);
  // every span is linked to the kernel with correlation 5
  for (const SmSpanInfo& sp : t.sm_spans) {
    REQUIRE(sp.kernel.valid());
    const Track& kt = t.tracks[sp.kernel.track];
    CHECK(t.str(kt.slices.name[sp.kernel.index]) == "probe_kernel");
  }
  CHECK(t.sm_spans[lanes[1]->slices.ref[0].index()].role == SmRole::kOther);  // role 7 is out of range
  REQUIRE(report.warnings.size() == 2);
  CHECK_THAT(report.warnings[0], Catch::EndsWith("4 probe records were lost to probe-buffer overflow: 4 of probe_kernel (GPU 0, launch 4)"));
  CHECK_THAT(report.warnings[1], Catch::EndsWith("1 probe records had a role outside 0..3; shown as 'other'"));
  // the kernel's launch config and graph ids came through
  REQUIRE(t.kernels.size() == 1);
  CHECK(t.kernels[0].graph_id == 3);
  CHECK(t.kernels[0].graph_node_id.get() == 77);
  CHECK(t.launch_config(t.kernels[0])->grid[0] == 132);
  fs::remove_all(dir);
}

TEST_CASE("A record directory with manifest.json loads as one merged trace", "[io][pstrace][record]") {
  const fs::path dir = test::temp_dir("record");
  RecordManifest m;
  m.tool_version = "parascope test";
  m.command = {"torchrun", "--nproc_per_node=3", "train.py"};
  m.started_unix_ns = 1'790'857'026'000'000'000;
  m.host = "node-a";
  m.exit_code = 0;
  auto file = [](const char* host, int64_t pid, int32_t rank) {
    RecordFile f;
    f.path = record_file_name(host, pid, rank);
    f.host = host;
    f.pid = pid;
    f.rank = rank;
    f.status = "recording";
    return f;
  };
  m.files = {file("node-a", 100, 0), file("node-b", 200, 1),
             file("node-b", 201, 2)};  // never written: that rank died early
  write_record_manifest(m, (dir / kRecordManifestName).string());
  REQUIRE(m.files[0].path == "node-a-100-r0.pstrace");
  write_collector_file((dir / m.files[0].path).string(), {kernel(0, 7, 1, 1'000, 2'000, "gemm"), kernel(0, 7, 2, 3'000, 4'000, "gemm")},
                       {}, false);
  // rank 1 was killed: its file has no index or trailer
  write_collector_file((dir / m.files[1].path).string(), {kernel(0, 7, 1, 1'500, 2'500, "gemm")}, {}, true);
  // a stray file the manifest does not list is loaded too, with a warning
  write_collector_file((dir / "node-c-300-r9.pstrace").string(), {kernel(0, 7, 1, 500, 600, "x")}, {}, false);

  LoadReport report;
  const Trace t = load_trace({dir.string()}, {}, &report);
  CHECK(t.source_format == "pstrace");
  REQUIRE(t.processes.size() == 3);
  CHECK(t.processes[0].host == "node-a");
  CHECK(t.processes[0].rank == 0);
  CHECK(t.processes[1].host == "node-b");
  CHECK(t.processes[1].pid == 200);
  CHECK(t.processes[1].rank == 1);
  CHECK(t.processes[1].name == "rank 1");
  CHECK(t.processes[2].host == "node-c");  // from its file name
  CHECK(t.processes[2].rank == 9);
  REQUIRE(report.files.size() == 3);
  CHECK(report.files[0].events == 2);
  CHECK(report.files[1].rank == 1);
  const TraceSummary s = summarize(t);
  CHECK(s.processes[0].devices[0].kernels == 2);
  CHECK(s.processes[1].devices[0].kernels == 1);
  const std::string manifest = (dir / kRecordManifestName).string();
  REQUIRE(t.warnings.size() == 3);
  CHECK(t.warnings[0] == manifest + ": lists node-b-201-r2.pstrace (rank 2), which is missing; that process wrote nothing");
  CHECK(t.warnings[1] == manifest + ": does not list node-c-300-r9.pstrace; loaded it as well");
  CHECK_THAT(t.warnings[2], Catch::Contains("node-b-200-r1.pstrace: has no end index (its writer did not close it"));
  fs::remove_all(dir);
}

TEST_CASE("Record manifests: round trip, newer schema and bad paths refused", "[io][record]") {
  const fs::path dir = test::temp_dir("manifest");
  const std::string path = (dir / "manifest.json").string();
  RecordManifest m;
  m.command = {"python", "a b.py"};
  m.host = "h";
  m.started_unix_ns = 1'790'857'026'123'456'789;  // above 2^53: must stay exact
  m.exit_signal = "SIGKILL";
  RecordFile f;
  f.path = "h-1-r0.pstrace";
  f.host = "h";
  f.pid = 1;
  f.rank = 0;
  f.complete = false;
  f.records = 18'446'744'073'709'551'615ull;  // u64 max: exact too
  m.files = {f};
  m.other_files = {"h-0-r0.pstrace"};
  write_record_manifest(m, path);
  const RecordManifest back = load_record_manifest(path);
  CHECK(back.command == m.command);
  CHECK(back.started_unix_ns == 1'790'857'026'123'456'789);
  CHECK(back.exit_signal == "SIGKILL");
  CHECK(!back.exit_code);
  REQUIRE(back.files.size() == 1);
  CHECK(back.files[0].pid == 1);
  CHECK(!back.files[0].complete);
  CHECK(back.files[0].records == 18'446'744'073'709'551'615ull);
  CHECK(back.other_files == m.other_files);
  SECTION("the draft spellings (tool, start_time_unix_ns, hosts) are still read") {
    std::ofstream(path) << R"({"schema_version": 1, "tool": "parascope 0.1", "start_time_unix_ns": 5, "hosts": ["n1"],
                               "files": [{"path": "n1-2-r0.pstrace"}]})";
    const RecordManifest d = load_record_manifest(path);
    CHECK(d.tool_version == "parascope 0.1");
    CHECK(d.started_unix_ns == 5);
    CHECK(d.host == "n1");
    CHECK(d.files[0].rank == -1);
    CHECK(d.files[0].complete);
  }
  SECTION("schema_version 2") {
    std::ofstream(path) << R"({"schema_version": 2, "files": []})";
    REQUIRE_THROWS_WITH(load_record_manifest(path), Catch::Contains("$.schema_version") && Catch::Contains("not one this build reads"));
  }
  SECTION("a path leaving the directory") {
    std::ofstream(path) << R"({"schema_version": 1, "files": [{"path": "../x.pstrace"}]})";
    REQUIRE_THROWS_WITH(load_record_manifest(path), Catch::Contains("$.files[0].path") && Catch::Contains("expected a file name inside the record directory"));
  }
  fs::remove_all(dir);
}

TEST_CASE("Record directory: how the run and its processes ended becomes warnings", "[io][record]") {
  const fs::path dir = test::temp_dir("record-ended");
  RecordManifest m;
  m.exit_signal = "SIGABRT";
  RecordFile f;
  f.path = record_file_name("node-a", 7, 0);
  f.host = "node-a";
  f.pid = 7;
  f.rank = 0;
  f.status = "unfinished";  // what record writes when the signal path left no status
  f.end_reason = "SIGABRT";
  f.complete = true;
  m.files = {f};
  m.other_files = {"node-a-6-r0.pstrace"};  // an older run in the same directory: not loaded
  write_record_manifest(m, (dir / kRecordManifestName).string());
  write_collector_file((dir / f.path).string(), {kernel(0, 7, 1, 1'000, 2'000, "gemm")}, {}, false);
  write_collector_file((dir / "node-a-6-r0.pstrace").string(), {kernel(0, 7, 1, 100, 200, "old")}, {}, false);
  const Trace t = load_trace({dir.string()});
  REQUIRE(t.processes.size() == 1);
  CHECK(t.processes[0].pid == 7);
  const std::string manifest = (dir / kRecordManifestName).string();
  REQUIRE(t.warnings.size() == 3);
  CHECK(t.warnings[0] == manifest + ": the recorded command was killed by SIGABRT");
  CHECK(t.warnings[1] == manifest + ": node-a-7-r0.pstrace: its process ended by SIGABRT (the collector closed the file)");
  CHECK(t.warnings[2] == manifest + ": 1 older trace file(s) in the directory belong to other runs (other_files); not loaded");
  fs::remove_all(dir);
}
