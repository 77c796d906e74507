// The pkb report on recorded PKB tasks: a few tasks of the world-1 suite the GPU batch
// (scripts/gpu/pkb_world1.sh) recorded on the lent H200, committed under tests/data/pkb/w1.
// Exits 77 (ctest: skipped) until that fixture is committed.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>

#include "pkb/report/suite_report.h"
#include "test_paths.h"

using namespace parascope;
using namespace parascope::pkb;
namespace fs = std::filesystem;

namespace {
std::string fixture() { return test::data_path("pkb/w1"); }
}

TEST_CASE("pkb: the recorded world-1 tasks are analysed, and the trace agrees with PKB's own time") {
  ReportOptions o;
  o.machine = "h200x2";
  o.preset_dir = test::source_path("resources/topologies");
  const SuiteReport r = build_suite_report(fixture(), o);
  REQUIRE(!r.tasks.empty());
  CHECK(r.suite.world == 1);
  for (const TaskReport& t : r.tasks) {
    INFO(t.record.stem);
    if (t.record.status != TaskStatus::kOk) {
      CHECK_FALSE(t.record.reason.empty());
      continue;
    }
    REQUIRE(t.analyzed);
    CHECK(t.window.iterations.size() == static_cast<size_t>(t.perf.iterations));
    // PKB's CUDA events and the trace's loop window time the same GPU span
    CHECK(t.breakdown.window_ns * 1e-9 == Approx(t.reference_s).epsilon(0.2));
    CHECK(t.bound.bound_s > 0);
    CHECK(t.bound.gap > 0);
    CHECK(t.designs.note == "one rank: nothing crosses a link, no communication to design");
  }
  const JsonValue j = suite_report_json(r);
  CHECK(j.find("schema_version")->as_int() == 1);
}

int main(int argc, char** argv) {
  if (!fs::exists(fixture() + "/suite.json")) {
    std::printf("SKIPPED: no recorded PKB suite at %s (the GPU batch scripts/gpu/pkb_world1.sh makes it)\n", fixture().c_str());
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
