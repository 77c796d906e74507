// `parascope-cli diff A B` on two real TP runs (NCCL default channels against 4 channels): the
// JSON holds the same tables as the GUI's Diff dock (numbers from the raw Kineto JSON, see
// tests/analysis/trace_diff_test.cpp), the CSVs one file per table, bad usage exits with 2.
#include <catch2/catch.hpp>

#include <filesystem>

#include "cli/run_command.h"
#include "skip.h"
#include "test_paths.h"
#include "trace/core/json.h"

using namespace parascope;

namespace {
std::string cli() { return PARASCOPE_CLI; }
std::string capture(const std::string& v) { return test::source_path("resources/captures/h200x2_2026-11-30/" + v); }
}  // namespace

TEST_CASE("diff --json pairs the steps of two TP runs and lists kernel and collective deltas", "[cli][diff]") {
  const auto dir = test::temp_dir("cli-diff");
  const auto r = test::run_command(cli() + " diff --json --csv " + dir.string() + " " + capture("tp_serial_b1") + " " +
                                   capture("tp_serial_b1_nch4"));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const JsonValue doc = parse_json(r.out, "stdout");
  CHECK(doc.find("schema_version")->as_int() == 2);
  CHECK(doc.find("paired_by")->text() == "name");
  const auto& steps = doc.find("steps")->find("rows")->items();
  REQUIRE(steps.size() == 4);
  CHECK(steps[0].find("step_a")->text() == "ProfilerStep#3");
  CHECK(steps[0].find("host_a_ns")->as_int() == 3936866);
  CHECK(steps[0].find("host_b_ns")->as_int() == 5089086);
  CHECK(steps[0].find("host_diff_ns")->as_int() == 5089086 - 3936866);
  const auto& kernels = doc.find("kernels")->find("rows")->items();
  REQUIRE(!kernels.empty());
  CHECK(kernels[0].find("time_a_ns")->as_int() == 2064466);  // the all-reduce, the largest change
  CHECK(kernels[0].find("time_b_ns")->as_int() == 6573461);
  CHECK(doc.find("collectives")->find("rows")->items().size() == 3);
  for (const char* f : {"diff_steps.csv", "diff_kernels.csv", "diff_collectives.csv"}) CHECK(std::filesystem::exists(dir / f));
  std::filesystem::remove_all(dir);
}

TEST_CASE("diff wants exactly two inputs and a valid step pattern", "[cli][diff]") {
  CHECK(test::run_command(cli() + " diff " + capture("tp_serial_b1")).exit_code == 2);
  const auto r = test::run_command(cli() + " diff --step '(bad' " + test::sample_path("fused_probe_2xh200/fused_probe.pstrace") + " " +
                                   test::sample_path("fused_probe_2xh200/fused_probe.pstrace"));
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("not a valid regular expression"));
}

