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
}  // namespace

TEST_CASE("info --lenient skips malformed events and says how many", "[cli][info][errors]") {
  const fs::path dir = test::temp_dir("cli-lenient");
  std::ofstream(dir / "mixed.json") << R"([
    {"ph": "X", "name": "ok", "pid": 1, "tid": 1, "ts": 1, "dur": 1},
    {"ph": "X", "name": "no dur", "pid": 1, "tid": 1, "ts": 2},
    {"ph": "X", "name": "broken", "ts": [},
    {"ph": "X", "name": "ok2", "pid": 1, "tid": 1, "ts": 3, "dur": 1}])";
  const std::string file = (dir / "mixed.json").string();
  const auto strict = test::run_command(cli() + " info -q " + file);
  CHECK(strict.exit_code == 1);
  // event #1's '{': "[\n" + 4 spaces (6 bytes), the 64-byte first event, ",\n" + 4 spaces: byte 76
  CHECK(strict.err == "parascope-cli info: " + file + " (byte 76, event #1): 'X' event has no \"dur\"\n");
  const auto lenient = test::run_command(cli() + " info -q --lenient " + file);
  REQUIRE(lenient.exit_code == 0);
  CHECK_THAT(lenient.out, Catch::Contains("events   2 slices"));
  CHECK_THAT(lenient.out, Catch::Contains(file + ": --lenient skipped 2 malformed events"));
  fs::remove_all(dir);
}

TEST_CASE("info on a TensorBoard folder lists the files merged per worker", "[cli][info]") {
  const auto r = test::run_command(cli() + " info -q --json " + test::data_path("tb_steps"));
  REQUIRE(r.exit_code == 0);
  const JsonValue doc = parse_json(r.out, "info-output");
  const auto& merged = doc.find("merged_workers")->items();
  REQUIRE(merged.size() == 2);
  CHECK(merged[0].find("files")->items().size() == 2);
  CHECK(doc.find("processes")->items().size() == 2);
  const auto t = test::run_command(cli() + " info -q " + test::data_path("tb_steps"));
  CHECK_THAT(t.out, Catch::Contains("merged   2 files of worker " + test::data_path("tb_steps") + "/rank1"));
}
