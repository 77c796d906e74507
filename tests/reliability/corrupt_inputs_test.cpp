// Corrupt and truncated real files: every case either loads or fails with an InputError that
// names the file — never a crash, a hang, another exception type or an unbounded allocation
// (ASan in CI catches the memory side). Cases are deterministic (fixed offsets, seeded flips).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>

#include "test_paths.h"
#include "trace/core/error.h"
#include "trace/io/load_trace.h"

using namespace parascope;
namespace fs = std::filesystem;

namespace {

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
};

// Loads `data` written to `path`; the only acceptable failure is an InputError naming the file.
void check_case(const fs::path& path, const std::string& data, Outcome& o, const std::string& what) {
  write_file(path, data);
  try {
    const Trace t = load_trace({path.string()});
    (void)t.slice_count();
    ++o.loaded;
  } catch (const InputError& e) {
    INFO(what << ": " << e.what());
    REQUIRE(e.where().file == path.string());
    REQUIRE(!e.problem().empty());
    ++o.rejected;
  }
}

const std::vector<std::string> kSamples = {"allreduce_matmul_2xh200/rank0.json"};

}  // namespace

TEST_CASE("Truncating a real Kineto trace at many offsets never crashes", "[reliability][json]") {
  const fs::path dir = test::temp_dir("truncate");
  for (const std::string& rel : kSamples) {
    const std::string data = read_file(test::sample_path(rel));
    REQUIRE(data.size() > 1000);
    Outcome o;
    // 0, 1, 2 bytes, then 97 offsets spread over the file, and the last few bytes
    std::vector<size_t> cuts = {0, 1, 2};
    for (size_t k = 1; k < 98; ++k) cuts.push_back(data.size() * k / 98);
    for (size_t k = 1; k <= 5; ++k) cuts.push_back(data.size() - k);
    for (size_t cut : cuts) check_case(dir / "cut.json", data.substr(0, cut), o, "cut at " + std::to_string(cut));
    // A cut inside the events is an error; only the whole file and cuts inside the trailing
    // metadata after the event array (missing ']' / '}' tolerated) load.
    CHECK(o.rejected >= 95);
    CHECK(o.loaded + o.rejected == static_cast<int>(cuts.size()));
  }
  fs::remove_all(dir);
}

TEST_CASE("Flipping bytes of a real Kineto trace never crashes", "[reliability][json]") {
  const fs::path dir = test::temp_dir("flip");
  std::mt19937_64 rng(20261130);  // seeded: the same cases every run
  for (const std::string& rel : kSamples) {
    const std::string data = read_file(test::sample_path(rel));
    Outcome o;
    for (int k = 0; k < 300; ++k) {
      std::string bad = data;
      const int flips = 1 + static_cast<int>(rng() % 4);
      for (int f = 0; f < flips; ++f) {
        const size_t at = rng() % bad.size();
        bad[at] = static_cast<char>(rng() % 256);
      }
      check_case(dir / "flip.json", bad, o, "case " + std::to_string(k));
    }
    CHECK(o.loaded + o.rejected == 300);
    CHECK(o.rejected > 0);
  }
  fs::remove_all(dir);
}

TEST_CASE("Wrong kinds of file get clear errors", "[reliability]") {
  const fs::path dir = test::temp_dir("kinds");
  Outcome o;
  check_case(dir / "zeros.json", std::string(4096, '\0'), o, "zeros");
  check_case(dir / "binary.json", std::string("\x7f" "ELF\x02\x01\x01", 7) + std::string(500, 'x'), o, "elf");
  check_case(dir / "deep.json", std::string(100000, '[') + "]", o, "deep nesting");
  check_case(dir / "huge_number.json", R"([{"ph": "X", "name": "a", "ts": 1e999999999, "dur": 1}])", o, "huge");
  check_case(dir / "neg_dur.json", R"([{"ph": "X", "name": "a", "ts": 1, "dur": -5}])", o, "negative dur");
  check_case(dir / "str_ts.json", R"([{"ph": "X", "name": "a", "ts": {}, "dur": 1}])", o, "object ts");
  CHECK(o.rejected == 6);
  fs::remove_all(dir);
}
