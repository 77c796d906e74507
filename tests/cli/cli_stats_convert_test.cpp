#include <catch2/catch.hpp>

#include <filesystem>

#include "cli/run_command.h"
#include "test_paths.h"
#include "trace/core/json.h"

using namespace parascope;
namespace fs = std::filesystem;

namespace {
std::string cli() { return PARASCOPE_CLI; }
std::string sample_dir() { return test::sample_path("allreduce_matmul_2xh200"); }
}  // namespace

TEST_CASE("stats prints aligned tables of the analyses for the sample", "[cli][stats]") {
  const auto r = test::run_command(cli() + " stats --top 3 " + sample_dir());
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("Busy/idle per device"));
  CHECK_THAT(r.out, Catch::Contains("exposed comm"));
  CHECK_THAT(r.out, Catch::Contains("ncclDevKernel_AllReduce_Sum_f32_RING_LL"));
  CHECK_THAT(r.out, Catch::Contains("Cross-rank matching: 3 complete (0 by sequence number, 3 by order), 0 incomplete"));
  CHECK_THAT(r.out, Catch::Contains("rank 0 GPU 0 \xE2\x86\x92 rank 1 GPU 1"));
  CHECK_THAT(r.out, Catch::Contains("estimated"));
}

TEST_CASE("stats --json carries schema_version and the analyses' numbers", "[cli][stats]") {
  const auto r = test::run_command(cli() + " stats --json " + sample_dir());
  REQUIRE(r.exit_code == 0);
  const JsonValue doc = parse_json(r.out, "stats --json");
  REQUIRE(doc.find("schema_version"));
  CHECK(doc.find("schema_version")->as_int() == 1);
  const auto& devices = doc.find("devices")->items();
  REQUIRE(devices.size() == 2);
  // tests/analysis (Python): rank 0 communication 751739 ns, none of it under compute
  const JsonValue* ov = devices[0].find("overlap");
  CHECK(ov->find("communication_ns")->as_int() == 751739);
  CHECK(ov->find("overlap_ns")->as_int() == 0);
  CHECK(devices[0].find("exposed_communication")->find("exposed_ns")->as_int() == 751739);
  CHECK(devices[1].find("busy_idle")->find("idle_ns")->as_int() == 1535768);
  const JsonValue* matching = doc.find("matching");
  CHECK(matching->find("complete")->as_int() == 3);
  CHECK(matching->find("incomplete")->as_int() == 0);
  CHECK(doc.find("links")->find("source")->text() == "estimated");
  CHECK(doc.find("links")->find("links")->items().size() == 2);
  CHECK(doc.find("kernels")->find("overall")->find("kernels")->as_int() == 42);
}

TEST_CASE("convert refuses what it cannot write, before reading anything", "[cli][convert]") {
  const fs::path dir = test::temp_dir("cli-convert");
  SECTION("no output") {
    const auto r = test::run_command(cli() + " convert " + sample_dir());
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("no output given"));
  }
  SECTION("unknown extension") {
    const auto r = test::run_command(cli() + " convert " + sample_dir() + " -o " + (dir / "x.txt").string());
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("unknown output format"));
  }
  SECTION("bad input is an input error naming the file") {
    const auto r = test::run_command(cli() + " convert /nonexistent.json -o " + (dir / "x.json").string());
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("/nonexistent.json"));
    CHECK_FALSE(fs::exists(dir / "x.json"));
  }
  fs::remove_all(dir);
}

TEST_CASE("convert to JSON writes one file per rank and re-reads with the same counts", "[cli][convert]") {
  const fs::path dir = test::temp_dir("cli-convert-json");
  const auto r = test::run_command(cli() + " convert --quiet " + sample_dir() + " -o " + (dir / "out.json").string());
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("out.rank0.json (chrome-json)"));
  CHECK_THAT(r.out, Catch::Contains("out.rank1.json (chrome-json)"));
  const auto info = test::run_command(cli() + " info --json " + dir.string());
  REQUIRE(info.exit_code == 0);
  const JsonValue doc = parse_json(info.out, "info --json");
  CHECK(doc.find("slices")->as_int() == 476);
  for (const JsonValue& p : doc.find("processes")->items()) {
    const JsonValue& d = p.find("devices")->items().at(0);
    CHECK(d.find("kernels")->as_int() == 21);
    CHECK(d.find("memcpys")->as_int() == 3);
    CHECK(d.find("collectives")->as_int() == 3);
  }
  fs::remove_all(dir);
}

