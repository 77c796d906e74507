// One test per crash the fuzzers found (tests/fuzz, docs/reliability.md "Fuzzing"): the input, or a
// hand-made file with the same defect, now gives the outcome the reader promises (an InputError
// naming the place, or a load with a warning). The raw crash inputs are kept in
// tests/fuzz/regressions/<target>/ and replayed by tests/fuzz/smoke.sh.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "test_paths.h"
#include "trace/core/analysis/exposed_communication.h"
#include "trace/core/analysis/kernel_stats.h"
#include "trace/core/error.h"
#include "trace/core/summary.h"
#include "trace/io/load_trace.h"

#ifdef PARASCOPE_HAVE_SQLITE
#include <sqlite3.h>
#endif

using namespace parascope;
namespace fs = std::filesystem;

#ifdef PARASCOPE_HAVE_SQLITE
namespace {
void exec(sqlite3* db, const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string m = err ? err : "?";
    sqlite3_free(err);
    FAIL(m);
  }
}

// A minimal export: one kernel at session-relative [start, end], session start utcEpochNs.
std::string kernel_export(const fs::path& dir, const std::string& start, const std::string& end, const std::string& utc) {
  const std::string path = (dir / "k.sqlite").string();
  fs::remove(path);
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  exec(db, "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
           "INSERT INTO StringIds VALUES (1, 'k');"
           "CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);"
           "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (" + utc + ", '', '');"
           "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,"
           " correlationId INTEGER, globalPid INTEGER, shortName INTEGER);"
           "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (" + start + ", " + end + ", 0, 7, 1, 16777216, 1);");
  sqlite3_close(db);
  return path;
}
}  // namespace

TEST_CASE("fuzz_nsys_sqlite: a session start near INT64_MAX is an InputError, not an overflow", "[reliability][fuzz][nsys]") {
  // Found by fuzz_nsys_sqlite (regressions/fuzz_nsys_sqlite/session_start_overflow.bin: utcEpochNs
  // scaled past 2^63, SQLite saturates it to INT64_MAX); start + utcEpochNs overflowed int64 (UBSan).
  const fs::path dir = test::temp_dir("fuzz-nsys");
  const std::string path = kernel_export(dir, "60111513113", "60111514113", "9223372036854775807");
  try {
    (void)load_trace({path});
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(e.where().file == path);
    CHECK(e.where().field == "TARGET_INFO_SESSION_START_TIME");
    CHECK(e.problem() == "utcEpochNs 9223372036854775807 is beyond 2^61 ns");
  }
  SECTION("a kernel time near INT64_MIN names the table and the column") {
    const std::string p2 = kernel_export(dir, "0", "-9223372036854775808", "1796037811705784842");
    try {
      (void)load_trace({p2});
      FAIL("expected an InputError");
    } catch (const InputError& e) {
      CHECK(e.where().field == "CUPTI_ACTIVITY_KIND_KERNEL");
      CHECK(e.problem() == "column end: time -9223372036854775808 ns is beyond 2^62 ns");
    }
  }
  SECTION("times at 2^62 still load, on the session clock") {
    // 2^62 = 4611686018427387904 ns is the largest time accepted; the session start 2^61 the largest offset
    const std::string p3 = kernel_export(dir, "4611686018427387000", "4611686018427387904", "2305843009213693952");
    const Trace t = load_trace({p3});
    REQUIRE(t.kernels.size() == 1);
    CHECK(t.time_span().second == 4611686018427387904 + 2305843009213693952);
  }
  fs::remove_all(dir);
}
TEST_CASE("fuzz_nsys_sqlite: kernels longer than 2^62 ns sum to the int64 limit, not past it", "[reliability][fuzz][nsys]") {
  // Found by fuzz_nsys_sqlite (regressions/fuzz_nsys_sqlite/kernel_busy_overflow.bin: one kernel's
  // start set to -2^62, another's scaled): session-relative times within +-2^62 ns are accepted,
  // so one kernel can last up to 2^63 ns, and the per-device sum of kernel durations in
  // summarize() overflowed int64 (UBSan). Sums of durations now hold at INT64_MAX.
  // Two kernels on one stream: [-2^62, 6e10] and [-2^62 + 175103, 6e10] session-relative, so
  // durations 2^62 + 6e10 and 2^62 + 6e10 - 175103: their sum is beyond 2^63.
  const fs::path dir = test::temp_dir("fuzz-nsys-sum");
  const std::string path = kernel_export(dir, "-4611686018427387904", "60000000000", "1779782330176752435");
  {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    exec(db, "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (-4611686018427212801, 60000000000, 0, 7, 2, 16777216, 1);");
    sqlite3_close(db);
  }
  const Trace t = load_trace({path});
  REQUIRE(t.kernels.size() == 2);
  const TraceSummary s = summarize(t);
  REQUIRE(s.processes.size() == 1);
  REQUIRE(s.processes[0].devices.size() == 1);
  CHECK(s.processes[0].devices[0].kernel_busy_ns == INT64_MAX);
  const KernelStats ks = kernel_stats(t);
  REQUIRE(ks.overall.rows.size() == 1);
  CHECK(ks.overall.rows[0].count == 2);
  CHECK(ks.overall.rows[0].total_ns == INT64_MAX);
  CHECK(ks.overall.rows[0].max_ns == 4611686078427387904);  // 2^62 + 6e10: each duration itself is kept
  CHECK(ks.overall.total_ns == INT64_MAX);
  (void)exposed_communication(t);
  fs::remove_all(dir);
}
#endif
