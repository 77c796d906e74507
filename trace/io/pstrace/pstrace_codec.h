// Pieces of the .pstrace 1.0 payload encoding that the writer and the reader must agree on: the
// per-chunk local string table, slice references, enum range checks and the Topology layout.
// The payload grammar itself is documented once, in pstrace_format.h; this file only implements
// the parts both sides share, so a change to them is made in one place.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "trace/core/events.h"
#include "trace/core/string_table.h"
#include "trace/core/topology.h"
#include "trace/core/track.h"
#include "trace/io/common/byte_io.h"

namespace parascope::pstrace {

// Track ids at or above this are kTextIdBase + a StringId (string pids/tids, counter series);
// the file stores them as text so they survive re-interning.
inline constexpr int64_t kTextIdBase = int64_t{1} << 62;
// Kind byte of a slice: SliceKind in the low nibble, this bit when it has no detail record.
inline constexpr uint8_t kNoDetailBit = 0x10;
inline constexpr size_t kMaxPendingDefault = size_t{1} << 20;

// Writer side: assigns chunk-local indexes (1..n, 0 = "") to the StringIds a chunk uses.
// Generation-stamped, so starting a new chunk is O(1) and lookups are two array reads.
class LocalStrings {
 public:
  void begin(const StringTable& table);  // starts a new chunk drawing on `table`
  uint32_t local(StringId id);
  uint32_t local_text(std::string_view s);  // a string not in the table (rare: synthesized text)
  // The table as it goes at the front of the payload.
  void write(ByteWriter& w) const;

 private:
  const StringTable* table_ = nullptr;
  std::vector<uint32_t> slot_;  // StringId -> local index, valid when gen_ matches
  std::vector<uint32_t> gen_;
  uint32_t generation_ = 0;
  std::vector<std::string_view> order_;  // local index - 1 -> text
  std::unordered_map<std::string, uint32_t> text_;  // local_text strings (node keys do not move)
};

// Reader side: decodes the local table, interning each string into `table`.
void read_local_strings(ByteReader& r, StringTable& table, std::vector<StringId>& out);
[[noreturn, gnu::noinline, gnu::cold]] void bad_local_string(const ByteReader& r, uint64_t i, size_t table_size);
[[gnu::always_inline]] inline StringId local_string(ByteReader& r, const std::vector<StringId>& table) {
  const uint64_t i = r.varint();
  if (i >= table.size()) [[unlikely]]
    bad_local_string(r, i, table.size());
  return table[i];
}

inline void write_ref(ByteWriter& w, EventRef ref) {
  if (!ref.valid()) {
    w.varint(0);
    return;
  }
  w.varint(uint64_t{ref.track} + 1);
  w.varint(ref.index);
}
// File-level reference (file track, row); invalid when absent.
inline EventRef read_ref(ByteReader& r) {
  const uint64_t t = r.varint();
  if (t == 0) return EventRef{};
  const uint64_t row = r.varint();
  if (t > UINT32_MAX || row >= UINT32_MAX) r.fail("slice reference out of range");
  return EventRef{static_cast<uint32_t>(t - 1), static_cast<uint32_t>(row)};
}

// Reads a u8 holding an enum with `count` values; fails naming `what` when out of range.
template <class E>
E read_enum(ByteReader& r, uint8_t count, const char* what) {
  const uint8_t v = r.u8();
  if (v >= count) r.fail(std::string(what) + " value " + std::to_string(v) + " out of range");
  return static_cast<E>(v);
}

void write_topology(ByteWriter& w, const Topology& t);
Topology read_topology(ByteReader& r);

}  // namespace parascope::pstrace
