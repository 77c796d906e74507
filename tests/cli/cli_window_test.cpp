#include <catch2/catch.hpp>

#include "cli/run_command.h"
#include "test_paths.h"
#include "trace/core/json.h"

using namespace parascope;

namespace {
std::string cli() { return PARASCOPE_CLI; }
std::string sample_dir() { return test::sample_path("allreduce_matmul_2xh200"); }
int64_t int_at(const JsonValue& v, std::string_view key) { return v.find(key)->as_int().value(); }
}  // namespace

TEST_CASE("window reports exposed communication per GPU as the overlap dock does", "[cli][window]") {
  const auto r = test::run_command(cli() + " window " + sample_dir() + " --from 0 --json --find ncclDevKernel_AllReduce");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const JsonValue doc = parse_json(r.out, "stdout");
  REQUIRE(int_at(doc, "schema_version") == 1);
  // union of the ncclDevKernel_* intervals per rank, and of their overlap with every other kernel,
  // worked out with Python's json + Decimal from rank0.json / rank1.json: no compute ran under
  // them, so all of it was exposed
  const auto& devs = doc.find("devices")->items();
  REQUIRE(devs.size() == 2);
  REQUIRE(int_at(devs[0], "communication_ns") == 751'739);
  REQUIRE(int_at(devs[0], "hidden_ns") == 0);
  REQUIRE(int_at(devs[0], "exposed_ns") == 751'739);
  REQUIRE(int_at(devs[1], "communication_ns") == 715'547);
  REQUIRE(int_at(devs[1], "exposed_ns") == 715'547);
  REQUIRE(int_at(doc, "find_matches") == 6);  // 3 all-reduces per rank (the sample's README)
  REQUIRE(doc.find("found")->items().size() == 6);
}

TEST_CASE("window rejects an empty window and unknown units", "[cli][window]") {
  auto r = test::run_command(cli() + " window " + sample_dir() + " --from 2ms --to 1ms");
  REQUIRE(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--to must be after --from"));
  r = test::run_command(cli() + " window " + sample_dir() + " --from 2min");
  REQUIRE(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("unknown unit 'min'"));
}

TEST_CASE("window takes -q and --quiet as the other verbs do", "[cli][window]") {
  for (const char* q : {"-q", "--quiet"}) {
    const auto r = test::run_command(cli() + " window " + q + " --from 0 --to 1ms " + sample_dir());
    INFO(q << ": " << r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("exposed"));
  }
  CHECK(test::run_command(cli() + " window -x --from 0 " + sample_dir()).exit_code == 2);  // an unknown option is still refused
}
