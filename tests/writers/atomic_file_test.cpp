#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "cli/run_command.h"
#include "test_paths.h"
#include "trace/core/trace_builder.h"
#include "trace/io/common/atomic_file.h"
#include "trace/io/export/trace_writer.h"

using namespace parascope;
namespace fs = std::filesystem;

TEST_CASE("AtomicFile appears only on commit and never clobbers on failure", "[writers][atomic]") {
  const fs::path dir = test::temp_dir("atomic");
  const std::string dest = (dir / "out.json").string();
  {
    std::ofstream(dest) << "old";
  }
  {
    AtomicFile f(dest);
    f.write("new contents");
    CHECK(fs::exists(f.temp_path()));
    // destroyed without commit: as if the export failed half way
  }
  CHECK(test::slurp(dest) == "old");
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);  // no temporary left
  {
    AtomicFile f(dest);
    f.write("new ");
    f.write("contents");
    f.commit();
    CHECK_FALSE(fs::exists(f.temp_path()));
  }
  CHECK(test::slurp(dest) == "new contents");
  fs::remove_all(dir);
}

TEST_CASE("Exports into a missing directory fail with the path and leave nothing", "[writers][atomic]") {
  TraceBuilder b;
  b.add_process(Process{});
  const Trace t = b.finish();
  const std::string dest = "/nonexistent-parascope-dir/out.pftrace";
  try {
    write_trace(t, dest);
    FAIL("expected an error");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find(dest) != std::string::npos);
  }
  CHECK_FALSE(fs::exists(dest));
}

TEST_CASE("Output formats come from the extension", "[writers]") {
  CHECK(export_format_from_path("a.json") == ExportFormat::kChromeJson);
  CHECK(export_format_from_path("a.JSON.GZ") == ExportFormat::kChromeJson);
  CHECK(export_format_from_path("a.pftrace") == ExportFormat::kPerfetto);
  CHECK(export_format_from_path("a.sqlite") == ExportFormat::kSqlite);
  CHECK(export_format_from_path("a.csv") == ExportFormat::kCsv);
  CHECK(export_format_from_path("a.pstrace") == ExportFormat::kPstrace);
  CHECK(export_format_from_path("a.txt") == ExportFormat::kUnknown);
  std::string why;
  CHECK(export_available(ExportFormat::kPstrace, &why));
  CHECK_FALSE(export_available(ExportFormat::kUnknown, &why));
  CHECK(why.find("unknown output format") != std::string::npos);
}
