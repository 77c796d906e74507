// Atomic exports: every writer puts its output under the chosen name only when it is complete
// (temporary file + rename), so an export that fails half way — here: the file size limit
// (RLIMIT_FSIZE, `ulimit -f`) stops it — leaves neither a truncated file under that name nor a
// temporary beside it, and an existing file of that name keeps its contents. The programs say why
// (EFBIG, "File too large") and exit 1 instead of being killed by SIGXFSZ.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cli/run_command.h"
#include "test_paths.h"
#include "trace/core/trace_builder.h"
#include "trace/io/collector/record_manifest.h"
#include "trace/io/pstrace/pstrace_writer.h"

using namespace parascope;
namespace fs = std::filesystem;
using test::run_command;

namespace {

// The command under bash with a file size limit of `kib` KiB (bash counts -f in 1024-byte blocks).
test::CommandResult limited(int kib, const std::string& cmd) {
  return run_command("bash -c 'ulimit -f " + std::to_string(kib) + " && exec " + cmd + "'");
}

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

// A trace whose every export is far beyond 8 KiB: 5000 slices with distinct names and args.
Trace big_trace() {
  TraceBuilder b;
  Process p;
  p.name = "big";
  const uint32_t proc = b.add_process(p);
  const uint32_t t = b.track(TrackKey{TrackKind::kCpuThread, proc, -1, 1}, "thread 1");
  for (int i = 0; i < 5000; ++i) {
    const Arg args[] = {{b.intern("i"), ArgValue::of_int(i * 7919)}};
    b.add_slice(t, i * 1000, 500, b.intern("slice number " + std::to_string(i * 104729 % 99991)),
                SliceRef(SliceKind::kGeneric, SliceRef::kNoDetail), args);
  }
  return b.finish();
}

}  // namespace

TEST_CASE("convert: a failed export leaves no file under the chosen name, in every format", "[reliability][atomic]") {
  const fs::path dir = test::temp_dir("atomic-convert");
  const std::string input = test::sample_path("allreduce_matmul_2xh200/rank0.json");
  for (const std::string ext : {"json", "json.gz", "pftrace", "sqlite", "csv"}) {
    INFO("format " << ext);
    // a full export of the sample is larger than the 4 KiB limit in each format
    const auto full = run_command(std::string(PARASCOPE_CLI) + " convert -q " + input + " -o " + (dir / ("full." + ext)).string());
    REQUIRE(full.exit_code == 0);
    REQUIRE(fs::file_size(dir / ("full." + ext)) > 4 * 1024);
    fs::remove(dir / ("full." + ext));

    { std::ofstream(dir / ("keep." + ext)) << "old"; }
    for (const std::string& name : {"new." + ext, "keep." + ext}) {
      const auto r = limited(4, std::string(PARASCOPE_CLI) + " convert -q " + input + " -o " + (dir / name).string());
      INFO("stderr: " << r.err);
      CHECK(r.exit_code == 1);  // an error, not SIGXFSZ (128 + 25)
      CHECK(r.err.find((dir / name).string()) != std::string::npos);
    }
    CHECK_FALSE(fs::exists(dir / ("new." + ext)));
    CHECK(test::slurp(dir / ("keep." + ext)) == "old");
    CHECK(names_in(dir) == std::vector<std::string>{"keep." + ext});  // no temporary left
    fs::remove(dir / ("keep." + ext));
  }
  fs::remove_all(dir);
}

