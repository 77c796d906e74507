#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "cli/run_command.h"
#include "skip.h"
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

TEST_CASE("record --op-shapes puts the hook first on PYTHONPATH, switches it on and says so in the manifest", "[cli][record][op_shapes]") {
  const fs::path dir = test::temp_dir("record-op-shapes");
  const fs::path lib = dir / "libparascope_cupti.so";  // never loaded: sh does not start CUDA
  std::ofstream(lib) << "";
  const std::string run = cli() + " record -q --lib " + lib.string() + " -o " + (dir / "out").string();
  auto r = test::run_command(run + " --op-shapes -- sh -c 'echo $PARASCOPE_OP_SHAPES; echo $PYTHONPATH'");
  CHECK(r.exit_code == 0);
  // the hook's folder of the source tree this CLI was built from, ahead of anything the caller had
  const std::string python_dir = fs::canonical(test::source_path("trace/collector/python")).string();
  CHECK_THAT(r.out, Catch::StartsWith("1\n" + python_dir));
  CHECK(fs::is_regular_file(fs::path(python_dir) / "parascope_op_shapes.py"));
  JsonValue m = load_json_file((dir / "out" / "manifest.json").string());
  CHECK(m.find("options")->find("op_shapes")->as_bool() == true);
  // off by default: nothing set, the manifest says false
  r = test::run_command(run + " -- sh -c 'echo x${PARASCOPE_OP_SHAPES}x'");
  CHECK(r.out == "xx\n");
  m = load_json_file((dir / "out" / "manifest.json").string());
  CHECK(m.find("options")->find("op_shapes")->as_bool() == false);
  // the ranges are NVTX records: without the nvtx kind or the collector there is nothing to record them
  r = test::run_command(run + " --op-shapes --kinds kernel,runtime -- true");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--op-shapes needs the nvtx kind"));
  r = test::run_command(cli() + " record --world 2 --no-collector --op-shapes -- true");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--op-shapes needs the collector"));
  fs::remove_all(dir);
}

TEST_CASE("record preloads the CUPTI guard found beside the collector and names it in the manifest", "[cli][record][guard]") {
#ifndef PARASCOPE_GUARD_LIB
  PARASCOPE_SKIP("the CUPTI guard is built with the collector, on machines with CUDA");
#else
  const fs::path dir = test::temp_dir("record-guard");
  const fs::path lib = dir / "libparascope_cupti.so";  // never loaded: sh does not start CUDA
  std::ofstream(lib) << "";
  const std::string run = cli() + " record --lib " + lib.string() + " -o " + (dir / "out").string();
  const std::string show = " -- sh -c 'echo \"$LD_PRELOAD\"'";
  SECTION("absent: said, nothing preloaded") {
    const auto r = test::run_command("env -u LD_PRELOAD " + run + show);
    CHECK(r.exit_code == 0);
    CHECK(r.out == "\n");
    CHECK_THAT(r.err, Catch::Contains((dir / "libparascope_cupti_guard.so").string() + " not found: another CUPTI client"));
    CHECK(load_json_file((dir / "out" / "manifest.json").string()).find("cupti_guard")->is_null());
  }
  SECTION("beside the collector: preloaded first, the program's own LD_PRELOAD kept after it") {
    fs::copy_file(PARASCOPE_GUARD_LIB, dir / "libparascope_cupti_guard.so");
    const std::string guard = fs::canonical(dir / "libparascope_cupti_guard.so").string();
    auto r = test::run_command("env -u LD_PRELOAD " + run + show);
    CHECK(r.exit_code == 0);
    CHECK(r.out == guard + "\n");
    const JsonValue m = load_json_file((dir / "out" / "manifest.json").string());
    CHECK(m.find("cupti_guard")->text() == guard);
    CHECK(*m.find("processes_with_other_cupti_client")->as_int() == 0);
    r = test::run_command("LD_PRELOAD=libm.so.6 " + run + show);
    CHECK(r.out == guard + ":libm.so.6\n");
    r = test::run_command("env -u LD_PRELOAD " + run + " --no-cupti-guard" + show);
    CHECK(r.out == "\n");
    CHECK(load_json_file((dir / "out" / "manifest.json").string()).find("cupti_guard")->is_null());
  }
  fs::remove_all(dir);
#endif
}
