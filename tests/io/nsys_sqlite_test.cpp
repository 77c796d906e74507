#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>

#include "skip.h"
#include "test_paths.h"
#include "trace/core/error.h"
#include "trace/core/summary.h"
#include "trace/io/load_trace.h"
#include "trace/io/nsys/nsys_sqlite_reader.h"

#include <sqlite3.h>

using namespace parascope;
namespace fs = std::filesystem;

namespace {

struct Expected {
  int64_t pid;
  int32_t ordinal;
  int64_t kernels, memcpys, memsets, syncs, comm_kernels;
  uint64_t memcpy_bytes;
};

// Counts of the same process/device in the summary.
const DeviceSummary* device_of(const Trace& t, const TraceSummary& s, int64_t pid) {
  for (const auto& p : s.processes)
    if (t.processes[p.process].pid == pid && p.devices.size() == 1) return &p.devices[0];
  return nullptr;
}

void check_export(const std::string& file, const std::vector<Expected>& expected, size_t flows, int64_t cpu_slices) {
  const Trace t = load_trace({file});
  CHECK(t.source_format == "nsys-sqlite");
  const TraceSummary s = summarize(t);
  for (const Expected& e : expected) {
    INFO("pid " << e.pid);
    const DeviceSummary* d = device_of(t, s, e.pid);
    REQUIRE(d);
    CHECK(t.devices[d->device].ordinal == e.ordinal);
    CHECK(d->kernels == e.kernels);
    CHECK(d->memcpys == e.memcpys);
    CHECK(d->memsets == e.memsets);
    CHECK(d->syncs == e.syncs);
    CHECK(d->comm_kernels == e.comm_kernels);
    CHECK(d->memcpy_bytes == e.memcpy_bytes);
  }
  CHECK(t.flows.size() == flows);
  int64_t cpu = 0;
  for (const auto& p : s.processes) cpu += p.cpu_slices;
  CHECK(cpu == cpu_slices);
}

}  // namespace

// Expected values counted independently with the sqlite3 CLI on the export, e.g.
//   sqlite3 F "select globalPid>>24&16777215, deviceId, count(*) from CUPTI_ACTIVITY_KIND_KERNEL group by 1,2"
//   (same for MEMCPY with sum(bytes), MEMSET; SYNCHRONIZATION grouped by globalPid because its
//   deviceId column is 0 for both GPUs; NCCL kernels: demangledName joined with StringIds
//   like 'ncclDevKernel%'); flows: GPU rows whose (globalPid, correlationId) has a
//   CUPTI_ACTIVITY_KIND_RUNTIME row with globalTid & ~0xFFFFFF = globalPid; CPU slices:
//   count(*) of CUPTI_ACTIVITY_KIND_RUNTIME + NVTX_EVENTS (all eventType 59, push/pop) +
//   PROFILER_OVERHEAD + CUPTI_ACTIVITY_KIND_OVERHEAD.
TEST_CASE("Nsight export h100_2gpu_1s: per-device counts equal sqlite3's", "[io][nsys]") {
  if (!test::shared_available()) PARASCOPE_SKIP("../shared/data (real Nsight exports) is not present");
  // kernels 1721/1721, memcpy 452/452 (55159490089 bytes each), memset 11/11, syncs 122/122,
  // flows 2092, runtime 5796 + NVTX 16782 + overhead 0 + 198 = 22776 CPU slices
  check_export(test::shared_path("data/nsys/h100_2gpu_1s.sqlite"),
               {{111, 0, 1721, 452, 11, 122, 0, 55159490089ull}, {112, 1, 1721, 452, 11, 122, 0, 55159490089ull}},
               2092, 5796 + 16782 + 198);
}

