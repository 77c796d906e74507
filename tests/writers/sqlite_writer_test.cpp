#include <catch2/catch.hpp>

#include <filesystem>

#include "test_paths.h"
#include "trace/core/trace_builder.h"
#include "trace/io/export/sqlite_writer.h"
#include "trace/io/load_trace.h"

#if PARASCOPE_HAVE_SQLITE
#include <sqlite3.h>
#endif

using namespace parascope;
namespace fs = std::filesystem;

#if PARASCOPE_HAVE_SQLITE

namespace {
// Every row of a query, columns joined by '|', like the sqlite3 shell prints them.
std::vector<std::string> query(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* st = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK);
  std::vector<std::string> out;
  while (sqlite3_step(st) == SQLITE_ROW) {
    std::string row;
    for (int i = 0; i < sqlite3_column_count(st); ++i) {
      if (i) row += "|";
      const unsigned char* v = sqlite3_column_text(st, i);
      row += v ? reinterpret_cast<const char*>(v) : "NULL";
    }
    out.push_back(row);
  }
  sqlite3_finalize(st);
  return out;
}
}  // namespace

TEST_CASE("SQLite export of the bundled sample answers SQL with the source's counts", "[writers][sqlite][real]") {
  const std::string s = "allreduce_matmul_2xh200/";
  const Trace t = load_trace({test::sample_path(s + "rank0.json"), test::sample_path(s + "rank1.json")});
  const fs::path dir = test::temp_dir("sqlite");
  const std::string path = (dir / "t.sqlite").string();
  write_sqlite(t, path);
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  CHECK(query(db, "SELECT value FROM meta WHERE key = 'schema_version'") == std::vector<std::string>{"1"});
  // README (Python json): per rank 21 kernels, 3 memcpys (4 MiB DtoH each), 3 all-reduces with sizes
  CHECK(query(db, "SELECT rank, device, count(*) FROM kernel_slice GROUP BY rank, device ORDER BY rank") ==
        std::vector<std::string>{"0|0|21", "1|1|21"});
  CHECK(query(db, "SELECT count(*), sum(bytes), min(copy_kind) FROM memcpy") == std::vector<std::string>{"6|25165824|DtoH"});
  CHECK(query(db, "SELECT count(*) FROM slice") == std::vector<std::string>{"476"});
  CHECK(query(db, "SELECT count(*) FROM flow WHERE kind = 'launch'") == std::vector<std::string>{"48"});
  // rank 0's first all-reduce: 16777216 bytes in 241246 ns → algbw 69.544 GB/s (busbw the same, n = 2)
  CHECK(query(db, "SELECT c.op, c.bytes, round(c.algbw_gbps, 3), round(c.busbw_gbps, 3) FROM collective c "
                  "JOIN slice s ON s.id = c.kernel_slice_id WHERE s.ts = 1796033537019104314") ==
        std::vector<std::string>{"allreduce|16777216|69.544|69.544"});
  // typed args keep their SQL types
  CHECK(query(db, "SELECT typeof(value) FROM arg WHERE key = 'External id' LIMIT 1") == std::vector<std::string>{"integer"});
  sqlite3_close(db);
  fs::remove_all(dir);
}

TEST_CASE("SQLite export keeps the trace's warnings and notes apart in meta", "[writers][sqlite][notes]") {
  TraceBuilder b;
  b.warn("r0.pstrace: 2 NVTX ranges have no end");
  b.note("r0.pstrace: collector: 237 CUPTI records, 0 dropped by CUPTI, 0 buffer requests refused (exit)");
  b.note("second note");
  const fs::path dir = test::temp_dir("sqlite-notes");
  const std::string path = (dir / "n.sqlite").string();
  write_sqlite(b.finish(), path);
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  CHECK(query(db, "SELECT key, value FROM meta WHERE key LIKE 'warning %' OR key LIKE 'note %' ORDER BY rowid") ==
        std::vector<std::string>{"warning 0|r0.pstrace: 2 NVTX ranges have no end",
                                 "note 0|r0.pstrace: collector: 237 CUPTI records, 0 dropped by CUPTI, 0 buffer requests refused (exit)",
                                 "note 1|second note"});
  sqlite3_close(db);
  fs::remove_all(dir);
}

#else

TEST_CASE("SQLite export is reported unavailable without SQLite", "[writers][sqlite]") {
  CHECK_FALSE(sqlite_export_available());
}

#endif
