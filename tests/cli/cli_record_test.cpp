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

TEST_CASE("record refuses bad options before running anything", "[cli][record]") {
  auto r = test::run_command(cli() + " record");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("no command given"));
  r = test::run_command(cli() + " record --kinds kernels -- true");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--kinds: unknown kind 'kernels' (valid: kernel, memcpy"));
  r = test::run_command(cli() + " record --flush-ms 5 -- true");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--flush-ms 5 is outside 10..60000"));
  r = test::run_command(cli() + " record --lib /nonexistent/libparascope_cupti.so -- true");
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("libparascope_cupti.so was not found"));
}

TEST_CASE("record passes the program's exit status through and writes a manifest", "[cli][record]") {
  const fs::path dir = test::temp_dir("record");
  const fs::path lib = dir / "libparascope_cupti.so";  // never loaded: sh does not start CUDA
  std::ofstream(lib) << "";
  const auto r = test::run_command(cli() + " record -q --lib " + lib.string() + " -o " + (dir / "out").string() +
                                   " --flush-ms 250 -- sh -c 'echo $CUDA_INJECTION64_PATH $PARASCOPE_FLUSH_MS; exit 3'");
  CHECK(r.exit_code == 3);
  // the child saw the injection variables
  CHECK(r.out == fs::canonical(lib).string() + " 250\n");
  const JsonValue m = load_json_file((dir / "out" / "manifest.json").string());
  CHECK(*m.find("schema_version")->as_int() == 1);
  CHECK(m.find("kind")->text() == "parascope-record");
  CHECK(*m.find("exit")->find("code")->as_int() == 3);
  CHECK(m.find("exit")->find("signal")->is_null());
  CHECK(m.find("files")->items().empty());
  CHECK(*m.find("options")->find("flush_ms")->as_int() == 250);
  CHECK(m.find("command")->items().at(0).text() == "sh");
  fs::remove_all(dir);
}