TEST_CASE("Nsight export mfu_2gpu_before: per-device counts equal sqlite3's", "[io][nsys]") {
  if (!test::shared_available()) PARASCOPE_SKIP("../shared/data (real Nsight exports) is not present");
  // kernels 1993/2017 (33 ncclDevKernel_SendRecv each), memcpy 510/510 (4023067272 bytes each),
  // memset 133/136, syncs 178/188, flows 5268, runtime 7466 + NVTX 19118 + overhead 6 + 0 CPU slices
  check_export(test::shared_path("data/nsys/mfu_2gpu_before.sqlite"),
               {{144, 0, 1993, 510, 133, 178, 33, 4023067272ull}, {145, 1, 2017, 510, 136, 188, 33, 4023067272ull}},
               5268, 7466 + 19118 + 6);
}

TEST_CASE("Nsight export details: clock, names, copy kinds, launch flows, NVTX", "[io][nsys]") {
  if (!test::shared_available()) PARASCOPE_SKIP("../shared/data (real Nsight exports) is not present");
  const Trace t = load_trace({test::shared_path("data/nsys/h100_2gpu_1s.sqlite")});
  REQUIRE(t.processes.size() == 2);
  // TARGET_INFO_SESSION_START_TIME.utcEpochNs = 1779630014975716426; earliest row of all tables:
  // a memcpy at 155357525002 (sqlite3: select min(start) from each CUPTI_*/NVTX_EVENTS table)
  CHECK(t.processes[0].clock_offset_ns == 1779630014975716426);
  CHECK(t.processes[0].host == "modal");
  CHECK(t.processes[0].name == "python3 (111)");
  CHECK(t.time_span().first == 1779630014975716426 + 155357525002);
  size_t flows_to_kernels = 0, dtod = 0, htod_pageable = 0;
  for (const Flow& f : t.flows) {
    const Track& api = t.tracks[f.from.track];
    REQUIRE(api.key.kind == TrackKind::kCpuThread);
    REQUIRE(api.slices.ref[f.from.index].kind() == SliceKind::kRuntimeApi);
    const Track& gpu = t.tracks[f.to.track];
    REQUIRE(gpu.key.kind == TrackKind::kGpuStream);
    // a launch flow joins the same correlation id on both ends
    const uint32_t api_corr = t.api_calls[api.slices.ref[f.from.index].index()].correlation;
    const SliceRef g = gpu.slices.ref[f.to.index];
    const uint32_t gpu_corr = g.kind() == SliceKind::kKernel   ? t.kernels[g.index()].correlation
                              : g.kind() == SliceKind::kMemcpy ? t.memcpys[g.index()].correlation
                                                               : t.memsets[g.index()].correlation;
    REQUIRE(api_corr == gpu_corr);
    flows_to_kernels += g.kind() == SliceKind::kKernel;
  }
  // sqlite3: kernels with a runtime row of the same correlation and process: 816 + 816
  CHECK(flows_to_kernels == 1632);
  for (const MemcpyInfo& m : t.memcpys) {
    dtod += m.copy_kind == CopyKind::kDtoD;
    htod_pageable += m.copy_kind == CopyKind::kHtoD && m.src_memory == MemoryKind::kPageable;
  }
  // sqlite3: copyKind 8 → 450 rows; copyKind 1 with srcKind 0 → 4
  CHECK(dtod == 450);
  CHECK(htod_pageable == 4);
  size_t launch_names = 0;
  for (const Track& tr : t.tracks)
    for (size_t i = 0; i < tr.slices.size(); ++i)
      launch_names += t.str(tr.slices.name[i]) == "cudaLaunchKernel";  // "_v7000" stripped
  CHECK(launch_names > 0);
  size_t nvtx_views = 0;
  for (const Track& tr : t.tracks)
    for (size_t i = 0; i < tr.slices.size(); ++i)
      nvtx_views += tr.slices.ref[i].kind() == SliceKind::kNvtxRange && t.str(tr.slices.name[i]).starts_with("aten::view");
  // sqlite3: select count(*) from NVTX_EVENTS where text like 'aten::view%'
  CHECK(nvtx_views == 886);
}

