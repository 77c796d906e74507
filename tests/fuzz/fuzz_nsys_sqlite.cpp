// libFuzzer target for the Nsight Systems SQLite reader's schema layer. Byte mutations of an SQLite
// file only test SQLite; what Parascope must survive is exports whose *schema* differs from the
// ones it was written against (Nsight versions add, drop and retype columns and tables) and
// values it never saw. So this harness is structure-aware: at start it loads the real exports in
// ../shared/data/nsys (or $PARASCOPE_NSYS_DIR) with sqlite3_deserialize and cuts each to a few
// dozen rows per activity table; every input is a program of schema mutations applied to a fresh
// in-memory copy:
//   byte 0: which export; then 4-byte ops {op, table, column, argument}:
//   drop table | drop column | retype column (TEXT, REAL, BLOB, all NULL, text garbage) |
//   set values (NULL, 0, -1, INT64_MAX, INT64_MIN, 0xFFFFFFFF, huge, text, blob, 1e308, small) on
//   every k-th row | delete every k-th row | duplicate rows | swap two columns | rename the table
//   away | add a table the bundled exports lack (GRAPH_TRACE, TARGET_INFO_GPU) | scale a column.
// The result is written with VACUUM INTO and read by import_nsys_sqlite; the only acceptable
// failure is an InputError, an accepted export must pass fuzz_trace_check.h. Without the exports
// the target says so and every input is a no-op.
//   cmake --preset fuzz && cmake --build build/fuzz --target fuzz_nsys_sqlite
//   build/fuzz/tests/fuzz/fuzz_nsys_sqlite CORPUS_DIR tests/fuzz/corpus/nsys_sqlite
#include <sqlite3.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fuzz_trace_check.h"
#include "trace/core/error.h"
#include "trace/core/trace_builder.h"
#include "trace/io/nsys/nsys_sqlite_reader.h"

namespace {

using namespace parascope;
namespace fs = std::filesystem;

// The tables the reader reads (and two it reads when present, which the bundled exports lack).
const char* const kTables[] = {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                               "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
                               "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS", "StringIds", "ThreadNames",
                               "PROCESSES", "TARGET_INFO_SYSTEM_ENV", "TARGET_INFO_SESSION_START_TIME",
                               "CUPTI_ACTIVITY_KIND_GRAPH_TRACE", "TARGET_INFO_GPU"};
constexpr size_t kNumTables = sizeof(kTables) / sizeof(kTables[0]);
constexpr size_t kMaxOps = 24;
constexpr int kRowsKept = 40;

std::vector<std::vector<unsigned char>> g_images;  // reduced exports, serialized

char g_temp_file[512];

const std::string& db_path() {
  static const std::string p = [] {
    const char* dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : (std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp");
    std::string path = std::string(dir) + "/fuzz_nsys_" + std::to_string(getpid()) + ".sqlite";
    // removed at exit (a crash leaves it: the input is in the artifact anyway)
    std::snprintf(g_temp_file, sizeof g_temp_file, "%s", path.c_str());
    std::atexit([] { std::remove(g_temp_file); });
    return path;
  }();
  return p;
}

void exec(sqlite3* db, const std::string& sql) { sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr); }

std::vector<std::string> column_names(sqlite3* db, const std::string& table) {
  std::vector<std::string> cols;
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db, ("PRAGMA table_info(" + table + ")").c_str(), -1, &s, nullptr) == SQLITE_OK)
    while (sqlite3_step(s) == SQLITE_ROW) cols.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(s, 1)));
  sqlite3_finalize(s);
  return cols;
}

sqlite3* open_image(const std::vector<unsigned char>& image) {
  sqlite3* db = nullptr;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK) __builtin_trap();
  auto* copy = static_cast<unsigned char*>(sqlite3_malloc64(image.size()));
  std::memcpy(copy, image.data(), image.size());
  if (sqlite3_deserialize(db, "main", copy, static_cast<sqlite3_int64>(image.size()), static_cast<sqlite3_int64>(image.size()),
                          SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE) != SQLITE_OK)
    __builtin_trap();
  return db;
}

// A real export with at most kRowsKept rows per activity table (NVTX domain/category names kept).
void load_export(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.empty()) return;
  sqlite3* db = open_image(bytes);
  for (const char* t : {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
                        "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_OVERHEAD",
                        "ThreadNames", "PROCESSES", "TARGET_INFO_CUDA_STREAM", "META_DATA_CAPTURE"})
    exec(db, std::string("DELETE FROM ") + t + " WHERE rowid NOT IN (SELECT rowid FROM " + t + " ORDER BY rowid LIMIT " +
                 std::to_string(kRowsKept) + ")");
  exec(db, "DELETE FROM NVTX_EVENTS WHERE eventType NOT IN (33, 64, 75) AND rowid NOT IN (SELECT rowid FROM NVTX_EVENTS "
           "WHERE eventType NOT IN (33, 64, 75) ORDER BY rowid LIMIT " + std::to_string(kRowsKept) + ")");
  exec(db, "VACUUM");
  sqlite3_int64 size = 0;
  unsigned char* p = sqlite3_serialize(db, "main", &size, 0);
  if (p) g_images.emplace_back(p, p + size);
  sqlite3_free(p);
  sqlite3_close(db);
}