TEST_CASE("simulate and calibrate: a failed output leaves no file under the chosen name", "[reliability][atomic]") {
  const fs::path dir = test::temp_dir("atomic-sim");
  const std::string cli = PARASCOPE_CLI;
  auto r = limited(8, cli + " simulate -t hgx_h200x8 -w allreduce:bytes=64MiB,gpus=8 -o " + (dir / "sim.json").string());
  INFO("simulate stderr: " << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("File too large") != std::string::npos);
  // a sweep writes one .pstrace per value: small chunks make each far beyond 8 KiB (2.4 MB, 0.6 MB)
  r = limited(8, cli + " simulate -t hgx_h200x8 -w allreduce:bytes=256MiB,gpus=8,chunk=64KiB --sweep channels=1,4 -o " + (dir / "sweep").string());
  INFO("sweep stderr: " << r.err);
  CHECK(r.exit_code == 1);
  CHECK((!fs::exists(dir / "sweep") || names_in(dir / "sweep").empty()));
  fs::remove_all(dir / "sweep");
  r = limited(4, cli + " calibrate " + test::source_path("resources/calibration/h200x2_probe_p2p.json") + " -o " +
                     (dir / "fit.json").string());
  INFO("calibrate stderr: " << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("File too large") != std::string::npos);
  CHECK(names_in(dir).empty());
  // without the limit both write their files (the limit was what failed)
  CHECK(run_command(cli + " simulate -t hgx_h200x8 -w allreduce:bytes=64MiB,gpus=8 -o " + (dir / "sim.json").string()).exit_code == 0);
  CHECK(fs::file_size(dir / "sim.json") > 8 * 1024);
  fs::remove_all(dir);
}

#ifdef PARASCOPE_GUI_BIN
TEST_CASE("parascope --render-png: a failed PNG export leaves no file under the chosen name", "[reliability][atomic][gui]") {
  const fs::path dir = test::temp_dir("atomic-png");
  const std::string input = test::sample_path("allreduce_matmul_2xh200/rank0.json");
  const std::string gui = std::string("env QT_QPA_PLATFORM=offscreen ") + PARASCOPE_GUI_BIN;
  REQUIRE(run_command(gui + " --render-png " + (dir / "full.png").string() + " " + input).exit_code == 0);
  REQUIRE(fs::file_size(dir / "full.png") > 16 * 1024);
  fs::remove(dir / "full.png");
  const auto r = limited(16, gui + " --render-png " + (dir / "t.png").string() + " " + input);
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 1);
  CHECK(names_in(dir).empty());
  fs::remove_all(dir);
}
#endif

TEST_CASE("write_pstrace and the record manifest: a failed write leaves no file and no temporary", "[reliability][atomic]") {
  const fs::path dir = test::temp_dir("atomic-lib");
  const Trace t = big_trace();
  RecordManifest m;
  for (int i = 0; i < 200; ++i) {
    RecordFile f;
    f.path = record_file_name("host-with-a-long-name-" + std::to_string(i), 1000 + i, i);
    f.process_command = std::string(100, 'x');
    m.files.push_back(f);
  }
  { std::ofstream(dir / "keep.pstrace") << "old"; }
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    rlimit rl{8192, 8192};
    ::setrlimit(RLIMIT_FSIZE, &rl);
    int failures = 0;
    for (const char* name : {"new.pstrace", "keep.pstrace"}) {
      try {
        write_pstrace(t, (dir / name).string());
      } catch (const std::exception&) {
        ++failures;
      }
    }
    try {
      write_record_manifest(m, (dir / "manifest.json").string());
    } catch (const std::exception&) {
      ++failures;
    }
    ::_exit(failures);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 3);  // all three failed
  CHECK(names_in(dir) == std::vector<std::string>{"keep.pstrace"});
  CHECK(test::slurp(dir / "keep.pstrace") == "old");
  fs::remove_all(dir);
}

TEST_CASE("An atomic PstraceWriter that is never closed leaves nothing", "[reliability][atomic]") {
  // An export abandoned half way (an exception between appends, a cancelled job) must not commit
  // what it had when the writer is destroyed.
  const fs::path dir = test::temp_dir("atomic-abandon");
  const std::string path = (dir / "a.pstrace").string();
  {
    PstraceWriteOptions o;
    o.chunk.atomic = true;
    PstraceWriter w(path, o);
    Process p;
    p.name = "x";
    w.add_process(p);
    w.flush();
  }
  CHECK(names_in(dir).empty());
  fs::remove_all(dir);
}
