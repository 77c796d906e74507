// `parascope-cli simulate` and `calibrate` end to end: exit codes, the numbers they print, files
// they write, and the one-line errors bad inputs get.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "cli/run_command.h"
#include "test_paths.h"
#include "trace/core/json.h"
#include "trace/core/topology_json.h"

using namespace parascope;
using parascope::test::run_command;

namespace {
std::string cli() { return std::string(PARASCOPE_CLI); }
}  // namespace

TEST_CASE("simulate: the SimGrid anchor preset gives the hand-worked time", "[sim][cli]") {
  // 8 GPUs, 450 GB/s, 500 ns per link, 16 channels, one 8 MiB chunk per step: 14 steps of
  // 16 x 8 MiB / 450 GB/s + 1 us = 4.189663 ms (simulator_test.cpp works it out).
  const auto r = run_command(cli() + " simulate -t simgrid_star8 -w allreduce:bytes=1GiB,channels=16,chunk_bytes=8MiB,protocol=simple --json");
  REQUIRE(r.exit_code == 0);
  const JsonValue doc = parse_json(r.out, "stdout");
  REQUIRE(doc.find("schema_version")->as_int() == 1);
  REQUIRE(doc.find("time_ns")->as_double() == Approx(4189663).margin(1));
  const JsonValue& step = doc.find("steps")->items().at(0);
  REQUIRE(step.find("op")->text() == "allreduce");
  // busbw = 2 (n-1)/n x 1 GiB / 4.189663 ms = 448.5 GB/s
  REQUIRE(step.find("busbw_GBps")->as_double() == Approx(448.5).epsilon(1e-3));
  const JsonValue& link = doc.find("links")->items().at(0);
  REQUIRE(link.find("peak_utilization")->as_double() == Approx(1.0));
}

