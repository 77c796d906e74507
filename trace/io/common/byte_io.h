// Little-endian byte encoding for the native format: ByteWriter appends fixed-width integers,
// LEB128 varints (zig-zag for signed) and length-prefixed strings; ByteReader reads them back
// with a bound check on every read, throwing InputError with the absolute file offset, so a
// lying length field can never read or allocate past its chunk.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "trace/core/error.h"

namespace parascope {

class ByteWriter {
 public:
  std::vector<uint8_t>& bytes() { return buf_; }
  const std::vector<uint8_t>& bytes() const { return buf_; }
  size_t size() const { return buf_.size(); }
  void clear() { buf_.clear(); }

  void u8(uint8_t v) { buf_.push_back(v); }
  void u16(uint16_t v) { put(&v, 2); }
  void u32(uint32_t v) { put(&v, 4); }
  void u64(uint64_t v) { put(&v, 8); }
  void f64(double v) { put(&v, 8); }
  void varint(uint64_t v) {
    while (v >= 0x80) {
      buf_.push_back(static_cast<uint8_t>(v | 0x80));
      v >>= 7;
    }
    buf_.push_back(static_cast<uint8_t>(v));
  }
  void svarint(int64_t v) { varint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63)); }
  void str(std::string_view s) {
    varint(s.size());
    put(s.data(), s.size());
  }
  void raw(const void* p, size_t n) { put(p, n); }

 private:
  void put(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    buf_.insert(buf_.end(), b, b + n);  // host is little-endian (static_assert in pstrace_format.h)
  }
  std::vector<uint8_t> buf_;
};

// The value of a zig-zag encoded signed integer, as its two's-complement bits (add it with wrapping).
inline uint64_t zigzag_decode(uint64_t z) { return (z >> 1) ^ (~(z & 1) + 1); }

// One LEB128 varint at p, which must have at least 10 readable bytes, advancing p past it; false
// (p 10 bytes on) when it is longer than 10 bytes. ByteReader's checked reads and the raw-pointer
// column decoders (slice_chunk.cpp) share it.
[[gnu::always_inline]] inline bool decode_varint(const uint8_t*& p, uint64_t& v) {
  v = *p++;
  if (v < 0x80) [[likely]] return true;
  v &= 0x7F;
  for (int shift = 7; shift < 70; shift += 7) {
    const uint8_t b = *p++;
    v |= static_cast<uint64_t>(b & 0x7F) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

class ByteReader {
 public:
  // `base_offset` is the absolute file offset of data[0], for error messages.
  ByteReader(const uint8_t* data, size_t size, std::string file, int64_t base_offset)
      : p_(data), begin_(data), end_(data + size), file_(std::move(file)), base_(base_offset) {}

  size_t remaining() const { return static_cast<size_t>(end_ - p_); }
  bool done() const { return p_ == end_; }
  int64_t offset() const { return base_ + (p_ - begin_); }

  uint8_t u8() { need(1); return *p_++; }
  uint16_t u16() { return get<uint16_t>(); }
  uint32_t u32() { return get<uint32_t>(); }
  uint64_t u64() { return get<uint64_t>(); }
  double f64() { return get<double>(); }
  // Hot in every decoder: one-byte values return at once; the general case lives out of line.
  [[gnu::always_inline]] uint64_t varint() {
    if (end_ - p_ >= 2) [[likely]] {
      const uint64_t b0 = p_[0];
      if (b0 < 0x80) {
        ++p_;
        return b0;
      }
      const uint64_t b1 = p_[1];
      if (b1 < 0x80) {
        p_ += 2;
        return (b0 & 0x7F) | (b1 << 7);
      }
    } else if (p_ < end_ && *p_ < 0x80) {
      return *p_++;
    }
    return varint_long();
  }
  [[gnu::always_inline]] int64_t svarint() {
    const uint64_t z = varint();
    return static_cast<int64_t>(zigzag_decode(z));
  }
  // A count that will size an allocation: must not exceed what the remaining bytes could hold
  // at `min_bytes_each` per element.
  uint64_t count(size_t min_bytes_each, const char* what) {
    const uint64_t n = varint();
    if (min_bytes_each && n > remaining() / min_bytes_each)
      fail(std::string(what) + " count " + std::to_string(n) + " exceeds what the chunk holds");
    return n;
  }
  std::string_view str() {
    const uint64_t n = varint();
    need(n);
    std::string_view s(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return s;
  }
  const uint8_t* raw(size_t n) {
    need(n);
    const uint8_t* r = p_;
    p_ += n;
    return r;
  }
  [[noreturn]] void fail(const std::string& problem) const {
    InputLocation where;
    where.file = file_;
    where.byte_offset = offset();
    throw InputError(where, problem);
  }

 private:
  [[gnu::noinline]] uint64_t varint_long() {
    uint64_t v = 0;
    if (remaining() >= 10) {  // no bound check per byte: a varint is at most 10 bytes
      if (decode_varint(p_, v)) return v;
      fail("varint longer than 10 bytes");
    }
    for (int shift = 0; shift < 64; shift += 7) {
      need(1);
      const uint8_t b = *p_++;
      v |= static_cast<uint64_t>(b & 0x7F) << shift;
      if (!(b & 0x80)) return v;
    }
    fail("varint longer than 10 bytes");
  }
  void need(uint64_t n) const {
    if (n > remaining()) fail("truncated: needs " + std::to_string(n) + " bytes, " + std::to_string(remaining()) + " left");
  }
  template <class T>
  T get() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, p_, sizeof(T));
    p_ += sizeof(T);
    return v;
  }
  const uint8_t* p_;
  const uint8_t* begin_;
  const uint8_t* end_;
  std::string file_;
  int64_t base_;
};

}  // namespace parascope
