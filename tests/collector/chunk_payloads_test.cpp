#include <catch2/catch.hpp>

#include <cstring>

#include "trace/collector/chunk_payloads.h"

using namespace parascope;
using namespace parascope::collector;

TEST_CASE("Metadata payloads store each string once and keep key order", "[collector][payload]") {
  const Metadata kv = {{"host", "h200"}, {"rank", "0"}, {"local_rank", "0"}, {"empty", ""}};
  const auto bytes = encode_metadata(kv);
  // distinct non-empty strings: host, h200, rank, 0, local_rank, empty ("0" is stored once)
  ByteReader head(bytes.data(), bytes.size(), "mem", 0);
  CHECK(head.varint() == 6);  // host, h200, rank, 0, local_rank, empty
  ByteReader r(bytes.data(), bytes.size(), "mem", 0);
  const Metadata back = decode_metadata(r);
  CHECK(back == kv);
  CHECK(r.done());
  CHECK(metadata_value({{"rank", "-1"}, {"rank", "2"}}, "rank") == "2");  // the last value wins
  CHECK(metadata_value(kv, "missing").empty());
}

TEST_CASE("A metadata index beyond the string table is an error with its offset", "[collector][payload]") {
  ByteWriter w;
  w.varint(1);
  w.str("k");
  w.varint(1);
  w.varint(1), w.varint(9);  // value index 9 of 2 strings
  ByteReader r(w.bytes().data(), w.size(), "m.pstrace", 100);
  REQUIRE_THROWS_WITH(decode_metadata(r), "m.pstrace (byte 106): metadata string index out of range");
}

TEST_CASE("Probe chunks are the documented bytes: header fields then raw 32-byte records", "[collector][payload]") {
  ProbeChunk c;
  c.device = 1;
  c.clock_offset_ns = -2;
  c.correlation = 300;
  c.launch_id = 4;
  c.kernel_name = "k";
  c.overflow = 5;
  ProbeRecord rec{};
  rec.t_start_ns = 1000, rec.t_end_ns = 2000, rec.block = 7, rec.smid = 131, rec.warp = 0xff, rec.role = 1, rec.tag = 9;
  rec.launch_id = 4;
  c.records = {rec, rec};
  const auto bytes = encode_probe_chunk(c);
  // v 1 | z -2 = 3 | v 300 = ac 02 | v 4 | v 1 'k' | v 5 | v 2 | 64 bytes
  const std::vector<uint8_t> head = {0x01, 0x03, 0xac, 0x02, 0x04, 0x01, 'k', 0x05, 0x02};
  REQUIRE(bytes.size() == head.size() + 64);
  CHECK(std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<long>(head.size())) == head);
  CHECK(std::memcmp(bytes.data() + head.size(), &rec, 32) == 0);
  ByteReader r(bytes.data(), bytes.size(), "mem", 0);
  const ProbeChunk back = decode_probe_chunk(r);
  CHECK(back.clock_offset_ns == -2);
  CHECK(back.overflow == 5);
  REQUIRE(back.records.size() == 2);
  CHECK(back.records[1].smid == 131);
  CHECK(back.records[1].t_end_ns == 2000);
}
