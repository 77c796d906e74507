#include <catch2/catch.hpp>

#include <zlib.h>

#include <filesystem>
#include <fstream>

#include "import_text.h"
#include "skip.h"
#include "test_paths.h"
#include "trace/core/error.h"
#include "trace/io/load_trace.h"

using namespace parascope;
using test::import_text;
namespace fs = std::filesystem;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
void write_file(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

std::string gzip_bytes(const std::string& text) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(compressBound(static_cast<uLong>(text.size())) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// The InputError of importing `json`, as one line (what the CLI prints).
std::string error_of(const std::string& json) {
  try {
    import_text(json);
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace

TEST_CASE("Bad events name the file, byte offset, event index and what was expected", "[io][errors]") {
  // byte offsets are of the event's '{': 1 for the first event of "[{...", 46 for the second below
  SECTION("missing dur") {
    CHECK(error_of(R"([{"ph": "X", "name": "a", "ts": 1}])") == "t.json (byte 1, event #0): 'X' event has no \"dur\"");
  }
  SECTION("missing ts") {
    CHECK(error_of(R"([{"ph": "X", "name": "a", "ts": 1, "dur": 1}, {"ph": "i", "name": "b"}])") ==
          "t.json (byte 46, event #1): event has no \"ts\"");
  }
  SECTION("missing ph") { CHECK(error_of(R"([{"name": "a", "ts": 1}])") == "t.json (byte 1, event #0): event has no \"ph\" (phase)"); }
  SECTION("negative ts") {
    CHECK(error_of(R"([{"ph": "X", "name": "a", "ts": -0.5, "dur": 1}])") ==
          "t.json (byte 1, event #0): negative \"ts\" (-500 ns); expected a time >= 0");
  }
  SECTION("negative dur") {
    CHECK(error_of(R"([{"ph": "X", "name": "a", "ts": 1, "dur": -2}])") == "t.json (byte 1, event #0): negative \"dur\" (-2000 ns)");
  }
  SECTION("non-finite numbers") {
    CHECK_THAT(error_of(R"([{"ph": "X", "name": "a", "ts": Infinity, "dur": 1}])"),
               Catch::Contains("event #0") && Catch::Contains("NaN/Infinity"));
    CHECK_THAT(error_of(R"([{"ph": "X", "name": "a", "ts": 1e400, "dur": 1}])"),
               Catch::Contains("event #0") && Catch::Contains("\"ts\" is not a finite number: 1e400"));
  }
  SECTION("wrong types") {
    CHECK(error_of(R"([{"ph": "X", "name": "a", "ts": 1, "dur": 1, "pid": {"x": 1}}])") ==
          "t.json (byte 1, event #0): \"pid\" must be a number or a string, found an object");
    CHECK_THAT(error_of(R"([{"ph": 5, "name": "a", "ts": 1}])"), Catch::Contains("event #0") && Catch::Contains("\"ph\" must be a string"));
    CHECK_THAT(error_of(R"([{"ph": "X", "name": "a", "ts": 1, "dur": [1]}])"),
               Catch::Contains("event #0") && Catch::Contains("\"dur\" is not a finite number"));
    CHECK_THAT(error_of(R"({"traceEvents": {"ph": "X"}})"), Catch::Contains("byte 16") && Catch::Contains("\"traceEvents\" must be an array"));
    CHECK_THAT(error_of(R"([{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1, "args": {"device": 70000}}])"),
               Catch::Contains("event #0") && Catch::Contains("GPU event with device 70000 (expected 0..65535)"));
  }
  SECTION("E before its B") {
    CHECK_THAT(error_of(R"([{"ph": "B", "name": "a", "ts": 5, "pid": 1, "tid": 1}, {"ph": "E", "ts": 4, "pid": 1, "tid": 1}])"),
               Catch::Contains("event #1") && Catch::Contains("is before its 'B' (event #0)"));
  }
  SECTION("a NUL byte and runaway nesting") {
    CHECK_THAT(error_of(std::string("[{\"ph\": \"X\", \"na\0me\": 1}]", 25)), Catch::Contains("event #0") && Catch::Contains("NUL"));
    CHECK_THAT(error_of("[{\"ph\": \"X\", \"args\": {\"a\": " + std::string(2000, '[') + std::string(2000, ']') + "}}]"),
               Catch::Contains("nesting deeper than 512 levels"));
  }
}

TEST_CASE("Lenient import skips bad events, counts them and keeps the rest", "[io][errors]") {
  FileImportReport rep;
  ImportOptions o;
  o.lenient = true;
  const Trace t = import_text(R"([
    {"ph": "X", "name": "good1", "pid": 1, "tid": 1, "ts": 1, "dur": 1},
    {"ph": "X", "name": "no dur", "pid": 1, "tid": 1, "ts": 2},
    {"ph": "X", "name": "bad json", "ts": [},
    {"ph": "X", "name": "negative", "pid": 1, "tid": 1, "ts": -3, "dur": 1},
    {"ph": "X", "name": "good2", "pid": 1, "tid": 1, "ts": 4, "dur": 1}
  ])", &rep, o);
  CHECK(rep.skipped == 3);
  CHECK(t.slice_count() == 2);
  CHECK(test::find_slice(t, "good2").valid());
  CHECK(test::has_warning(t, "--lenient skipped 3 malformed events"));
}

TEST_CASE("Bad files: empty, a directory, gzip that is not gzip, cut or corrupt gzip", "[io][errors]") {
  const fs::path dir = test::temp_dir("badfiles");
  const std::string sample = test::sample_path("allreduce_matmul_2xh200/rank0.json");
  SECTION("a 0-byte .json.gz") {
    write_file(dir / "empty.json.gz", "");
    CHECK_THROWS_WITH(load_trace({(dir / "empty.json.gz").string()}), (dir / "empty.json.gz").string() + " (byte 0): empty file (expected gzip data)");
  }
  SECTION("a directory where a file was expected") {
    fs::create_directories(dir / "trace.json");
    TraceBuilder b;
    CHECK_THROWS_WITH(import_chrome_json((dir / "trace.json").string(), b), (dir / "trace.json").string() + ": is a directory, expected a file");
    CHECK_THROWS_WITH(detect_format((dir / "trace.json").string()), Catch::Contains("is a directory, expected a file"));
  }
  SECTION("a cut gzip names the compressed offset") {
    const std::string gz = gzip_bytes(read_file(sample));
    write_file(dir / "cut.json.gz", gz.substr(0, gz.size() / 2));
    CHECK_THROWS_WITH(load_trace({(dir / "cut.json.gz").string()}),
                      Catch::Contains("cut.json.gz (byte " + std::to_string(gz.size() / 2) + ")") &&
                          Catch::Contains("gzip stream is truncated"));
  }
  SECTION("gzip magic followed by garbage") {
    write_file(dir / "bad.json.gz", std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10) + std::string(100, 'x'));
    CHECK_THROWS_WITH(load_trace({(dir / "bad.json.gz").string()}), Catch::Contains("bad.json.gz (byte") && Catch::Contains("corrupt gzip data"));
  }
  SECTION("a gzip of something that is not JSON") {
    write_file(dir / "text.json.gz", gzip_bytes("hello"));
    CHECK_THROWS_WITH(load_trace({(dir / "text.json.gz").string()}),
                      (dir / "text.json.gz").string() + " (byte 0): expected '{' or '[' at the start of a trace, found 'h'");
  }
  SECTION("a JSON file cut inside an event, gzipped") {
    const std::string text = read_file(sample);
    const size_t cut = text.find("\"correlation\": 344") + 8;  // inside an event of a cuda_runtime call
    write_file(dir / "cut2.json.gz", gzip_bytes(text.substr(0, cut)));
    CHECK_THROWS_WITH(load_trace({(dir / "cut2.json.gz").string()}), Catch::Contains("(truncated trace)") && Catch::Contains("event #"));
  }
  fs::remove_all(dir);
}

TEST_CASE("A JSON object without traceEvents is not a timeline: an error naming its members", "[io][errors]") {
  // the shape of a PyTorch execution trace (schema, pid, nodes): before, "0 slices on 0 tracks" and exit 0
  try {
    import_text(R"({"schema": "1.0.1", "pid": 7, "nodes": [{"id": 1, "name": "[pytorch|profiler|execution_trace|process]"}]})");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.problem() ==
          "not a timeline: the top-level object has no \"traceEvents\" (its members: schema, pid, nodes); \"nodes\" suggests a "
          "PyTorch execution trace: open the profiler's Kineto trace (traceEvents) instead");
  }
  // metadata beside an empty event array is still an (empty) timeline
  CHECK_NOTHROW(import_text(R"({"displayTimeUnit": "ms", "traceEvents": []})"));
}

TEST_CASE("HTA's execution trace (../shared) is refused as not a timeline", "[io][errors][shared]") {
  const std::string et = test::shared_path("external/hta_testdata/execution_trace__benchmark_simple_add_et.json.gz");
  if (!fs::exists(et)) PARASCOPE_SKIP("../shared/external/hta_testdata is not present");
  CHECK_THROWS_WITH(load_trace({et}), Catch::Contains("not a timeline") && Catch::Contains("start_ts, nodes, finish_ts"));
}
