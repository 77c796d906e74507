#include <catch2/catch.hpp>

#include "trace/io/export/proto_encoder.h"

using namespace parascope;

namespace {
std::string hex(const std::string& s) {
  static const char* d = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out.push_back(d[c >> 4]);
    out.push_back(d[c & 15]);
  }
  return out;
}
}  // namespace

TEST_CASE("Protobuf wire encoding of varints, signed ints, fixed64, doubles and nesting", "[writers][proto]") {
  ProtoEncoder e;
  // field 1, varint 150: tag (1<<3|0) = 08, 150 = 0x96 0x01 (the protobuf encoding guide's example)
  e.uint(1, 150);
  CHECK(hex(e.data()) == "089601");
  e.clear();
  // field 12 int32 -1: tag 0x60, then ten bytes ff ff ff ff ff ff ff ff ff 01 (sign-extended)
  e.sint(12, -1);
  CHECK(hex(e.data()) == "60ffffffffffffffffff01");
  e.clear();
  // field 47 fixed64 5: tag (47<<3|1) = 377 = f9 02, then 8 little-endian bytes
  e.fixed64(47, 5);
  CHECK(hex(e.data()) == "f9020500000000000000");
  e.clear();
  // field 44 double 1.0 = 0x3ff0000000000000: tag (44<<3|1) = 353 = e1 02
  e.dbl(44, 1.0);
  CHECK(hex(e.data()) == "e102000000000000f03f");
  e.clear();
  // nested: field 3 { field 1: 727 } → 1a 03 08 d7 05
  ProtoEncoder inner;
  inner.uint(1, 727);
  e.message(3, inner);
  CHECK(hex(e.data()) == "1a0308d705");
  e.clear();
  e.string(23, "ab");  // tag (23<<3|2) = 186 = ba 01, length 2
  CHECK(hex(e.data()) == "ba01026162");
}