std::string value_literal(uint8_t arg) {
  switch (arg % 12) {
    case 0: return "NULL";
    case 1: return "0";
    case 2: return "-1";
    case 3: return "9223372036854775807";
    case 4: return "(-9223372036854775807 - 1)";
    case 5: return "4294967295";
    case 6: return "4611686018427387904";
    case 7: return "'not a number'";
    case 8: return "x'00ff10'";
    case 9: return "1e308";
    case 10: return "-4611686018427387904";
    default: return std::to_string(static_cast<int>(arg) - 128);
  }
}

void apply(sqlite3* db, const uint8_t* op) {
  const std::string t = kTables[op[1] % kNumTables];
  const std::vector<std::string> cols = column_names(db, t);
  const std::string c = cols.empty() ? "start" : cols[op[2] % cols.size()];
  const std::string c2 = cols.empty() ? "end" : cols[(op[2] / 16 + op[3]) % cols.size()];
  const uint8_t arg = op[3];
  const std::string every = " WHERE rowid % " + std::to_string(1 + arg % 4) + " = 0";
  switch (op[0] % 11) {
    case 0: exec(db, "DROP TABLE " + t); break;
    case 1: exec(db, "ALTER TABLE " + t + " DROP COLUMN " + c); break;
    case 2: {
      static const char* const kTypes[] = {"TEXT", "REAL", "BLOB", "INTEGER", "TEXT"};
      static const char* const kExprs[] = {"CAST(fz_old AS TEXT)", "fz_old + 0.5", "CAST(fz_old AS BLOB)", "NULL", "'garbage'"};
      const int k = arg % 5;
      exec(db, "ALTER TABLE " + t + " RENAME COLUMN " + c + " TO fz_old");
      exec(db, "ALTER TABLE " + t + " ADD COLUMN " + c + " " + kTypes[k]);
      exec(db, "UPDATE " + t + " SET " + c + " = " + kExprs[k]);
      exec(db, "ALTER TABLE " + t + " DROP COLUMN fz_old");
      break;
    }
    case 3: exec(db, "UPDATE " + t + " SET " + c + " = " + value_literal(arg) + every); break;
    case 4: exec(db, "DELETE FROM " + t + every); break;
    case 5: exec(db, "INSERT INTO " + t + " SELECT * FROM " + t + every); break;
    case 6: exec(db, "UPDATE " + t + " SET " + c + " = " + c2 + ", " + c2 + " = " + c); break;
    case 7: exec(db, "ALTER TABLE " + t + " RENAME TO fz_gone_" + std::to_string(op[1])); break;
    case 8:
      exec(db, "CREATE TABLE CUPTI_ACTIVITY_KIND_GRAPH_TRACE AS SELECT start, end, deviceId, streamId, correlationId, "
               "globalPid, correlationId % 7 AS graphId, correlationId % 5 AS graphExecId FROM CUPTI_ACTIVITY_KIND_KERNEL");
      break;
    case 9:
      exec(db, "CREATE TABLE IF NOT EXISTS TARGET_INFO_GPU (cuDevice INTEGER, name TEXT, busLocation TEXT, uuid TEXT, "
               "smCount INTEGER, totalMemory INTEGER, computeMajor INTEGER, computeMinor INTEGER)");
      exec(db, "INSERT INTO TARGET_INFO_GPU VALUES (" + std::to_string(arg % 4) + ", 'NVIDIA H100', '0000:1" +
                   std::to_string(arg % 10) + ":00.0', 'GPU-x', " + value_literal(arg / 3) + ", " + value_literal(arg / 7) + ", 9, 0)");
      break;
    default: exec(db, "UPDATE " + t + " SET " + c + " = " + c + " * " + std::to_string(1 + (int64_t{arg} << (arg % 48)))); break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fs::path dir = std::getenv("PARASCOPE_NSYS_DIR") ? fs::path(std::getenv("PARASCOPE_NSYS_DIR"))
                                                   : fs::path(PARASCOPE_SHARED_DIR) / "data" / "nsys";
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".sqlite") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) load_export(f);
  if (g_images.empty())
    std::fprintf(stderr, "fuzz_nsys_sqlite: no Nsight exports in %s (set PARASCOPE_NSYS_DIR); every input is a no-op\n",
                 dir.c_str());
  else
    std::fprintf(stderr, "fuzz_nsys_sqlite: %zu exports from %s\n", g_images.size(), dir.c_str());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (g_images.empty() || size == 0) return 0;
  sqlite3* db = open_image(g_images[data[0] % g_images.size()]);
  for (size_t i = 1, n = 0; i + 4 <= size && n < kMaxOps; i += 4, ++n) apply(db, data + i);
  std::remove(db_path().c_str());
  exec(db, "VACUUM INTO '" + db_path() + "'");
  sqlite3_close(db);
  TraceBuilder b;
  try {
    import_nsys_sqlite(db_path(), b);
    fuzz::check_trace(b.finish());
  } catch (const InputError&) {
  }
  return 0;
}