TEST_CASE("diff pairs a run with its prediction written by whatif -o", "[cli][diff]") {
  // the predicted JSON keeps the steps (ProfilerStep#3..#6), sizes and streams of the measurement
  const auto dir = test::temp_dir("cli-diff-pred");
  const std::string pred = (dir / "pred.json").string();
  const auto w = test::run_command(cli() + " whatif -q -t h200x2 --set channels=4 -o " + pred + " " + capture("tp_serial_b1"));
  INFO(w.err);
  REQUIRE(w.exit_code == 0);
  const auto r = test::run_command(cli() + " diff --json " + capture("tp_serial_b1") + " " + pred);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const JsonValue doc = parse_json(r.out, "stdout");
  CHECK(doc.find("paired_by")->text() == "name");
  CHECK(doc.find("steps_b")->text() == "ProfilerStep#N");
  const auto& steps = doc.find("steps")->find("rows")->items();
  REQUIRE(steps.size() == 4);
  CHECK(steps[0].find("host_a_ns")->as_int() == 3936866);
  CHECK(steps[0].find("host_b_ns")->as_int() > 3936866);  // 4 channels: slower
  for (const JsonValue& c : doc.find("collectives")->find("rows")->items()) {
    CHECK(c.find("bytes")->as_int() == 67108864);
    CHECK(c.find("count_a")->as_int() == c.find("count_b")->as_int());
  }
  const auto& tracks = doc.find("tracks")->find("rows")->items();
  REQUIRE(tracks.size() == 2);
  for (const JsonValue& t : tracks) {
    CHECK(t.find("ops_a")->as_int() == 48);  // 8 kernels and 4 memsets per step
    CHECK(t.find("ops_b")->as_int() == 48);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("diff --set compares a run with its in-memory prediction, as whatif predicts it", "[cli][diff]") {
  const std::string a = capture("tp_serial_b1");
  const auto w = test::run_command(cli() + " whatif -q --json -t h200x2 --set channels=4 " + a);
  INFO(w.err);
  REQUIRE(w.exit_code == 0);
  const auto r = test::run_command(cli() + " diff --json --machine h200x2 --set channels=4 " + a);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const JsonValue pred = parse_json(w.out, "whatif");
  const JsonValue doc = parse_json(r.out, "diff");
  CHECK(doc.find("b")->text() == "what-if channels=4");
  // per step, the slower rank's predicted range is whatif's replay_ns
  const auto& steps = doc.find("steps")->find("rows")->items();
  REQUIRE(steps.size() == 4);
  for (const JsonValue& s : steps) {
    int64_t replay = 0;
    for (const JsonValue& p : pred.find("prediction")->find("steps")->items())
      if (p.find("step")->text() == s.find("step_b")->text()) replay = std::max(replay, p.find("replay_ns")->as_int().value_or(0));
    CHECK(s.find("host_b_ns")->as_int() == replay);
  }
  // links: the measurement's estimate against the simulated load (h200x2: 478.1 GB/s per direction)
  const auto& links = doc.find("links")->find("rows")->items();
  REQUIRE(links.size() == 4);
  for (const JsonValue& l : links) {
    CHECK(l.find("source_b")->text() == "simulated");
    CHECK(l.find("mean_util_b")->as_double() == Approx(l.find("mean_b_bytes_per_s")->as_double() / 478.1e9));
  }
  CHECK(test::run_command(cli() + " diff --set channels=4 " + a + " " + a).exit_code == 2);
}

TEST_CASE("diff says how it paired HTA's rank 3 with rank 1 and takes --rank-map (../shared)", "[cli][diff][shared]") {
  const std::string h = test::shared_path("external/hta_testdata/");
  const std::string pair = h + "trace_diff__control__control.json.gz " + h + "trace_diff__test__test.json.gz";
  if (!std::filesystem::exists(h + "trace_diff__test__test.json.gz")) PARASCOPE_SKIP("../shared/external/hta_testdata is not present");
  const auto r = test::run_command(cli() + " diff -q " + pair);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("ranks paired by position (one rank on each side): A's rank 3 with B's rank 1"));
  CHECK_THAT(r.out, Catch::Contains("GPU ops launched before the trace began (A 0, B 614)"));
  CHECK_THAT(r.out, Catch::Contains("Memcpy DtoD (Device -> Device)"));
  const auto j = test::run_command(cli() + " diff --json --rank-map 3:1 " + pair);
  REQUIRE(j.exit_code == 0);
  const JsonValue doc = parse_json(j.out, "stdout");
  CHECK(doc.find("ranks_paired")->text().rfind("by --rank-map: A's rank 3 with B's rank 1", 0) == 0);
  CHECK(doc.find("before_first_step_b")->as_int() == 614);
  CHECK(doc.find("kernels")->find("rows")->items()[0].find("gpu_op")->text() == "Memcpy DtoD (Device -> Device)");
  CHECK(doc.find("steps")->find("rows")->items()[0].find("step_b")->text() == "before the first step");
  const auto bad = test::run_command(cli() + " diff --rank-map 3-1 " + pair);
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("'3-1' is not A:B"));
  const auto missing = test::run_command(cli() + " diff --rank-map 5:1 " + pair);
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.err, Catch::Contains("A has no rank 5 (its ranks: 3)"));
}