TEST_CASE("simulate: text output, a sweep and its files", "[sim][cli]") {
  const auto text = run_command(cli() + " simulate -t simgrid_star8 -w allreduce:bytes=64MiB --links 2");
  REQUIRE(text.exit_code == 0);
  REQUIRE_THAT(text.out, Catch::Contains("simulated time") && Catch::Contains("busbw") && Catch::Contains("gpu0->nvswitch"));
  const auto dir = test::temp_dir("sweep");
  const auto r = run_command(cli() + " simulate -t simgrid_star8 -w allreduce:bytes=64MiB --sweep channels=1,4,16 -o " + dir.string());
  REQUIRE(r.exit_code == 0);
  const std::string csv = test::slurp(dir / "summary.csv");
  REQUIRE_THAT(csv, Catch::StartsWith("channels,time_ns,"));
  REQUIRE(std::count(csv.begin(), csv.end(), '\n') == 4);  // header + 3 values
  REQUIRE(std::filesystem::exists(dir / "channels=16.pstrace"));
  // the trace file is a .pstrace (write_pstrace) the project's own reader loads: every rank with its
  // host and process name, link counters marked simulated
  const auto info = run_command(cli() + " info " + (dir / "channels=16.pstrace").string());
  REQUIRE(info.exit_code == 0);
  REQUIRE_THAT(info.out, Catch::Contains("format   pstrace") && Catch::Contains("rank 7  pid 7  host node0  simulation") &&
                             Catch::Contains("gpu7->nvswitch  simulated"));
  // -o FILE.json still writes Chrome trace JSON, which loads to the same ranks
  const auto json_path = (dir / "one.json").string();
  REQUIRE(run_command(cli() + " simulate -t simgrid_star8 -w allreduce:bytes=64MiB -o " + json_path).exit_code == 0);
  const auto info_json = run_command(cli() + " info " + json_path);
  REQUIRE(info_json.exit_code == 0);
  REQUIRE_THAT(info_json.out, Catch::Contains("rank 7 (simulated)"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("simulate: bad inputs get one clear line", "[sim][cli]") {
  auto r = run_command(cli() + " simulate -t no_such_machine -w allreduce");
  REQUIRE(r.exit_code == 2);
  REQUIRE_THAT(r.err, Catch::Contains("no topology file or preset named 'no_such_machine'") && Catch::Contains("h200x2"));
  r = run_command(cli() + " simulate -t h200x2 -w allreduse");
  REQUIRE(r.exit_code == 2);
  REQUIRE_THAT(r.err, Catch::Contains("unknown operation 'allreduse'"));
  r = run_command(cli() + " simulate -t h200x2 -w allreduce --set chanels=4");
  REQUIRE(r.exit_code == 2);
  REQUIRE_THAT(r.err, Catch::Contains("did you mean 'channels'"));
  r = run_command(cli() + " simulate -t h200x2 -w allreduce:gpus=8");
  REQUIRE(r.exit_code == 2);
  REQUIRE_THAT(r.err, Catch::Contains("gpus=8 but topology h200x2 has 2"));
  const auto dir = test::temp_dir("badtopo");
  const auto bad = (dir / "bad.json").string();
  std::ofstream(bad) << R"({"name": "x", "calibration": "guessed", "nodes": [], "links": []})";
  r = run_command(cli() + " simulate -t " + bad + " -w allreduce");
  REQUIRE(r.exit_code == 1);
  REQUIRE_THAT(r.err, Catch::Contains("$.calibration") && Catch::Contains("expected one of: measured, datasheet"));
  r = run_command(cli() + " simulate -t h200x2 -w allreduce -o " + (dir / "t.txt").string());
  REQUIRE(r.exit_code == 2);
  REQUIRE_THAT(r.err, Catch::Contains("unknown trace format '.txt' (use .pstrace or .json)"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("calibrate: fits the probe's curves and writes a measured topology", "[sim][cli]") {
  const auto dir = test::temp_dir("calibrate");
  const auto out = (dir / "h200x2.json").string();
  const auto r = run_command(cli() + " calibrate " + test::source_path("resources/calibration/h200x2_probe_p2p.json") + " -o " + out);
  REQUIRE(r.exit_code == 0);
  REQUIRE_THAT(r.out, Catch::Contains("copy engine") && Catch::Contains("residuals"));
  const Topology t = load_topology_file(out);
  REQUIRE(t.calibration == Calibration::kMeasured);
  const GpuSpec& g = *t.nodes[1].gpu;
  // the probe: 397 GB/s at 1 GiB and 15.7 GB/s at 64 KiB, so ~394 GB/s and a ~4 us setup
  REQUIRE(g.copy_engine.rate_bytes_per_s / 1e9 == Approx(394).margin(5));
  REQUIRE(g.copy_engine.setup_ns == Approx(4000).margin(300));
  // 38 GB/s per SM of 1024 threads, saturating in the 350s
  REQUIRE(g.ldst.per_sm_bytes_per_s / 1e9 == Approx(38).margin(0.5));
  REQUIRE(g.ldst.cap_bytes_per_s / 1e9 == Approx(360).margin(12));

  std::ofstream(dir / "bad.json") << R"({"schema_version": 1, "rows": [{"mechanism": "warp", "direction": "uni", "bytes": 1, "median_ns": 1}]})";
  const auto bad = run_command(cli() + " calibrate " + (dir / "bad.json").string() + " -o " + out + " --base h200x2");
  REQUIRE(bad.exit_code == 1);
  REQUIRE_THAT(bad.err, Catch::Contains("$.rows[0].mechanism") && Catch::Contains("unknown mechanism \"warp\""));
  std::filesystem::remove_all(dir);
}

TEST_CASE("knobs: lists the registry, one knob, JSON, and a misspelled name", "[sim][cli]") {
  const auto all = run_command(cli() + " knobs");
  REQUIRE(all.exit_code == 0);
  // one line per knob after the header; channels: int, collective, default 16, range [1, 1024]
  REQUIRE_THAT(all.out, Catch::StartsWith("knob "));
  REQUIRE_THAT(all.out, Catch::Contains("gpus_per_node") && Catch::Contains("nccl_profile") && Catch::Contains("comm_select"));
  const auto one = run_command(cli() + " knobs channels");
  REQUIRE(one.exit_code == 0);
  REQUIRE(std::count(one.out.begin(), one.out.end(), '\n') == 2);
  REQUIRE_THAT(one.out, Catch::Contains("channels") && Catch::Contains("int") && Catch::Contains("16 channels") &&
                            Catch::Contains("[1, 1024]"));
  const auto json = run_command(cli() + " knobs gpus_per_node mechanism --json");
  REQUIRE(json.exit_code == 0);
  const JsonValue doc = parse_json(json.out, "stdout");
  REQUIRE(doc.find("schema_version")->as_int() == 1);
  const auto& knobs = doc.find("knobs")->items();
  REQUIRE(knobs.size() == 2);
  REQUIRE(knobs[0].find("name")->text() == "gpus_per_node");
  REQUIRE(knobs[0].find("default")->text() == "8");
  REQUIRE(knobs[0].find("min")->as_double() == 1);
  REQUIRE(knobs[0].find("max")->as_double() == 64);
  REQUIRE(knobs[1].find("choices")->items().size() == 6);  // ce tma ldst multimem ldst_pull tma_pull
  const auto bad = run_command(cli() + " knobs chanels");
  REQUIRE(bad.exit_code == 2);
  REQUIRE_THAT(bad.err, Catch::Contains("did you mean 'channels'"));
  REQUIRE(run_command(cli() + " knobs --group schedule").exit_code == 0);
  REQUIRE(run_command(cli() + " knobs --group nothing").exit_code == 2);
}
