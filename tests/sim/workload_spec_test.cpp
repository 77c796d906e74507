// The workload grammar: SPEC strings and JSON files, and the errors bad ones get.
#include <catch2/catch.hpp>

#include <fstream>

#include "sim/workload_spec.h"
#include "test_paths.h"
#include "trace/core/error.h"

using namespace parascope;
using namespace parascope::sim;

TEST_CASE("Workload spec: steps, knobs and aliases", "[sim][workload]") {
  const auto steps = parse_workload_spec("allreduce:algo=ring,bytes=1GiB,gpus=8; gemm:repeat=4 ;AllGather:stream=2,chunk=64KiB");
  REQUIRE(steps.size() == 3);
  REQUIRE(steps[0].op == "allreduce");
  REQUIRE(steps[0].knobs.get_enum("algorithm") == "ring");
  REQUIRE(steps[0].knobs.get_int("bytes") == int64_t{1} << 30);
  REQUIRE(steps[0].knobs.get_int("gpus") == 8);
  REQUIRE(steps[1].op == "gemm");
  REQUIRE(steps[1].knobs.get_int("repeat") == 4);
  REQUIRE(steps[2].op == "allgather");
  REQUIRE(steps[2].stream == 2);
  REQUIRE(steps[2].knobs.get_int("chunk_bytes") == 65536);
}

TEST_CASE("Workload spec: bad specs name the step and the problem", "[sim][workload]") {
  REQUIRE_THROWS_WITH(parse_workload_spec("allreduse:bytes=1GiB"),
                      Catch::StartsWith("workload 'allreduse:bytes=1GiB': unknown operation 'allreduse'; expected one of: allreduce"));
  REQUIRE_THROWS_WITH(parse_workload_spec("allreduce:bytez=1GiB"), Catch::Contains("unknown knob 'bytez' (did you mean 'bytes'?)"));
  REQUIRE_THROWS_WITH(parse_workload_spec("allreduce:bytes"), Catch::Contains("expected knob=value, got 'bytes'"));
  REQUIRE_THROWS_WITH(parse_workload_spec("allreduce:channels=0"), Catch::Contains("knob channels: '0' is not in range [1, 128]"));
  REQUIRE_THROWS_WITH(parse_workload_spec("allreduce;"), Catch::Contains("empty step"));
}

TEST_CASE("Workload file: steps from JSON, errors with the JSON path", "[sim][workload]") {
  const auto dir = test::temp_dir("workload");
  const auto good = (dir / "w.json").string();
  std::ofstream(good) << R"({"schema_version": 1, "steps": [
      {"op": "gemm", "repeat": 4, "gemm_m": 8192},
      {"op": "all_reduce", "stream": 1, "bytes": "16MiB", "channels": 24}]})";
  const auto steps = parse_workload(good);
  REQUIRE(steps.size() == 2);
  REQUIRE(steps[0].knobs.get_int("repeat") == 4);
  REQUIRE(steps[1].op == "allreduce");
  REQUIRE(steps[1].stream == 1);
  REQUIRE(steps[1].knobs.get_int("channels") == 24);

  const auto bad = (dir / "bad.json").string();
  std::ofstream(bad) << R"({"steps": [{"op": "allreduce"}, {"op": "allreduce", "window": 0}]})";
  try {
    parse_workload(bad);
    FAIL("expected an error");
  } catch (const InputError& e) {
    REQUIRE(e.where().field == "$.steps[1].window");
    REQUIRE_THAT(e.problem(), Catch::Contains("is not in range [1, 1024]"));
  }
  const auto unknown = (dir / "unknown.json").string();
  std::ofstream(unknown) << R"({"steps": [{"op": "broadcastt"}]})";
  REQUIRE_THROWS_WITH(parse_workload(unknown), Catch::Contains("$.steps[0].op") && Catch::Contains("unknown operation \"broadcastt\""));
  std::filesystem::remove_all(dir);
}
