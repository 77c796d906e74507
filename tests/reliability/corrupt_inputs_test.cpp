// Corrupt and truncated real files: every real sample (resources/samples, tests/data, the Nsight
// exports in ../shared when present) cut at many offsets and with bytes flipped. Each case either
// loads or fails with an InputError that names the file — never a crash, a hang, another exception
// type or an allocation the input's size does not justify (a lying length field). The native
// format promises more: a cut file loads with every complete chunk and a warning naming the chunk
// it lost. Cases are deterministic (fixed offsets, seeded flips). CI runs this under ASan + UBSan
// too (the asan preset).
//
// Memory: this test binary replaces operator new to record the largest single allocation of each
// load; it must stay within kAllocSlack + kAllocPerInputByte × the input's size (intact files
// measure far below: see docs/reliability.md). Time: each load must finish within kMaxCaseSeconds.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <random>

#include "skip.h"
#include "test_paths.h"
#include "trace/core/error.h"
#include "trace/io/load_trace.h"
#include "trace/io/pstrace/chunk_reader.h"
#include "trace/io/pstrace/crc32c.h"
#include "trace/io/pstrace/pstrace_reader.h"

using namespace parascope;
namespace fs = std::filesystem;

// --- the largest single allocation -------------------------------------------------------------
namespace {
std::atomic<size_t> g_largest_alloc{0};
void* counted_alloc(size_t n) {
  size_t cur = g_largest_alloc.load(std::memory_order_relaxed);
  while (n > cur && !g_largest_alloc.compare_exchange_weak(cur, n, std::memory_order_relaxed)) {
  }
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
}  // namespace
void* operator new(size_t n) { return counted_alloc(n); }
void* operator new[](size_t n) { return counted_alloc(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }
// the nothrow forms too (Catch allocates with them): else, under AddressSanitizer, its own nothrow
// new would pair with the free() above (alloc-dealloc-mismatch)
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  try {
    return counted_alloc(n);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void* operator new[](size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace {

constexpr size_t kAllocSlack = size_t{16} << 20;  // fixed buffers (the JSON reader's 4 MiB blocks), tables
constexpr size_t kAllocPerInputByte = 16;
constexpr double kMaxCaseSeconds = 20;

std::string read_file(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_file(const fs::path& p, const std::string& data) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
}

struct Outcome {
  int loaded = 0, rejected = 0;
  size_t largest_alloc = 0;   // over every case
  double slowest_s = 0;
};

// Loads `input` (a file, or a directory `error_file` lies in); the only acceptable failure is an
// InputError naming `error_file` (or, for directories, a file inside it). Returns whether it
// loaded; `report` gets the load report.
bool check_case(const fs::path& input, size_t input_bytes, Outcome& o, const std::string& what,
                LoadReport* report = nullptr, Trace* out = nullptr) {
  g_largest_alloc = 0;
  const auto t0 = std::chrono::steady_clock::now();
  bool loaded = false;
  try {
    Trace t = load_trace({input.string()}, {}, report);
    (void)t.slice_count();
    (void)t.time_span();
    if (out) *out = std::move(t);
    loaded = true;
    ++o.loaded;
  } catch (const InputError& e) {
    INFO(what << ": " << e.what());
    REQUIRE(e.where().file.rfind(input.string(), 0) == 0);  // the file, or a file in the directory
    REQUIRE(!e.problem().empty());
    ++o.rejected;
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const size_t largest = g_largest_alloc.load();
  INFO(what << ": largest allocation " << largest << " bytes for " << input_bytes << " input bytes, " << s << " s");
  CHECK(largest <= kAllocSlack + kAllocPerInputByte * input_bytes);
  CHECK(s < kMaxCaseSeconds);
  o.largest_alloc = std::max(o.largest_alloc, largest);
  o.slowest_s = std::max(o.slowest_s, s);
  return loaded;
}

// 0, 1, 2 bytes, `n` offsets spread over the file, the last few bytes.
std::vector<size_t> cut_offsets(size_t size, size_t n) {
  std::vector<size_t> cuts = {0, 1, 2};
  for (size_t k = 1; k <= n; ++k) cuts.push_back(size * k / (n + 1));
  for (size_t k = 1; k <= 5 && k < size; ++k) cuts.push_back(size - k);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  return cuts;
}

// `k` random bytes of `data` replaced by random values.
std::string flipped(const std::string& data, std::mt19937_64& rng, int k) {
  std::string bad = data;
  for (int f = 0; f < k; ++f) bad[rng() % bad.size()] = static_cast<char>(rng() % 256);
  return bad;
}

void report_outcome(const std::string& name, const Outcome& o) {
  WARN(name << ": " << o.loaded << " loaded, " << o.rejected << " rejected; largest allocation "
            << o.largest_alloc << " bytes, slowest case " << o.slowest_s << " s");
}

// Kineto / Chrome JSON (plain and gzip) from the samples and the fixtures.
const std::vector<std::string> kJsonSamples = {
    "resources/samples/allreduce_matmul_2xh200/rank0.json",
    "resources/samples/allreduce_matmul_2xh200/rank1.json",
    "tests/data/tb_steps/rank0.1000.pt.trace.json",
    "tests/data/tb_steps/rank1.2000.pt.trace.json.gz",
    "tests/data/collector/torch_prof/kineto_rank0.json.gz",
};

// Every real .pstrace: parascope-bench probe files (with and without index), collector files.
const std::vector<std::string> kPstraceSamples = {
    "resources/samples/fused_probe_2xh200/fused_probe.pstrace",
    "resources/samples/collectives_probe_2xh200/collectives_probe.pstrace",
    "resources/samples/record_torch_nccl_2xh200/vm-3445-rnone.pstrace",
    "resources/samples/record_torch_nccl_2xh200/vm-3490-r0.pstrace",
    "resources/samples/record_torch_nccl_2xh200/vm-3491-r1.pstrace",
    "tests/data/bench/fused_probe_interim.pstrace",
    "tests/data/collector/graph_rec/vm-3397-rnone.pstrace",
    "tests/data/collector/peer_rec/vm-3377-rnone.pstrace",
    "tests/data/collector/probe_rec/vm-3289-rnone.pstrace",
    "tests/data/collector/torch_rec/vm-2016-rnone.pstrace",
    "tests/data/collector/torch_rec/vm-2061-r0.pstrace",
    "tests/data/collector/torch_rec/vm-2062-r1.pstrace",
};

// `record` output directories.
const std::vector<std::string> kRecordDirs = {
    "resources/samples/record_torch_nccl_2xh200",
    "tests/data/collector/graph_rec",
    "tests/data/collector/peer_rec",
    "tests/data/collector/probe_rec",
    "tests/data/collector/torch_rec",
};

std::string file_name(const std::string& rel) { return fs::path(rel).filename().string(); }

}  // namespace

TEST_CASE("Truncating real Kineto traces at many offsets never crashes", "[reliability][json]") {
  const fs::path dir = test::temp_dir("truncate");
  for (const std::string& rel : kJsonSamples) {
    const std::string data = read_file(test::source_path(rel));
    REQUIRE(data.size() > 1000);
    Outcome o;
    const auto cuts = cut_offsets(data.size(), 97);
    for (size_t cut : cuts) {
      write_file(dir / file_name(rel), data.substr(0, cut));
      check_case(dir / file_name(rel), cut, o, rel + " cut at " + std::to_string(cut));
    }
    report_outcome(rel + " (truncated)", o);
    // a cut inside the events is an error; only cuts in the trailing metadata after the event
    // array (a missing ']' or '}' is tolerated) and the whole file load
    CHECK(o.rejected >= static_cast<int>(cuts.size()) * 9 / 10);
    CHECK(o.loaded + o.rejected == static_cast<int>(cuts.size()));
  }
  fs::remove_all(dir);
}

TEST_CASE("Flipping bytes of real Kineto traces never crashes", "[reliability][json]") {
  const fs::path dir = test::temp_dir("flip");
  std::mt19937_64 rng(20261130);  // seeded: the same cases every run
  for (const std::string& rel : kJsonSamples) {
    const std::string data = read_file(test::source_path(rel));
    Outcome o;
    for (int k = 0; k < 150; ++k) {
      const std::string bad = flipped(data, rng, 1 + static_cast<int>(rng() % 4));
      write_file(dir / file_name(rel), bad);
      check_case(dir / file_name(rel), bad.size(), o, rel + " case " + std::to_string(k));
    }
    report_outcome(rel + " (flipped)", o);
    CHECK(o.loaded + o.rejected == 150);
    CHECK(o.rejected > 0);
  }
  fs::remove_all(dir);
}

TEST_CASE("A cut .pstrace loads every complete chunk and names the chunk it lost", "[reliability][pstrace]") {
  const fs::path dir = test::temp_dir("truncate-pstrace");
  for (const std::string& rel : kPstraceSamples) {
    const std::string data = read_file(test::source_path(rel));
    // the chunks of the intact file: (end offset, index in the file, type)
    std::vector<ChunkInfo> chunks;
    {
      const ChunkReader whole(test::source_path(rel));
      REQUIRE(whole.warnings().empty());
      chunks = whole.chunks();
    }
    // every chunk boundary and one byte either side, plus 60 offsets spread over the file
    std::vector<size_t> cuts = cut_offsets(data.size(), 60);
    for (const ChunkInfo& c : chunks)
      for (int64_t d : {-1, 0, 1}) cuts.push_back(static_cast<size_t>(static_cast<int64_t>(c.offset) + d));
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    Outcome o;
    const fs::path file = dir / file_name(rel);
    // the interim probe file (tests/data/bench) is refused whole (its metadata predates the
    // format); its cuts need only fail cleanly
    write_file(file, data);
    const bool readable = check_case(file, data.size(), o, rel + " intact");
    for (size_t cut : cuts) {
      if (cut > data.size()) continue;
      const std::string what = rel + " cut at " + std::to_string(cut);
      write_file(file, data.substr(0, cut));
      if (cut < kFileHeaderBytes) {
        CHECK_FALSE(check_case(file, cut, o, what));  // no header: nothing to read
        continue;
      }
      LoadReport lr;
      Trace t;
      const bool loaded = check_case(file, cut, o, what, &lr, &t);
      if (!readable) continue;
      REQUIRE(loaded);  // a cut file always loads
      // exactly the chunks that end before the cut (the index chunk is not counted)
      size_t complete = 0;
      const ChunkInfo* lost = nullptr;
      for (const ChunkInfo& c : chunks) {
        if (c.offset + kChunkHeaderBytes + c.header.length <= cut) ++complete;
        else if (!lost && c.offset < cut) lost = &c;
      }
      PstraceFileReport pr;
      (void)read_pstrace(file.string(), {}, &pr);
      INFO(what);
      CHECK(pr.chunks == complete);
      if (cut < data.size()) CHECK(pr.truncated);
      if (lost && cut >= lost->offset + kChunkHeaderBytes) {
        // cut inside a payload: the warning names the chunk, its type, offset and what was present
        const std::string want = "(" + std::string(chunk_type_name(lost->header.type)) + ") at byte " +
                                 std::to_string(lost->offset) + " needs " + std::to_string(lost->header.length) +
                                 " payload bytes, " + std::to_string(cut - lost->offset - kChunkHeaderBytes) + " present";
        bool named = false;
        for (const std::string& w : t.warnings) named |= w.find(want) != std::string::npos;
        INFO("expected a warning containing: " << want);
        CHECK(named);
      } else if (lost) {
        bool named = false;  // cut inside a chunk header
        for (const std::string& w : t.warnings) named |= w.find("ends inside a chunk header at byte " + std::to_string(lost->offset)) != std::string::npos;
        CHECK(named);
      }
    }
    report_outcome(rel + " (truncated)", o);
  }
  fs::remove_all(dir);
}

TEST_CASE("Flipping bytes of real .pstrace files never crashes", "[reliability][pstrace]") {
  const fs::path dir = test::temp_dir("flip-pstrace");
  std::mt19937_64 rng(20261201);
  for (const std::string& rel : kPstraceSamples) {
    const std::string data = read_file(test::source_path(rel));
    Outcome o;
    int chunk_skipped = 0;
    write_file(dir / file_name(rel), data);
    const bool readable = check_case(dir / file_name(rel), data.size(), o, rel + " intact");
    for (int k = 0; k < 60; ++k) {
      const std::string bad = flipped(data, rng, 1 + static_cast<int>(rng() % 3));
      write_file(dir / file_name(rel), bad);
      Trace t;
      if (check_case(dir / file_name(rel), bad.size(), o, rel + " case " + std::to_string(k), nullptr, &t))
        for (const std::string& w : t.warnings) chunk_skipped += w.find("skipped: checksum mismatch") != std::string::npos;
    }
    report_outcome(rel + " (flipped)", o);
    CHECK(o.loaded + o.rejected == 61);
    if (readable) CHECK(chunk_skipped > 0);  // most flips land in a payload: that chunk is skipped, with a warning
  }
  fs::remove_all(dir);
}

TEST_CASE("Record directories with cut files and damaged manifests never crash", "[reliability][record]") {
  const fs::path root = test::temp_dir("record-dirs");
  std::mt19937_64 rng(20261202);
  for (const std::string& rel : kRecordDirs) {
    const fs::path dir = root / fs::path(rel).filename();
    fs::copy(test::source_path(rel), dir, fs::copy_options::recursive);
    size_t total = 0;
    for (const auto& e : fs::directory_iterator(dir)) total += fs::file_size(e.path());
    Outcome o;
    // each trace file cut at 12 offsets (the others intact): always loads
    for (const auto& e : fs::directory_iterator(test::source_path(rel))) {
      if (e.path().extension() != ".pstrace") continue;
      const std::string data = read_file(e.path().string());
      for (size_t cut : cut_offsets(data.size(), 12)) {
        if (cut < kFileHeaderBytes) continue;
        write_file(dir / e.path().filename(), data.substr(0, cut));
        CHECK(check_case(dir, total, o, rel + ": " + e.path().filename().string() + " cut at " + std::to_string(cut)));
      }
      write_file(dir / e.path().filename(), data);
    }
    // the manifest cut and flipped: loads, or an InputError naming manifest.json
    const std::string manifest = read_file((dir / "manifest.json").string());
    for (size_t cut : cut_offsets(manifest.size(), 20)) {
      write_file(dir / "manifest.json", manifest.substr(0, cut));
      check_case(dir, total, o, rel + ": manifest cut at " + std::to_string(cut));
    }
    for (int k = 0; k < 40; ++k) {
      write_file(dir / "manifest.json", flipped(manifest, rng, 1 + static_cast<int>(rng() % 3)));
      check_case(dir, total, o, rel + ": manifest case " + std::to_string(k));
    }
    report_outcome(rel + " (record directory)", o);
    CHECK(o.rejected > 0);
  }
  fs::remove_all(root);
}

TEST_CASE("Truncated and flipped Nsight exports never crash", "[reliability][nsys]") {
  if (!test::shared_available()) PARASCOPE_SKIP("../shared/data (real Nsight exports) is not present");
#ifndef PARASCOPE_HAVE_SQLITE
  PARASCOPE_SKIP("built without the SQLite reader (PARASCOPE_SQLITE off or sqlite3 missing)");
#endif
  const fs::path dir = test::temp_dir("nsys-corrupt");
  std::mt19937_64 rng(20261203);
  for (const char* name : {"h100_2gpu_1s.sqlite", "mfu_2gpu_before.sqlite"}) {
    const std::string data = read_file(test::shared_path(std::string("data/nsys/") + name));
    REQUIRE(data.size() > 100000);
    Outcome o;
    const fs::path file = dir / name;
    for (size_t cut : cut_offsets(data.size(), 24)) {
      write_file(file, data.substr(0, cut));
      check_case(file, cut, o, std::string(name) + " cut at " + std::to_string(cut));
    }
    for (int k = 0; k < 30; ++k) {
      // flips in the first 64 KiB hit the schema and the b-tree pages that index the tables
      std::string bad = data;
      for (int f = 0; f < 1 + static_cast<int>(rng() % 8); ++f) bad[rng() % 65536] = static_cast<char>(rng() % 256);
      write_file(file, bad);
      check_case(file, bad.size(), o, std::string(name) + " case " + std::to_string(k));
    }
    report_outcome(name, o);
    CHECK(o.rejected > 0);
  }
  fs::remove_all(dir);
}

TEST_CASE("Wrong kinds of file get clear errors", "[reliability]") {
  const fs::path dir = test::temp_dir("kinds");
  Outcome o;
  auto one = [&](const std::string& name, const std::string& data) {
    write_file(dir / name, data);
    check_case(dir / name, data.size(), o, name);
  };
  one("zeros.json", std::string(4096, '\0'));
  one("binary.json", std::string("\x7f" "ELF\x02\x01\x01", 7) + std::string(500, 'x'));
  one("deep.json", std::string(100000, '[') + "]");
  one("huge_number.json", R"([{"ph": "X", "name": "a", "ts": 1e999999999, "dur": 1}])");
  one("neg_dur.json", R"([{"ph": "X", "name": "a", "ts": 1, "dur": -5}])");
  one("str_ts.json", R"([{"ph": "X", "name": "a", "ts": {}, "dur": 1}])");
  one("header_only.pstrace", read_file(test::sample_path("fused_probe_2xh200/fused_probe.pstrace")).substr(0, 31));
  one("not_sqlite.sqlite", std::string("SQLite format 3\0", 16) + std::string(5000, '\x55'));
  one("gzip_garbage.json.gz", std::string("\x1f\x8b\x08\x00", 4) + std::string(3000, '\x42'));
  CHECK(o.rejected == 9);
  fs::remove_all(dir);
}

TEST_CASE("An index entry whose length wraps around 2^64 is not trusted", "[reliability][pstrace]") {
  // Found by review (a fuzzer must forge two consistent 8-byte lengths and the index checksum):
  // offset + header + length wrapped around, passed the bound checks, and the payload's checksum
  // then read far past the mapping. The file is a real one with its first chunk's length set to
  // 2^64 - 20 - offset in both the index entry and the chunk header, the index checksum redone.
  const fs::path dir = test::temp_dir("index-wrap");
  std::string data = read_file(test::sample_path("fused_probe_2xh200/fused_probe.pstrace"));
  uint64_t index_at;
  std::memcpy(&index_at, data.data() + data.size() - kTrailerBytes, 8);
  const size_t entries = index_at + kChunkHeaderBytes + 1;  // fewer than 128 entries: a 1-byte count
  uint64_t first;
  std::memcpy(&first, data.data() + entries, 8);
  const uint64_t lie = uint64_t{0} - kChunkHeaderBytes - first;
  std::memcpy(data.data() + entries + 12, &lie, 8);  // the entry's length
  std::memcpy(data.data() + first + 8, &lie, 8);     // the chunk header's length
  uint64_t index_len;
  std::memcpy(&index_len, data.data() + index_at + 8, 8);
  const uint32_t crc = crc32c(data.data() + index_at + kChunkHeaderBytes, index_len);
  std::memcpy(data.data() + index_at + 16, &crc, 4);
  write_file(dir / "wrap.pstrace", data);
  Outcome o;
  Trace t;
  if (check_case(dir / "wrap.pstrace", data.size(), o, "wrapped index length", nullptr, &t)) {
    bool said = false;  // loaded by scanning instead: the damage is reported
    for (const std::string& w : t.warnings) said |= w.find("corrupt chunk header at byte " + std::to_string(first)) != std::string::npos;
    CHECK(said);
  }
  fs::remove_all(dir);
}

TEST_CASE("A trailer pointing anywhere is not trusted", "[reliability][pstrace]") {
  // Found by review: the trailer (no checksum of its own) gives the index offset; near 2^64,
  // offset + header wrapped around and the reader looked before the start of the file.
  const fs::path dir = test::temp_dir("trailer-lie");
  const std::string good = read_file(test::sample_path("fused_probe_2xh200/fused_probe.pstrace"));
  Outcome o;
  for (const uint64_t lie : {~uint64_t{0}, ~uint64_t{0} - 9, uint64_t{good.size()}, uint64_t{0}, uint64_t{31}}) {
    std::string data = good;
    std::memcpy(data.data() + data.size() - kTrailerBytes, &lie, 8);
    write_file(dir / "t.pstrace", data);
    PstraceFileReport pr;
    const Trace t = read_pstrace((dir / "t.pstrace").string(), {}, &pr);  // scanned instead: every chunk
    CHECK(pr.chunks == ChunkReader(test::sample_path("fused_probe_2xh200/fused_probe.pstrace")).chunks().size());
    CHECK(pr.truncated);
    check_case(dir / "t.pstrace", data.size(), o, "trailer " + std::to_string(lie));
  }
  CHECK(o.loaded == 5);
  fs::remove_all(dir);
}
