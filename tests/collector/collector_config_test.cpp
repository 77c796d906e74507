#include <catch2/catch.hpp>

#include <map>

#include "trace/collector/collector_config.h"

using namespace parascope::collector;

namespace {

GetEnv env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

}  // namespace

TEST_CASE("Kind lists accept names, sets and removals and name the valid kinds on error", "[collector][config]") {
  CHECK(parse_kinds("kernel,memcpy") == (kKindKernel | kKindMemcpy));
  CHECK(parse_kinds("default,-driver") == (kDefaultKinds & ~kKindDriver));
  CHECK(parse_kinds(" minimal , nvtx ") == (kKindKernel | kKindMemcpy | kKindMemset | kKindDevice | kKindNvtx));
  CHECK((parse_kinds("all") & kKindGraph) != 0);
  CHECK((kDefaultKinds & kKindGraph) == 0);  // node-level graph tracing is the default
  CHECK(kinds_to_string(kKindKernel | kKindNccl) == "kernel,nccl");
  REQUIRE_THROWS_WITH(parse_kinds("kernels"), Catch::StartsWith("unknown kind 'kernels' (valid: kernel, memcpy,"));
  REQUIRE_THROWS_WITH(parse_kinds(" , "), "empty kind list");
}

TEST_CASE("The rank comes from the launcher's variables, torchrun first", "[collector][config]") {
  SECTION("torchrun") {
    const RankInfo r = detect_rank(env_of({{"RANK", "3"}, {"LOCAL_RANK", "1"}, {"WORLD_SIZE", "8"},
                                           {"OMPI_COMM_WORLD_RANK", "5"}}));
    CHECK(r.rank == 3);
    CHECK(r.local_rank == 1);
    CHECK(r.world_size == 8);
    CHECK(r.source == "RANK");
  }
  SECTION("Open MPI when RANK is not a number") {
    const RankInfo r = detect_rank(env_of({{"RANK", "x"}, {"OMPI_COMM_WORLD_RANK", "5"},
                                           {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "16"}}));
    CHECK(r.rank == 5);
    CHECK(r.local_rank == 1);
    CHECK(r.world_size == 16);
    CHECK(r.source == "OMPI_COMM_WORLD_RANK");
  }
  SECTION("Slurm") {
    const RankInfo r = detect_rank(env_of({{"SLURM_PROCID", "12"}, {"SLURM_LOCALID", "4"}}));
    CHECK(r.rank == 12);
    CHECK(r.local_rank == 4);
    CHECK(r.world_size == -1);
  }
  SECTION("none") {
    const RankInfo r = detect_rank(env_of({}));
    CHECK(r.rank == -1);
    CHECK(r.source.empty());
  }
}

TEST_CASE("The collector's environment is validated variable by variable", "[collector][config]") {
  const CollectorConfig c = parse_config(env_of({{"PARASCOPE_OUTPUT_DIR", "/tmp/x"},
                                                 {"PARASCOPE_KINDS", "minimal"},
                                                 {"PARASCOPE_FLUSH_MS", "250"},
                                                 {"PARASCOPE_START", "api"},
                                                 {"PARASCOPE_NVLINK_SAMPLE_US", "500"},
                                                 {"RANK", "1"}}));
  CHECK(c.output_dir == "/tmp/x");
  CHECK(c.kinds == parse_kinds("minimal"));
  CHECK(c.flush_ms == 250);
  CHECK_FALSE(c.start_now);
  CHECK(c.nvlink_sample_us == 500);
  CHECK(c.rank.rank == 1);
  CHECK(parse_config(env_of({})).flush_ms == 1000);
  REQUIRE_THROWS_WITH(parse_config(env_of({{"PARASCOPE_FLUSH_MS", "5"}})), "PARASCOPE_FLUSH_MS=5 is outside 10..60000");
  REQUIRE_THROWS_WITH(parse_config(env_of({{"PARASCOPE_FLUSH_MS", "1s"}})), "PARASCOPE_FLUSH_MS='1s' is not an integer");
  REQUIRE_THROWS_WITH(parse_config(env_of({{"PARASCOPE_START", "later"}})),
                      "PARASCOPE_START='later' must be 'now' or 'api'");
  REQUIRE_THROWS_WITH(parse_config(env_of({{"PARASCOPE_KINDS", "gpu"}})), Catch::StartsWith("PARASCOPE_KINDS: unknown kind 'gpu'"));
}

TEST_CASE("The tuning switches default to the tuned collector and bring back the first one", "[collector][config]") {
  const CollectorConfig d = parse_config(env_of({}));
  CHECK(d.buffer_pool == 2);
  CHECK_FALSE(d.launch_callbacks_always);
  CHECK(d.clock_bracket);
  CHECK(d.reset_api_callbacks);
  CHECK_FALSE(parse_config(env_of({{"PARASCOPE_RESET_CALLBACKS", "0"}})).reset_api_callbacks);
  REQUIRE_THROWS(parse_config(env_of({{"PARASCOPE_RESET_CALLBACKS", "2"}})));
  const CollectorConfig old = parse_config(env_of(
      {{"PARASCOPE_BUFFER_POOL", "0"}, {"PARASCOPE_LAUNCH_CALLBACKS", "always"}, {"PARASCOPE_CLOCK_BRACKET", "0"}}));
  CHECK(old.buffer_pool == 0);
  CHECK(old.launch_callbacks_always);
  CHECK_FALSE(old.clock_bracket);
  CHECK_FALSE(parse_config(env_of({{"PARASCOPE_LAUNCH_CALLBACKS", "auto"}})).launch_callbacks_always);
  CHECK(parse_config(env_of({{"PARASCOPE_LAUNCH_CALLBACKS", "off"}})).launch_callbacks_off);
  CHECK_FALSE(d.launch_callbacks_off);
  REQUIRE_THROWS_WITH(parse_config(env_of({{"PARASCOPE_LAUNCH_CALLBACKS", "never"}})),
                      "PARASCOPE_LAUNCH_CALLBACKS='never' must be 'auto', 'always' or 'off'");
  REQUIRE_THROWS_WITH(parse_config(env_of({{"PARASCOPE_BUFFER_POOL", "17"}})), "PARASCOPE_BUFFER_POOL=17 is outside 0..16");
}

TEST_CASE("Trace files are named host-pid-rank with a safe host name", "[collector][config]") {
  CHECK(trace_file_name("h200-01", 4242, 0) == "h200-01-4242-r0.pstrace");
  CHECK(trace_file_name("node/7 a", 5, -1) == "node_7_a-5-rnone.pstrace");
  CHECK(trace_file_name("", 5, 2) == "host-5-r2.pstrace");
}
