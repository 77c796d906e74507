#include "trace/core/string_table.h"

#include <cstring>
#include <limits>
#include <stdexcept>

namespace parascope {

namespace {
constexpr size_t kBlockBytes = 64 * 1024;
}

StringTable::StringTable() {
  strings_.emplace_back();
  index_.emplace(std::string_view(), kEmptyString);
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
  if (auto it = index_.find(s); it != index_.end()) return it->second;
  if (strings_.size() >= std::numeric_limits<StringId>::max() - 1)
    throw std::length_error("string table full (4 G distinct strings)");
  const std::string_view stored = store(s);
  const auto id = static_cast<StringId>(strings_.size());
  strings_.push_back(stored);
  index_.emplace(stored, id);
  return id;
}

StringId StringTable::find(std::string_view s) const {
  auto it = index_.find(s);
  return it == index_.end() ? std::numeric_limits<StringId>::max() : it->second;
}

size_t StringTable::memory_bytes() const {
  size_t text = 0;
  for (auto v : strings_) text += v.size();
  return text + strings_.capacity() * sizeof(std::string_view) +
         index_.size() * (sizeof(std::string_view) + sizeof(StringId) + 2 * sizeof(void*));
}

}  // namespace parascope
