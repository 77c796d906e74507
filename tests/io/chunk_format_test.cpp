#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "test_paths.h"
#include "trace/core/error.h"
#include "trace/io/common/byte_io.h"
#include "trace/io/pstrace/chunk_reader.h"
#include "trace/io/pstrace/chunk_writer.h"
#include "trace/io/pstrace/crc32c.h"

using namespace parascope;
namespace fs = std::filesystem;

TEST_CASE("crc32c matches the Castagnoli check value, hardware and table alike", "[io][crc]") {
  const char* s = "123456789";
  REQUIRE(crc32c(s, 9) == 0xE3069283u);  // the standard CRC-32C check value
  REQUIRE(crc32c_portable(s, 9) == 0xE3069283u);
  std::vector<uint8_t> big(100003);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<uint8_t>(i * 131 + 7);
  REQUIRE(crc32c(big.data(), big.size()) == crc32c_portable(big.data(), big.size()));
  // incremental == one shot
  REQUIRE(crc32c(big.data() + 1000, big.size() - 1000, crc32c(big.data(), 1000)) == crc32c(big.data(), big.size()));
}

TEST_CASE("ByteWriter/ByteReader round-trip varints and refuse lying lengths", "[io][bytes]") {
  ByteWriter w;
  w.varint(0);
  w.varint(300);
  w.svarint(-5);
  w.svarint(INT64_MIN);
  w.str("stream 7");
  w.u64(0xDEADBEEFCAFEull);
  ByteReader r(w.bytes().data(), w.size(), "mem", 100);
  REQUIRE(r.varint() == 0);
  REQUIRE(r.varint() == 300);
  REQUIRE(r.svarint() == -5);
  REQUIRE(r.svarint() == INT64_MIN);
  REQUIRE(r.str() == "stream 7");
  REQUIRE(r.u64() == 0xDEADBEEFCAFEull);
  REQUIRE(r.done());
  ByteWriter lie;
  lie.varint(1'000'000'000);  // claims a billion elements in a 5-byte buffer
  ByteReader lr(lie.bytes().data(), lie.size(), "mem", 0);
  REQUIRE_THROWS_WITH(lr.count(8, "slice"), Catch::Contains("exceeds what the chunk holds"));
  ByteReader short_str(lie.bytes().data(), lie.size(), "f.pstrace", 40);
  REQUIRE_THROWS_WITH(short_str.str(), Catch::StartsWith("f.pstrace (byte 45): truncated"));
}

namespace {
std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>((i / 64) ^ seed);  // compressible
  return v;
}
}  // namespace

TEST_CASE("ChunkWriter/ChunkReader round-trip, index and scan agree", "[io][pstrace]") {
  const fs::path dir = test::temp_dir("chunks");
  const std::string path = (dir / "a.pstrace").string();
  const auto p1 = pattern(100000, 1), p2 = pattern(10, 2), p3 = pattern(50000, 3);
  {
    ChunkWriter w(path);
    w.append(ChunkType::kMetadata, p1);
    w.append(ChunkType::kSlices, p2);
    w.append(ChunkType::kProbeRecords, p3, Codec::kNone);
    w.close();
  }
  ChunkReader r(path);
  REQUIRE(r.had_index());
  REQUIRE(r.version_major() == kPstraceMajor);
  REQUIRE(r.chunks().size() == 3);
  REQUIRE(r.chunks()[0].header.codec == Codec::kZstd);   // compressible → compressed
  REQUIRE(r.chunks()[1].header.codec == Codec::kNone);   // tiny → stored
  REQUIRE(r.payload(r.chunks()[0]) == p1);
  REQUIRE(r.payload(r.chunks()[1]) == p2);
  REQUIRE(r.payload(r.chunks()[2]) == p3);
  REQUIRE(r.warnings().empty());
  fs::remove_all(dir);
}