TEST_CASE("convert round-trips JSON -> native .pstrace -> JSON with the same counts and analyses", "[cli][convert][pstrace]") {
  const fs::path dir = test::temp_dir("cli-convert-pstrace");
  const std::string native = (dir / "sample.pstrace").string();
  const auto w = test::run_command(cli() + " convert --quiet " + sample_dir() + " -o " + native);
  REQUIRE(w.exit_code == 0);
  CHECK_THAT(w.out, Catch::Contains("sample.pstrace (pstrace)"));
  // the native file against the JSON it came from: same slices, kernels, copies, collectives,
  // and the same analysis numbers (stats --json of the JSON sample, pinned above)
  const auto a = test::run_command(cli() + " info --json " + sample_dir());
  const auto b = test::run_command(cli() + " info --json " + native);
  REQUIRE(a.exit_code == 0);
  REQUIRE(b.exit_code == 0);
  const JsonValue ja = parse_json(a.out, "info a"), jb = parse_json(b.out, "info b");
  CHECK(jb.find("slices")->as_int() == ja.find("slices")->as_int());
  CHECK(jb.find("slices")->as_int() == 476);
  CHECK(jb.find("flows")->as_int() == ja.find("flows")->as_int());
  for (const JsonValue& p : jb.find("processes")->items()) {
    const JsonValue& d = p.find("devices")->items().at(0);
    CHECK(d.find("kernels")->as_int() == 21);
    CHECK(d.find("memcpys")->as_int() == 3);
    CHECK(d.find("collectives")->as_int() == 3);
  }
  const auto s = test::run_command(cli() + " stats --json " + native);
  REQUIRE(s.exit_code == 0);
  const JsonValue st = parse_json(s.out, "stats native");
  CHECK(st.find("devices")->items().at(0).find("exposed_communication")->find("exposed_ns")->as_int() == 751739);
  CHECK(st.find("kernels")->find("overall")->find("kernels")->as_int() == 42);
  // and back to JSON: the same again
  const auto j = test::run_command(cli() + " convert --quiet " + native + " -o " + (dir / "back.json").string());
  REQUIRE(j.exit_code == 0);
  const auto c = test::run_command(cli() + " info --json " + (dir / "back.rank0.json").string() + " " + (dir / "back.rank1.json").string());
  REQUIRE(c.exit_code == 0);
  CHECK(parse_json(c.out, "info back").find("slices")->as_int() == 476);
  fs::remove_all(dir);
}

TEST_CASE("stats says how many matched collectives --top leaves out, complete and incomplete", "[cli][stats]") {
  // the TP capture: 12 collectives per rank (4 each of all-reduce, all-gather, reduce-scatter); both ranks: 12 complete
  // matches; rank 0 alone: the same 12, each incomplete (its peer is missing). --top 2 shows 2.
  const std::string capture = test::source_path("resources/captures/h200x2_2026-11-30/tp_serial_b1");
  const auto both = test::run_command(cli() + " stats -q --top 2 " + capture);
  INFO(both.err);
  REQUIRE(both.exit_code == 0);
  CHECK_THAT(both.out, Catch::Contains("Cross-rank matching: 12 complete (0 by sequence number, 12 by order), 0 incomplete"));
  CHECK_THAT(both.out, Catch::Contains("(10 more matches not shown, of 12 complete and 0 incomplete; --json lists all)"));
  const auto one = test::run_command(cli() + " stats -q --top 2 " + capture + "/rank0.1796033537323056234.pt.trace.json");
  REQUIRE(one.exit_code == 0);
  CHECK_THAT(one.out, Catch::Contains("0 complete (0 by sequence number, 0 by order), 12 incomplete, 12 collectives unmatched"));
  CHECK_THAT(one.out, Catch::Contains("(10 more matches not shown, of 0 complete and 12 incomplete; --json lists all)"));
  // all shown: no such line
  const auto all = test::run_command(cli() + " stats -q --top 12 " + capture);
  CHECK_THAT(all.out, !Catch::Contains("more matches not shown"));
}

TEST_CASE("stats tells the NCCL kernels apart in its text tables", "[cli][stats][text_table]") {
  // issue 18: 'ncclDevKerne…age<4096ul>)' made AllReduce, ReduceScatter and AllGather look identical
  const auto r = test::run_command(cli() + " stats -q " + test::source_path("resources/captures/h200x2_2026-11-30/tp_serial_b1_nch4"));
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("  ncclDevKernel_AllReduce_Sum_bf16_RING_LL(…)  "));
  CHECK_THAT(r.out, Catch::Contains("  ncclDevKernel_AllGather_RING_LL(…)  "));
  CHECK_THAT(r.out, Catch::Contains("  ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(…)  "));
  CHECK_THAT(r.out, !Catch::Contains("(ncclDevKernelArgsS"));
}