TEST_CASE("Nsight: a report needs exporting, a non-export database is refused", "[io][nsys][errors]") {
  const fs::path dir = test::temp_dir("nsys-bad");
  SECTION("an .nsys-rep names the export command") {
    std::ofstream(dir / "run.nsys-rep") << "binary";
    REQUIRE_THROWS_WITH(load_trace({(dir / "run.nsys-rep").string()}), Catch::Contains("nsys export --type sqlite"));
  }
  SECTION("an SQLite file with the right magic but garbage after it") {
    std::ofstream(dir / "bad.sqlite", std::ios::binary) << std::string("SQLite format 3\0", 16) << std::string(200, 'x');
    REQUIRE_THROWS_WITH(load_trace({(dir / "bad.sqlite").string()}), Catch::StartsWith((dir / "bad.sqlite").string()));
  }
  fs::remove_all(dir);
}

namespace {
void exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string m = err ? err : "?";
    sqlite3_free(err);
    FAIL(m);
  }
}
}  // namespace

TEST_CASE("Nsight: an older, sparser schema: missing columns and tables, NVTX domains and categories", "[io][nsys]") {
  // A hand-made export: kernels without launch-config columns but with graph ids, a runtime table
  // without eventClass/returnValue, no session start time, a peer copy, NVTX with a named domain,
  // a category, a colour and an int64 payload.
  const fs::path dir = test::temp_dir("nsys-sparse");
  const std::string path = (dir / "sparse.sqlite").string();
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  exec(db, R"(
    CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO StringIds VALUES (1, 'graph_kernel'), (2, 'cudaGraphLaunch_v10000'), (3, 'main');
    CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER,
      streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, graphId INTEGER,
      graphNodeId INTEGER);
    INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 1500, 1, 1, 13, 77, 281474993487872, 1, 5, 9);
    CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER,
      streamId INTEGER, correlationId INTEGER, globalPid INTEGER, bytes INTEGER, copyKind INTEGER,
      srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER, dstDeviceId INTEGER);
    INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (1600, 1700, 1, 1, 13, 78, 281474993487872, 4096, 10, 2, 2, 1, 0);
    CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, globalTid INTEGER, correlationId INTEGER,
      nameId INTEGER);
    INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (900, 950, 281474993487873, 77, 2);
    CREATE TABLE ThreadNames (nameId INTEGER, priority INTEGER, globalTid INTEGER);
    INSERT INTO ThreadNames VALUES (3, 0, 281474993487873);
    CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, rangeId INTEGER, category INTEGER,
      color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER,
      uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER, int32Value INTEGER,
      floatValue REAL, jsonTextId INTEGER, jsonText TEXT, binaryData TEXT);
    INSERT INTO NVTX_EVENTS (start, eventType, text, globalTid, domainId) VALUES (0, 75, 'NCCL', 281474993487873, 3);
    INSERT INTO NVTX_EVENTS (start, eventType, category, text, globalTid, domainId) VALUES (0, 33, 2, 'comm', 281474993487873, 3);
    INSERT INTO NVTX_EVENTS (start, end, eventType, category, color, text, globalTid, domainId, int64Value)
      VALUES (800, 2000, 59, 2, 4278255360, 'allreduce', 281474993487873, 3, -42);
    INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId) VALUES (850, 3000, 60, 'step', 281474993487873, 3);
    INSERT INTO NVTX_EVENTS (start, eventType, textId, globalTid, domainId) VALUES (990, 34, 3, 281474993487873, 0);
    INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId) VALUES (995, NULL, 59, 'open', 281474993487873, 0);
  )");
  sqlite3_close(db);

  const Trace t = load_trace({path});
  REQUIRE(t.processes.size() == 1);
  CHECK(t.processes[0].pid == 1);  // globalPid 281474993487872 = (1 << 48) | (1 << 24)
  CHECK(t.processes[0].clock_offset_ns == 0);
  CHECK(t.processes[0].clock_offset_reason == "none (session-relative ns; no TARGET_INFO_SESSION_START_TIME)");
  REQUIRE(t.devices.size() == 2);  // device 1, and device 0 as the copy's destination
  REQUIRE(t.kernels.size() == 1);
  CHECK(t.kernels[0].graph_id == 5);
  CHECK(t.kernels[0].graph_node_id.get() == 9);
  CHECK(t.launch_config(t.kernels[0])->grid[0] == 0);  // columns absent: zeros, not a failure
  REQUIRE(t.memcpys.size() == 1);
  CHECK(t.memcpys[0].copy_kind == CopyKind::kPtoP);
  CHECK(t.devices[t.memcpys[0].src_device].ordinal == 1);
  CHECK(t.devices[t.memcpys[0].dst_device].ordinal == 0);
  REQUIRE(t.flows.size() == 1);  // cudaGraphLaunch (correlation 77) → graph_kernel
  CHECK(t.str(t.tracks[t.flows[0].from.track].slices.name[t.flows[0].from.index]) == "cudaGraphLaunch");
  CHECK(t.str(t.tracks[t.flows[0].from.track].name) == "main (1)");
  // NVTX: the push/pop range on the thread carries domain, category, colour and payload
  const NvtxInfo* range = nullptr;
  const Track* domain_track = nullptr;
  for (const Track& tr : t.tracks) {
    if (tr.key.kind == TrackKind::kNvtx) domain_track = &tr;
    for (size_t i = 0; i < tr.slices.size(); ++i)
      if (t.str(tr.slices.name[i]) == "allreduce") range = &t.nvtx[tr.slices.ref[i].index()];
  }
  REQUIRE(range);
  CHECK(t.str(range->domain) == "NCCL");
  CHECK(t.str(range->category) == "comm");
  CHECK(range->color_argb == 0xFF00FF00u);
  CHECK(range->payload_type == 2);  // int64
  CHECK(static_cast<int64_t>(range->payload.get()) == -42);
  REQUIRE(domain_track);  // start/end ranges go on a per-domain track
  CHECK(t.str(domain_track->name) == "NVTX NCCL");
  REQUIRE(domain_track->slices.size() == 1);
  CHECK(domain_track->slices.dur[0] == 2150);
  REQUIRE(t.warnings.size() == 1);
  CHECK_THAT(t.warnings[0], Catch::EndsWith("1 NVTX ranges have no end; shown with zero length"));
  fs::remove_all(dir);
}

