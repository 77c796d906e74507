// `parascope-cli whatif` end to end on the bundled sample: the replay report, JSON with
// schema_version, a prediction with --set, a parallel sweep with summary.csv, the predicted trace
// written and read back, and errors as one line with the right exit code.
#include <catch2/catch.hpp>

#include <filesystem>

#include "cli/run_command.h"
#include "test_paths.h"
#include "trace/core/json.h"
#include "trace/io/load_trace.h"

using namespace parascope;
namespace fs = std::filesystem;

namespace {
std::string cli() { return std::string(PARASCOPE_CLI) + " whatif "; }
std::string sample() { return test::sample_path("allreduce_matmul_2xh200"); }
size_t lines(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }
}  // namespace

TEST_CASE("cli whatif: replay report of the sample", "[cli][whatif]") {
  const auto r = test::run_command(cli() + sample() + " -t h200x2");
  REQUIRE(r.exit_code == 0);
  // the graph's counts (dep_graph_test checks them against the JSON)
  CHECK_THAT(r.out, Catch::Contains("graph    296 nodes (248 host calls on 2 threads, 48 GPU ops on 4 streams), 2 ranks"));
  CHECK_THAT(r.out, Catch::Contains("edges    launch 48, graph launch 0, event wait 20, host sync 16, collective 3, send/recv 3"));
  CHECK_THAT(r.out, Catch::Contains("-- replay of the unchanged graph"));
  CHECK_THAT(r.out, Catch::Contains("ProfilerStep#2"));
  CHECK_THAT(r.out, Catch::Contains("step time (mean over steps of the slowest rank): measured 1.037 ms, replay"));
  CHECK_THAT(r.out, Catch::Contains("critical path"));
  CHECK_THAT(r.out, Catch::Contains("gpu0->nvswitch"));
}

TEST_CASE("cli whatif: --json carries schema_version, the graph and every step", "[cli][whatif]") {
  const auto r = test::run_command(cli() + sample() + " -t h200x2 --json");
  REQUIRE(r.exit_code == 0);
  const JsonValue doc = parse_json(r.out, "whatif-output");
  CHECK(*doc.find("schema_version")->as_int() == 1);
  CHECK(*doc.find("graph")->find("edges")->find("launch")->as_int() == 48);
  const JsonValue& replay = *doc.find("replay");
  CHECK(replay.find("steps")->items().size() == 6);  // 3 steps x 2 ranks
  CHECK(replay.find("measured_step_ns")->as_double() > 1'000'000);
  CHECK(doc.find("prediction") == nullptr);
}

TEST_CASE("cli whatif: --set predicts and compares with the unchanged replay", "[cli][whatif]") {
  const auto r = test::run_command(cli() + sample() + " -t h200x2 --set comm_select=allreduce --set comm_split=2");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("-- prediction (--set comm_select=allreduce comm_split=2)"));
  CHECK_THAT(r.out, Catch::Contains("split 3 collectives into 2 buckets each"));
  CHECK_THAT(r.out, Catch::Contains("vs the unchanged replay: step"));
  const auto j = test::run_command(cli() + sample() + " -t h200x2 --json --set channels=4");
  REQUIRE(j.exit_code == 0);
  const JsonValue doc = parse_json(j.out, "whatif-output");
  REQUIRE(doc.find("prediction") != nullptr);
  // 4 channels instead of the default: the all-reduces take longer
  CHECK(doc.find("diff")->find("gpu_step_ns")->as_double() > 0);
}

TEST_CASE("cli whatif: a sweep runs every grid point, sorted, with summary.csv", "[cli][whatif][sweep]") {
  const fs::path dir = test::temp_dir("whatif-sweep");
  const auto r = test::run_command(cli() + sample() + " -t h200x2 -q --sweep channels=2,16 --sweep comm_stream=trace,serial -o " +
                                   dir.string());
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("whatif sweep: 4 variants on h200x2"));
  const std::string csv = test::slurp(dir / "summary.csv");
  CHECK(lines(csv) == 5);
  CHECK_THAT(csv, Catch::StartsWith("channels,comm_stream,step_ns,gpu_step_ns,exposed_ns,vs_replay,error\n"));
  // sorted by predicted step time: 16 channels before 2
  CHECK(csv.find("\n16,") < csv.find("\n2,"));
  fs::remove_all(dir);
}

TEST_CASE("cli whatif: -o writes the predicted trace, readable like any other", "[cli][whatif]") {
  const fs::path dir = test::temp_dir("whatif-out");
  const std::string out = (dir / "predicted.json").string();
  const auto r = test::run_command(cli() + sample() + " -t h200x2 --set comm_select=allreduce --set comm_stream=side -o " + out);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("predicted trace written to " + out));
  const Trace t = load_trace({out});
  size_t kernels = 0;
  for (const Track& tr : t.tracks)
    if (tr.key.kind == TrackKind::kGpuStream) kernels += tr.slices.size();
  CHECK(kernels == 48);  // 21 kernels + 3 copies per rank
  fs::remove_all(dir);
}

TEST_CASE("cli whatif: errors are one line with the right exit code", "[cli][whatif][errors]") {
  const auto bad_knob = test::run_command(cli() + sample() + " -t h200x2 --set chanels=4");
  CHECK(bad_knob.exit_code == 2);
  CHECK_THAT(bad_knob.err, Catch::Contains("unknown knob 'chanels' (did you mean 'channels'?)"));
  const auto bad_topo = test::run_command(cli() + sample() + " -t no_such_machine");
  CHECK(bad_topo.exit_code == 2);
  const auto missing = test::run_command(cli() + "/no/such/trace.json -t h200x2");
  CHECK(missing.exit_code == 1);
  CHECK(lines(missing.err) == 1);
  const auto scale = test::run_command(cli() + sample() + " -t h200x2 --set scale_gpus=3");
  CHECK(scale.exit_code == 1);
  CHECK_THAT(scale.err, Catch::Contains("scale_gpus=3 is not a multiple of the 2 traced GPUs"));
}
