#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "cli/run_command.h"
#include "test_paths.h"
#include "trace/core/json.h"

using namespace parascope;
namespace fs = std::filesystem;

namespace {
std::string cli() { return PARASCOPE_CLI; }
std::string sample_dir() { return test::sample_path("allreduce_matmul_2xh200"); }
size_t lines(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }
}  // namespace

TEST_CASE("info prints ranks, devices, streams and counts of the sample", "[cli][info]") {
  const auto r = test::run_command(cli() + " info " + sample_dir());
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("rank 0  pid"));
  CHECK_THAT(r.out, Catch::Contains("rank 1  pid"));
  CHECK_THAT(r.out, Catch::Contains("GPU 1  NVIDIA H200 (132 SMs)"));
  CHECK_THAT(r.out, Catch::Contains("kernels 21 (communication 6, collectives 3)  memcpys 3  memsets 0"));
  CHECK_THAT(r.out, Catch::Contains("stream 17"));
  // each rank's clock as the timeline's rank header and the report say it (clock_alignment.h): both
  // files carry the same baseTimeNanoseconds, so rank 1 got nothing beyond rank 0
  CHECK_THAT(r.out, Catch::Contains("  clock reference: file times + 2026-10-01 12:17:06 UTC (+1790857026000000000 ns); "
                                    "importer: baseTimeNanoseconds\n"));
  CHECK_THAT(r.out, Catch::Contains("  clock aligned to rank 0, +0 ns: file times + 2026-10-01 12:17:06 UTC"));
}

TEST_CASE("info --json carries schema_version and per-device counts", "[cli][info]") {
  const auto r = test::run_command(cli() + " info --json " + sample_dir());
  REQUIRE(r.exit_code == 0);
  const JsonValue doc = parse_json(r.out, "info-output");
  REQUIRE(*doc.find("schema_version")->as_int() == 1);
  const auto& procs = doc.find("processes")->items();
  REQUIRE(procs.size() == 2);
  for (const auto& p : procs) {
    const auto& dev = p.find("devices")->items().at(0);
    CHECK(*dev.find("kernels")->as_int() == 21);
    CHECK(*dev.find("memcpys")->as_int() == 3);
    CHECK(*dev.find("memsets")->as_int() == 0);
    CHECK(*dev.find("communication_kernels")->as_int() == 6);
    CHECK(*dev.find("span_ns")->as_int() > 0);
    // the clock as the text says it, and its parts
    const JsonValue* clock = p.find("clock");
    REQUIRE(clock != nullptr);
    CHECK(clock->find("basis")->text() == "wall clock");
    CHECK(clock->find("aligned")->as_bool());
    CHECK(*clock->find("reference_rank")->as_int() == 0);
    CHECK(*clock->find("shift_ns")->as_int() == 0);
    CHECK(clock->find("details")->text() ==
          "file times + 2026-10-01 12:17:06 UTC (+1790857026000000000 ns); importer: baseTimeNanoseconds");
    CHECK(clock->find("label")->text() ==
          (*p.find("rank")->as_int() == 0 ? "clock reference" : "clock +0 ns vs rank 0"));
    CHECK(clock->find("text")->text() == (*p.find("rank")->as_int() == 0 ? "clock reference: " : "clock aligned to rank 0, +0 ns: ") +
                                           clock->find("details")->text());
  }
}

TEST_CASE("info on bad input: one line naming the file, non-zero exit, no crash", "[cli][info][errors]") {
  const fs::path dir = test::temp_dir("cli-bad");
  SECTION("missing file") {
    const auto r = test::run_command(cli() + " info " + (dir / "missing.json").string());
    CHECK(r.exit_code == 1);
    CHECK(lines(r.err) == 1);
    CHECK(r.err == "parascope-cli info: " + (dir / "missing.json").string() + ": no such file or directory\n");
  }
  SECTION("not JSON") {
    std::ofstream(dir / "notes.json") << "these are notes, not a trace\n";
    const auto r = test::run_command(cli() + " info " + (dir / "notes.json").string());
    CHECK(r.exit_code == 1);
    CHECK(lines(r.err) == 1);
    CHECK_THAT(r.err, Catch::Contains("notes.json (byte 0): expected '{' or '[' at the start of a trace, found 't'"));
  }
  SECTION("truncated JSON") {
    const std::string text = test::slurp(sample_dir() + "/rank1.json");
    std::ofstream(dir / "cut.json") << text.substr(0, 70000);
    const auto r = test::run_command(cli() + " info " + (dir / "cut.json").string());
    CHECK(r.exit_code == 1);
    CHECK(lines(r.err) == 1);
    CHECK_THAT(r.err, Catch::Contains("cut.json (byte ") && Catch::Contains("(truncated trace)"));
  }
  SECTION("a directory with nothing in it, and no input at all") {
    const auto r = test::run_command(cli() + " info " + dir.string());
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("holds no trace files"));
    const auto u = test::run_command(cli() + " info");
    CHECK(u.exit_code == 2);
    CHECK_THAT(u.err, Catch::Contains("no input given"));
  }
  fs::remove_all(dir);
}
