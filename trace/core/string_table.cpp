#include "trace/core/string_table.h"

#include "trace/core/hash.h"

#include <cstring>
#include <limits>
#include <stdexcept>

namespace parascope {

namespace {
constexpr size_t kBlockBytes = 64 * 1024;
}

StringTable::StringTable() : slots_(64, 0) {
  strings_.emplace_back();
  slots_[slot_of({}, hash_string({}))] = (hash_string({}) >> 32 << 32) | 1;
}

size_t StringTable::slot_of(std::string_view s, uint64_t h) const {
  const size_t mask = slots_.size() - 1;
  const uint64_t tag = h >> 32;
  for (size_t i = static_cast<size_t>(h) & mask;; i = (i + 1) & mask) {
    const uint64_t slot = slots_[i];
    if (slot == 0) return i;
    if ((slot >> 32) == tag && strings_[static_cast<uint32_t>(slot) - 1] == s) return i;
  }
}

void StringTable::grow() {
  std::vector<uint64_t> old(slots_.size() * 2, 0);
  old.swap(slots_);
  const size_t mask = slots_.size() - 1;
  for (uint64_t slot : old) {
    if (slot == 0) continue;
    const uint64_t h = hash_string(strings_[static_cast<uint32_t>(slot) - 1]);
    size_t i = static_cast<size_t>(h) & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = slot;
  }
}

std::string_view StringTable::store(std::string_view s) {
  if (s.size() > kBlockBytes / 4) {  // large strings get a block of their own
    blocks_.push_back(std::make_unique<char[]>(s.size()));
    std::memcpy(blocks_.back().get(), s.data(), s.size());
    std::string_view stored(blocks_.back().get(), s.size());
    // keep filling the previous small-string block: move the big one below it
    if (blocks_.size() >= 2) std::swap(blocks_[blocks_.size() - 1], blocks_[blocks_.size() - 2]);
    return stored;
  }
  if (blocks_.empty() || block_used_ + s.size() > block_size_) {
    blocks_.push_back(std::make_unique<char[]>(kBlockBytes));
    block_used_ = 0;
    block_size_ = kBlockBytes;
  }
  char* dst = blocks_.back().get() + block_used_;
  std::memcpy(dst, s.data(), s.size());
  block_used_ += s.size();
  return std::string_view(dst, s.size());
}

StringId StringTable::intern(std::string_view s) {
  const uint64_t h = hash_string(s);
  size_t i = slot_of(s, h);
  if (slots_[i] != 0) return static_cast<StringId>(static_cast<uint32_t>(slots_[i]) - 1);
  if (strings_.size() >= std::numeric_limits<StringId>::max() - 1)
    throw std::length_error("string table full (4 G distinct strings)");
  if ((strings_.size() + 1) * 2 > slots_.size()) {
    grow();
    i = slot_of(s, h);
  }
  const auto id = static_cast<StringId>(strings_.size());
  strings_.push_back(store(s));
  slots_[i] = (h >> 32 << 32) | (static_cast<uint64_t>(id) + 1);
  return id;
}

StringId StringTable::find(std::string_view s) const {
  const size_t i = slot_of(s, hash_string(s));
  return slots_[i] == 0 ? std::numeric_limits<StringId>::max() : static_cast<StringId>(static_cast<uint32_t>(slots_[i]) - 1);
}

size_t StringTable::memory_bytes() const {
  size_t text = 0;
  for (auto v : strings_) text += v.size();
  return text + strings_.capacity() * sizeof(std::string_view) + slots_.capacity() * sizeof(uint64_t);
}

}  // namespace parascope
