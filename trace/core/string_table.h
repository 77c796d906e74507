// Interned strings: every name in a trace is stored once and referred to by a 32-bit StringId.
// Id 0 is always the empty string. Views returned by view() stay valid for the table's lifetime
// (text lives in fixed blocks that never move), so they can be map keys.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace parascope {

using StringId = uint32_t;
inline constexpr StringId kEmptyString = 0;

class StringTable {
 public:
  StringTable();
  StringTable(StringTable&&) noexcept = default;
  StringTable& operator=(StringTable&&) noexcept = default;
  StringTable(const StringTable&) = delete;
  StringTable& operator=(const StringTable&) = delete;

  StringId intern(std::string_view s);
  // The id of s if it was interned, else kEmptyString for "" and UINT32_MAX otherwise.
  StringId find(std::string_view s) const;
  std::string_view view(StringId id) const { return strings_[id]; }
  size_t size() const { return strings_.size(); }
  // Bytes held for text (blocks) plus the index, for memory accounting.
  size_t memory_bytes() const;

 private:
  std::string_view store(std::string_view s);
  size_t slot_of(std::string_view s, uint64_t h) const;  // the slot holding s, or the empty slot for it
  void grow();

  std::vector<std::unique_ptr<char[]>> blocks_;
  size_t block_used_ = 0;
  size_t block_size_ = 0;
  std::vector<std::string_view> strings_;
  // Open addressing, linear probing, at most half full: (hash >> 32) << 32 | (id + 1); 0 = empty.
  std::vector<uint64_t> slots_;
};

}  // namespace parascope
