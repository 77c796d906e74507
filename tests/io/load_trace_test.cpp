#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "test_paths.h"
#include "trace/core/error.h"
#include "trace/io/load_trace.h"

using namespace parascope;
namespace fs = std::filesystem;

TEST_CASE("Inputs: directories expand, formats are sniffed, bad inputs name the file", "[io][load]") {
  const fs::path dir = test::temp_dir("load");
  const std::string sample = test::sample_path("allreduce_matmul_2xh200");
  SECTION("a directory of per-rank files loads as one trace") {
    const Trace t = load_trace({sample});
    REQUIRE(t.processes.size() == 2);
    REQUIRE(t.source_files.size() == 2);
  }
  SECTION("missing file") {
    REQUIRE_THROWS_WITH(load_trace({(dir / "nope.json").string()}),
                        (dir / "nope.json").string() + ": no such file or directory");
  }
  SECTION("not JSON") {
    std::ofstream(dir / "x.json") << "hello world";
    REQUIRE_THROWS_WITH(load_trace({(dir / "x.json").string()}),
                        Catch::Contains("x.json (byte 0): expected '{' or '['"));
  }
  SECTION("truncated JSON") {
    std::ifstream in(sample + "/rank0.json");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(dir / "cut.json") << text.substr(0, text.size() / 2);
    REQUIRE_THROWS_WITH(load_trace({(dir / "cut.json").string()}), Catch::Contains("(truncated trace)"));
  }
  SECTION("a .gz that is not gzip") {
    std::ofstream(dir / "fake.json.gz") << "{\"traceEvents\": []}";
    REQUIRE_THROWS_WITH(load_trace({(dir / "fake.json.gz").string()}), Catch::Contains("not a gzip file"));
  }
  SECTION("an empty file and an empty directory") {
    std::ofstream(dir / "empty.json").close();
    REQUIRE_THROWS_WITH(load_trace({(dir / "empty.json").string()}), Catch::Contains("empty"));
    fs::create_directories(dir / "nothing");
    REQUIRE_THROWS_WITH(load_trace({(dir / "nothing").string()}), Catch::Contains("holds no trace files"));
  }
  SECTION("an Nsight Systems report gets the export command") {
    std::ofstream(dir / "run.nsys-rep") << "binary";
    REQUIRE_THROWS_WITH(load_trace({(dir / "run.nsys-rep").string()}), Catch::Contains("nsys export --type sqlite"));
  }
  fs::remove_all(dir);
}