TEST_CASE("A truncated .pstrace yields every complete chunk and says what was lost", "[io][pstrace]") {
  const fs::path dir = test::temp_dir("trunc");
  const std::string path = (dir / "t.pstrace").string();
  const auto p1 = pattern(4000, 1), p2 = pattern(4000, 2);
  uint64_t second_at = 0;
  {
    ChunkWriter w(path);
    w.append(ChunkType::kMetadata, p1, Codec::kNone);
    second_at = w.append(ChunkType::kSlices, p2, Codec::kNone);
    w.close();
  }
  // cut in the middle of the second chunk's payload (a killed writer)
  fs::resize_file(path, second_at + 20 + 1000);
  ChunkReader r(path);
  REQUIRE_FALSE(r.had_index());
  REQUIRE(r.chunks().size() == 1);
  REQUIRE(r.payload(r.chunks()[0]) == p1);
  REQUIRE(r.warnings().size() == 1);
  REQUIRE(r.warnings()[0] == "file is truncated: chunk #1 (slices) at byte " + std::to_string(second_at) +
                                 " needs 4000 payload bytes, 1000 present; it was dropped");
  fs::remove_all(dir);
}

TEST_CASE("Corrupt chunks and newer versions are reported with their offsets", "[io][pstrace]") {
  const fs::path dir = test::temp_dir("corrupt");
  const std::string path = (dir / "c.pstrace").string();
  uint64_t at = 0;
  {
    ChunkWriter w(path);
    at = w.append(ChunkType::kSlices, pattern(3000, 9), Codec::kNone);
    w.close();
  }
  SECTION("a flipped payload byte fails the checksum") {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(at + 20 + 100));
    f.put('\x55');
    f.close();
    ChunkReader r(path);
    REQUIRE_THROWS_WITH(r.payload(r.chunks()[0]),
                        Catch::EndsWith("c.pstrace (byte " + std::to_string(at) + "): checksum mismatch in slices chunk"));
  }
  SECTION("a newer major version is refused with a clear message") {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(8);
    const uint16_t major = 9;
    f.write(reinterpret_cast<const char*>(&major), 2);
    f.close();
    // the header checksum now fails first: rewrite it as a newer writer would have
    std::ifstream in(path, std::ios::binary);
    std::vector<char> head(28);
    in.read(head.data(), 28);
    in.close();
    const uint32_t crc = crc32c(head.data(), 28);
    std::fstream g(path, std::ios::in | std::ios::out | std::ios::binary);
    g.seekp(28);
    g.write(reinterpret_cast<const char*>(&crc), 4);
    g.close();
    REQUIRE_THROWS_WITH(ChunkReader(path), Catch::Contains("format version 9.0 is newer than this build reads"));
  }
  SECTION("not a pstrace, empty, directory") {
    std::ofstream(dir / "x.pstrace") << "{\"traceEvents\": []}   padding padding padding";
    REQUIRE_THROWS_WITH(ChunkReader((dir / "x.pstrace").string()), Catch::Contains("not a .pstrace file (bad magic)"));
    std::ofstream(dir / "e.pstrace").close();
    REQUIRE_THROWS_WITH(ChunkReader((dir / "e.pstrace").string()), Catch::Contains("empty file"));
    REQUIRE_THROWS_WITH(ChunkReader(dir.string()), Catch::Contains("is a directory"));
  }
  fs::remove_all(dir);
}

TEST_CASE("An atomic writer leaves nothing under the final name until close()", "[io][pstrace]") {
  const fs::path dir = test::temp_dir("atomic");
  const std::string path = (dir / "out.pstrace").string();
  {
    ChunkWriter::Options o;
    o.atomic = true;
    ChunkWriter w(path, o);
    w.append(ChunkType::kMetadata, pattern(100, 1));
    REQUIRE_FALSE(fs::exists(path));
    w.close();
  }
  REQUIRE(fs::exists(path));
  REQUIRE(ChunkReader(path).chunks().size() == 1);
  fs::remove_all(dir);
}
