// A minimal protobuf wire-format encoder (no SDK, no generated code): varints, zigzag-free signed
// ints (two's complement as 10-byte varints, as protobuf's int32/int64 do), fixed64, doubles,
// length-delimited strings and nested messages. Field numbers come from the caller (for Perfetto:
// perfetto_writer.cpp, taken from Perfetto's public .proto files).
// A nested message is encoded into its own encoder and appended with its length, so lengths are
// always minimal varints and any protobuf parser (protoc --decode_raw) reads the result.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace parascope {

class ProtoEncoder {
 public:
  enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

  void clear() { buf_.clear(); }
  const std::string& data() const { return buf_; }
  size_t size() const { return buf_.size(); }

  void tag(uint32_t field, WireType type) { raw_varint((static_cast<uint64_t>(field) << 3) | type); }
  void uint(uint32_t field, uint64_t v) {
    tag(field, kVarint);
    raw_varint(v);
  }
  // int32/int64 fields: negative values are sign-extended to 64 bits (10 bytes on the wire).
  void sint(uint32_t field, int64_t v) { uint(field, static_cast<uint64_t>(v)); }
  void boolean(uint32_t field, bool v) { uint(field, v ? 1 : 0); }
  void fixed64(uint32_t field, uint64_t v) {
    tag(field, kFixed64);
    raw_fixed64(v);
  }
  void dbl(uint32_t field, double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    fixed64(field, bits);
  }
  void bytes(uint32_t field, std::string_view s) {
    tag(field, kLengthDelimited);
    raw_varint(s.size());
    buf_.append(s);
  }
  void string(uint32_t field, std::string_view s) { bytes(field, s); }
  void message(uint32_t field, const ProtoEncoder& m) { bytes(field, m.buf_); }

  void raw_varint(uint64_t v) {
    while (v >= 0x80) {
      buf_.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    buf_.push_back(static_cast<char>(v));
  }
  void raw_fixed64(uint64_t v) {
    for (int i = 0; i < 8; ++i) buf_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }

 private:
  std::string buf_;
};

}  // namespace parascope
