#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "cli/run_command.h"
#include "skip.h"
#include "test_paths.h"
#include "trace/core/json.h"
#include "trace/io/load_trace.h"
#include "trace/io/pstrace/chunk_reader.h"
#include "trace/io/pstrace/crc32c.h"
#include "trace/io/pstrace/pstrace_writer.h"

using namespace parascope;
namespace fs = std::filesystem;

namespace {
std::string cli() { return PARASCOPE_CLI; }
size_t lines(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

// The bundled 2-rank Kineto sample, as one .pstrace.
std::string sample_pstrace(const fs::path& dir) {
  const std::string path = (dir / "sample.pstrace").string();
  write_pstrace(load_trace({test::sample_path("allreduce_matmul_2xh200")}), path);
  return path;
}
}  // namespace

TEST_CASE("info reads a .pstrace with the counts of the JSON it came from", "[cli][info][pstrace]") {
  const fs::path dir = test::temp_dir("cli-pst");
  const std::string path = sample_pstrace(dir);
  const auto r = test::run_command(cli() + " info " + path);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("format   pstrace, 1 file\n"));
  // the numbers of cli_info_test's JSON run (README of the sample): 21 kernels, 6 NCCL, 3 copies
  CHECK_THAT(r.out, Catch::Contains("rank 0  pid"));
  CHECK_THAT(r.out, Catch::Contains("rank 1  pid"));
  CHECK_THAT(r.out, Catch::Contains("GPU 1  NVIDIA H200 (132 SMs)"));
  CHECK_THAT(r.out, Catch::Contains("kernels 21 (communication 6, collectives 3)  memcpys 3  memsets 0"));
  // the clock offset applied when the JSON was read is kept, with its reason
  CHECK_THAT(r.out, Catch::Contains("clock reference: file times + 2026-10-01 12:17:06 UTC (+1790857026000000000 ns); "
                                    "importer: baseTimeNanoseconds"));
  const auto j = test::run_command(cli() + " info --json " + path);
  REQUIRE(j.exit_code == 0);
  const JsonValue doc = parse_json(j.out, "info-output");
  CHECK(doc.find("format")->text() == "pstrace");
  const auto& procs = doc.find("processes")->items();
  REQUIRE(procs.size() == 2);
  for (const auto& p : procs) {
    const auto& dev = p.find("devices")->items().at(0);
    CHECK(*dev.find("kernels")->as_int() == 21);
    CHECK(*dev.find("memcpys")->as_int() == 3);
    CHECK(*dev.find("communication_kernels")->as_int() == 6);
  }
  fs::remove_all(dir);
}

TEST_CASE("info on a damaged or newer .pstrace: warnings, or one line and exit 1", "[cli][info][pstrace][errors]") {
  const fs::path dir = test::temp_dir("cli-pst-bad");
  const std::string path = sample_pstrace(dir);
  SECTION("cut in the middle of a chunk: what is complete is shown, with a warning") {
    // Cut inside the body of the largest chunk (not just at half the size: the file embeds its
    // source path, so half of it lands on a chunk header in some checkouts and not in others).
    uint64_t cut = 0, largest = 0;
    {
      const ChunkReader reader(path);
      for (const ChunkInfo& c : reader.chunks())
        if (c.header.length > largest) {
          largest = c.header.length;
          cut = c.offset + kChunkHeaderBytes + c.header.length / 2;
        }
    }
    REQUIRE(largest > 2);
    fs::resize_file(path, cut);
    const auto r = test::run_command(cli() + " info " + path);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("\nwarnings\n") && Catch::Contains("file is truncated: chunk #"));
  }
  SECTION("major version 3") {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    const uint16_t major = 3;
    f.seekp(8);
    f.write(reinterpret_cast<const char*>(&major), 2);
    f.seekg(0);
    char head[28];
    f.read(head, 28);
    const uint32_t crc = crc32c(head, 28);
    f.seekp(28);
    f.write(reinterpret_cast<const char*>(&crc), 4);
    f.close();
    const auto r = test::run_command(cli() + " info " + path);
    CHECK(r.exit_code == 1);
    CHECK(lines(r.err) == 1);
    CHECK(r.err == "parascope-cli info: " + path + " (byte 8): format version 3.0 is newer than this build reads (1.x); update Parascope\n");
  }
  fs::remove_all(dir);
}

#ifdef PARASCOPE_HAVE_SQLITE
TEST_CASE("info reads an Nsight Systems SQLite export", "[cli][info][nsys]") {
  if (!test::shared_available()) PARASCOPE_SKIP("../shared/data (real Nsight exports) is not present");
  const std::string f = test::shared_path("data/nsys/mfu_2gpu_before.sqlite");
  const auto r = test::run_command(cli() + " info " + f);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("format   nsys-sqlite, 1 file\n"));
  // sqlite3: kernels per device 1993 / 2017, 33 ncclDevKernel_SendRecv each, memcpy 510 each,
  // memset 133 / 136, syncs by process 178 / 188; 32 of the 33 named all_to_all by NCCL's NVTX
  // ranges (the first was launched before the capture); PROFILER_OVERHEAD 3 rows per process
  CHECK_THAT(r.out, Catch::Contains("kernels 1993 (communication 33, collectives 32)  memcpys 510  memsets 133  syncs 178"));
  CHECK_THAT(r.out, Catch::Contains("kernels 2017 (communication 33, collectives 32)  memcpys 510  memsets 136  syncs 188"));
  CHECK_THAT(r.out, Catch::Contains("profiler overhead 3)"));
  // one session clock for both processes: the session start as a UTC date, the second process aligned to the first
  CHECK_THAT(r.out, Catch::Contains("clock reference: file times + 2026-05-26 07:58:50.176752435 UTC (+1779782330176752435 ns); "
                                    "importer: TARGET_INFO_SESSION_START_TIME.utcEpochNs"));
  CHECK_THAT(r.out, Catch::Contains("clock aligned to python3 (144), +0 ns: file times + 2026-05-26 07:58:50.176752435 UTC"));
  const auto j = test::run_command(cli() + " info --json " + f);
  REQUIRE(j.exit_code == 0);
  const JsonValue doc = parse_json(j.out, "info-output");
  CHECK(doc.find("format")->text() == "nsys-sqlite");
  CHECK(*doc.find("flows")->as_int() == 5268);
}
#endif
