#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "test_paths.h"
#include "trace/core/error.h"
#include "trace/core/summary.h"
#include "trace/io/load_trace.h"
#include "trace/io/nsys_sqlite_reader.h"

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
//   count(*) of CUPTI_ACTIVITY_KIND_RUNTIME + NVTX_EVENTS (all eventType 59, push/pop).
TEST_CASE("Nsight export h100_2gpu_1s: per-device counts equal sqlite3's", "[io][nsys]") {
  if (!test::shared_available()) {
    WARN("skipped: ../shared/data (real Nsight exports) is not present");
    return;
  }
  // kernels 1721/1721, memcpy 452/452 (55159490089 bytes each), memset 11/11, syncs 122/122,
  // flows 2092, runtime 5796 + NVTX 16782 = 22578 CPU slices
  check_export(test::shared_path("data/nsys/h100_2gpu_1s.sqlite"),
               {{111, 0, 1721, 452, 11, 122, 0, 55159490089ull}, {112, 1, 1721, 452, 11, 122, 0, 55159490089ull}},
               2092, 5796 + 16782);
}

TEST_CASE("Nsight export mfu_2gpu_before: per-device counts equal sqlite3's", "[io][nsys]") {
  if (!test::shared_available()) {
    WARN("skipped: ../shared/data (real Nsight exports) is not present");
    return;
  }
  // kernels 1993/2017 (33 ncclDevKernel_SendRecv each), memcpy 510/510 (4023067272 bytes each),
  // memset 133/136, syncs 178/188, flows 5268, runtime 7466 + NVTX 19118 CPU slices
  check_export(test::shared_path("data/nsys/mfu_2gpu_before.sqlite"),
               {{144, 0, 1993, 510, 133, 178, 33, 4023067272ull}, {145, 1, 2017, 510, 136, 188, 33, 4023067272ull}},
               5268, 7466 + 19118);
}

TEST_CASE("Nsight export details: clock, names, copy kinds, launch flows, NVTX", "[io][nsys]") {
  if (!test::shared_available()) {
    WARN("skipped: ../shared/data (real Nsight exports) is not present");
    return;
  }
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