TEST_CASE("Nsight: PROFILER_OVERHEAD and CUPTI_ACTIVITY_KIND_OVERHEAD rows are overhead slices on their threads", "[io][nsys]") {
  if (!test::shared_available()) PARASCOPE_SKIP("../shared/data (real Nsight exports) is not present");
  // mock.sqlite: PROFILER_OVERHEAD 25 rows, CUPTI_ACTIVITY_KIND_OVERHEAD 6, all on globalTid
  // 283004824020018 (pid 91186); sqlite3: select s.value, count(*), sum(end - start) ... join StringIds
  const Trace t = load_trace({test::shared_path("data/nsys/mock.sqlite")});
  const TraceSummary s = summarize(t);
  int64_t overhead = 0;
  for (const auto& p : s.processes) overhead += p.overhead;
  CHECK(overhead == 25 + 6);
  int64_t init = 0, module_loading = 0, module_loading_ns = 0;
  for (const Track& tr : t.tracks)
    for (size_t i = 0; i < tr.slices.size(); ++i) {
      if (tr.slices.ref[i].kind() != SliceKind::kOverhead) continue;
      CHECK(tr.key.kind == TrackKind::kCpuThread);
      CHECK(t.processes[tr.key.process].pid == 91186);
      const std::string_view name = t.str(tr.slices.name[i]);
      if (name == "CUDA profiling initialization") {
        ++init;
        CHECK(tr.slices.dur[i] == 321768058);
      }
      if (name == "Runtime Triggered Module Loading") {
        ++module_loading;
        module_loading_ns += tr.slices.dur[i];
      }
    }
  CHECK(init == 1);
  CHECK(module_loading == 4);
  CHECK(module_loading_ns == 30489728);
  // the other exports: h100_2gpu_1s 0 + 198 (Command Buffer Full), mfu_2gpu_before 6 + 0 (in the counts above)
}

