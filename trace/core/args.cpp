#include "trace/core/args.h"

#include "trace/core/hash.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <cstring>
#include <new>
#include <stdexcept>

namespace parascope {

ArgStore::Pool& ArgStore::Pool::operator=(Pool&& o) noexcept {
  if (this != &o) {
    std::free(data_);
    data_ = o.data_;
    size_ = o.size_;
    cap_ = o.cap_;
    o.data_ = nullptr;
    o.size_ = o.cap_ = 0;
  }
  return *this;
}

Arg* ArgStore::Pool::tail(size_t n) {
  if (size_ + n > cap_) {
    size_t cap = std::max<size_t>({64, cap_ + cap_ / 2, size_ + n});
    void* grown = std::realloc(data_, cap * sizeof(Arg));
    if (!grown) throw std::bad_alloc();
    data_ = static_cast<Arg*>(grown);
    cap_ = cap;
  }
  return data_ + size_;
}

void ArgStore::Pool::append(std::span<const Arg> args) {
  Arg* at = tail(args.size());
  if (!args.empty()) std::memcpy(static_cast<void*>(at), args.data(), args.size() * sizeof(Arg));
  size_ += args.size();
}

bool ArgValue::operator==(const ArgValue& o) const {
  if (type != o.type) return false;
  switch (type) {
    case Type::kInt: return i == o.i;
    case Type::kUInt: return u == o.u;
    case Type::kDouble: {
      const double x = d, y = o.d;  // bitwise: NaN payloads and -0.0 stay distinct
      return std::memcmp(&x, &y, sizeof x) == 0;
    }
    case Type::kBool: return b == o.b;
    case Type::kString:
    case Type::kJson: return s == o.s;
  }
  return false;
}

namespace {
uint64_t hash_args(std::span<const Arg> args) {
  uint64_t h = 0x452821e638d01377ull ^ args.size();
  for (const Arg& a : args) {
    uint64_t bits = 0;
    switch (a.value.type) {
      case ArgValue::Type::kBool: bits = a.value.b; break;
      case ArgValue::Type::kString:
      case ArgValue::Type::kJson: bits = a.value.s; break;
      default: bits = a.value.u; break;
    }
    h = hash_combine(h, (static_cast<uint64_t>(a.key) << 8) | static_cast<uint64_t>(a.value.type));
    h = hash_combine(h, bits);
  }
  return hash_mix(h);
}
}  // namespace

size_t ArgStore::slot_of(std::span<const Arg> args, uint64_t h) const {
  const size_t mask = slots_.size() - 1;
  const uint64_t tag = h >> 32;
  for (size_t i = static_cast<size_t>(h) & mask;; i = (i + 1) & mask) {
    const uint64_t slot = slots_[i];
    if (slot == 0) return i;
    if ((slot >> 32) != tag) continue;
    const auto existing = get(static_cast<uint32_t>(slot) - 1);
    if (existing.size() == args.size() && std::equal(existing.begin(), existing.end(), args.begin())) return i;
  }
}

void ArgStore::grow() {
  std::vector<uint64_t> old(std::max<size_t>(64, slots_.size() * 2), 0);
  old.swap(slots_);
  const size_t mask = slots_.size() - 1;
  for (uint64_t slot : old) {
    if (slot == 0) continue;
    const uint64_t h = (slot >> 32 << 32) | hash_lo_[static_cast<uint32_t>(slot) - 1];
    size_t i = static_cast<size_t>(h) & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = slot;
  }
}

uint32_t ArgStore::add(std::span<const Arg> args) {
  if (args.empty()) return ~0u;
  if (offsets_.empty()) offsets_.push_back(0);
  if (slots_.empty()) grow();
  const uint64_t h = hash_args(args);
  size_t i = slot_of(args, h);
  if (slots_[i] != 0) return static_cast<uint32_t>(slots_[i]) - 1;
  if (pool_.size() + args.size() >= std::numeric_limits<uint32_t>::max() || offsets_.size() >= std::numeric_limits<uint32_t>::max() - 1)
    throw std::length_error("argument store full");
  if (offsets_.size() * 2 > slots_.size()) {
    grow();
    i = slot_of(args, h);
  }
  const auto id = static_cast<uint32_t>(offsets_.size() - 1);
  pool_.append(args);
  offsets_.push_back(static_cast<uint32_t>(pool_.size()));
  hash_lo_.resize(id, 0);  // sets appended without the index have none
  hash_lo_.push_back(static_cast<uint32_t>(h));
  slots_[i] = (h >> 32 << 32) | (static_cast<uint64_t>(id) + 1);
  return id;
}

uint32_t ArgStore::append(std::span<const Arg> args) {
  if (args.empty()) return ~0u;
  if (offsets_.empty()) offsets_.push_back(0);
  if (pool_.size() + args.size() >= std::numeric_limits<uint32_t>::max() || offsets_.size() >= std::numeric_limits<uint32_t>::max() - 1)
    throw std::length_error("argument store full");
  const auto id = static_cast<uint32_t>(offsets_.size() - 1);
  pool_.append(args);
  offsets_.push_back(static_cast<uint32_t>(pool_.size()));
  return id;
}

uint32_t ArgStore::append_sets(std::span<const Arg> args, std::span<const uint32_t> ends) {
  Arg* at = append_begin(args.size());
  if (!args.empty()) std::memcpy(static_cast<void*>(at), args.data(), args.size() * sizeof(Arg));
  return append_commit(args.size(), ends);
}

Arg* ArgStore::append_begin(size_t max_args) {
  if (pool_.size() + max_args >= std::numeric_limits<uint32_t>::max()) throw std::length_error("argument store full");
  return pool_.tail(max_args);
}

uint32_t ArgStore::append_commit(size_t used, std::span<const uint32_t> ends) {
  if (offsets_.empty()) offsets_.push_back(0);
  if (pool_.size() + used >= std::numeric_limits<uint32_t>::max() ||
      offsets_.size() + ends.size() >= std::numeric_limits<uint32_t>::max())
    throw std::length_error("argument store full");
  if (pool_.size() + used > pool_.capacity()) throw std::logic_error("append_commit: more args than append_begin made room for");
  const auto first = static_cast<uint32_t>(offsets_.size() - 1);
  const auto base = static_cast<uint32_t>(pool_.size());
  pool_.commit(used);
  const size_t old = offsets_.size();
  offsets_.resize(old + ends.size());
  uint32_t* o = offsets_.data() + old;
  for (size_t i = 0; i < ends.size(); ++i) o[i] = base + std::min<uint32_t>(ends[i], static_cast<uint32_t>(used));
  return first;
}

std::span<const Arg> ArgStore::get(uint32_t set) const {
  if (set == ~0u || set + 1 >= offsets_.size()) return {};
  return std::span<const Arg>(pool_.data() + offsets_[set], offsets_[set + 1] - offsets_[set]);
}

size_t ArgStore::memory_bytes() const {
  return pool_.capacity() * sizeof(Arg) + offsets_.capacity() * sizeof(uint32_t) + slots_.capacity() * sizeof(uint64_t) +
         hash_lo_.capacity() * sizeof(uint32_t);
}

std::string format_arg(const StringTable& strings, const ArgValue& v) {
  char buf[64];
  switch (v.type) {
    case ArgValue::Type::kInt: std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v.i)); return buf;
    case ArgValue::Type::kUInt: std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(v.u)); return buf;
    case ArgValue::Type::kDouble: std::snprintf(buf, sizeof buf, "%.10g", v.d); return buf;
    case ArgValue::Type::kBool: return v.b ? "true" : "false";
    case ArgValue::Type::kString:
    case ArgValue::Type::kJson: return std::string(strings.view(v.s));
  }
  return {};
}

}  // namespace parascope