TEST_CASE("Nsight: NCCL's NVTX ranges name the NCCL kernels' operations (mfu_2gpu_before)", "[io][nsys]") {
  if (!test::shared_available()) PARASCOPE_SKIP("../shared/data (real Nsight exports) is not present");
  // 33 ncclDevKernel_SendRecv per GPU; 32 each have a cuLaunchKernelEx in the export, on a thread
  // inside PyTorch's "nccl:all_to_all, op_id = N" range (ncclGroupStart, ncclSend/ncclRecv x 2,
  // ncclGroupEnd within it); the first of each GPU was launched before the capture (sqlite3: its
  // correlationId has no CUPTI_ACTIVITY_KIND_RUNTIME row)
  const Trace t = load_trace({test::shared_path("data/nsys/mfu_2gpu_before.sqlite")});
  REQUIRE(t.collectives.size() == 64);
  std::map<uint32_t, int> per_process;
  for (const CollectiveInfo& c : t.collectives) {
    CHECK(c.op == CollectiveOp::kAllToAll);
    REQUIRE(c.kernel.valid());
    const Track& tr = t.tracks[c.kernel.track];
    CHECK(t.str(tr.slices.name[c.kernel.index]).starts_with("ncclDevKernel_SendRecv"));
    ++per_process[tr.key.process];
  }
  REQUIRE(per_process.size() == 2);
  for (const auto& [p, n] : per_process) CHECK(n == 32);
}

TEST_CASE("Nsight: a grouped NCCL launch without PyTorch's range takes its group's ncclSend/ncclRecv", "[io][nsys]") {
  // hand-made: one thread, ncclGroupStart, ncclSend, ncclRecv, then ncclGroupEnd around the launch
  // of correlation 5; a lone ncclAllReduce range around the launch of correlation 6
  const fs::path dir = test::temp_dir("nsys-nccl-group");
  const std::string path = (dir / "group.sqlite").string();
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  exec(db, R"(
    CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO StringIds VALUES (1, 'ncclDevKernel_SendRecv'), (2, 'cuLaunchKernelEx'), (3, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL');
    CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER,
      streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER);
    INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (2000, 2500, 0, 1, 7, 5, 281474993487872, 1), (4000, 4500, 0, 1, 7, 6, 281474993487872, 3);
    CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, globalTid INTEGER, correlationId INTEGER, nameId INTEGER);
    INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1500, 1510, 281474993487873, 5, 2), (3500, 3510, 281474993487873, 6, 2);
    CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, text TEXT, globalTid INTEGER, domainId INTEGER);
    INSERT INTO NVTX_EVENTS VALUES (1000, 1010, 59, 'ncclGroupStart', 281474993487873, 1), (1100, 1110, 59, 'ncclSend', 281474993487873, 1),
      (1200, 1210, 59, 'ncclRecv', 281474993487873, 1), (1400, 1600, 59, 'ncclGroupEnd', 281474993487873, 1),
      (3400, 3600, 59, 'ncclAllReduce', 281474993487873, 1);
  )");
  sqlite3_close(db);
  const Trace t = load_trace({path});
  REQUIRE(t.collectives.size() == 2);
  std::map<std::string, CollectiveOp> by_kernel;
  for (const CollectiveInfo& c : t.collectives)
    by_kernel[std::string(t.str(t.tracks[c.kernel.track].slices.name[c.kernel.index]))] = c.op;
  CHECK(by_kernel["ncclDevKernel_SendRecv"] == CollectiveOp::kSendRecv);
  CHECK(by_kernel["ncclDevKernel_AllReduce_Sum_f32_RING_LL"] == CollectiveOp::kAllReduce);
  fs::remove_all(dir);
}
