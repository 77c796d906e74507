#include "trace/core/args.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <cstring>
#include <stdexcept>

namespace parascope {

bool ArgValue::operator==(const ArgValue& o) const {
  if (type != o.type) return false;
  switch (type) {
    case Type::kInt: return i == o.i;
    case Type::kUInt: return u == o.u;
    case Type::kDouble: return std::memcmp(&d, &o.d, sizeof d) == 0;
    case Type::kBool: return b == o.b;
    case Type::kString:
    case Type::kJson: return s == o.s;
  }
  return false;
}

namespace {
uint64_t hash_args(std::span<const Arg> args) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  };
  for (const Arg& a : args) {
    mix(a.key);
    mix(static_cast<uint64_t>(a.value.type));
    uint64_t bits = 0;
    std::memcpy(&bits, &a.value.u, sizeof bits);
    if (a.value.type == ArgValue::Type::kBool) bits = a.value.b;
    if (a.value.type == ArgValue::Type::kString || a.value.type == ArgValue::Type::kJson) bits = a.value.s;
    mix(bits);
  }
  return h;
}
}  // namespace

uint32_t ArgStore::add(std::span<const Arg> args) {
  if (args.empty()) return ~0u;
  if (offsets_.empty()) offsets_.push_back(0);
  const uint64_t h = hash_args(args);
  auto [lo, hi] = dedup_.equal_range(h);
  for (auto it = lo; it != hi; ++it) {
    auto existing = get(it->second);
    if (existing.size() == args.size() && std::equal(existing.begin(), existing.end(), args.begin()))
      return it->second;
  }
  if (pool_.size() + args.size() >= std::numeric_limits<uint32_t>::max())
    throw std::length_error("argument store full");
  const auto id = static_cast<uint32_t>(offsets_.size() - 1);
  pool_.insert(pool_.end(), args.begin(), args.end());
  offsets_.push_back(static_cast<uint32_t>(pool_.size()));
  dedup_.emplace(h, id);
  return id;
}

uint32_t ArgStore::append(std::span<const Arg> args) {
  if (args.empty()) return ~0u;
  if (offsets_.empty()) offsets_.push_back(0);
  if (pool_.size() + args.size() >= std::numeric_limits<uint32_t>::max())
    throw std::length_error("argument store full");
  const auto id = static_cast<uint32_t>(offsets_.size() - 1);
  pool_.insert(pool_.end(), args.begin(), args.end());
  offsets_.push_back(static_cast<uint32_t>(pool_.size()));
  return id;
}

uint32_t ArgStore::append_sets(std::span<const Arg> args, std::span<const uint32_t> ends) {
  if (offsets_.empty()) offsets_.push_back(0);
  if (pool_.size() + args.size() >= std::numeric_limits<uint32_t>::max() ||
      offsets_.size() + ends.size() >= std::numeric_limits<uint32_t>::max())
    throw std::length_error("argument store full");
  const auto first = static_cast<uint32_t>(offsets_.size() - 1);
  const auto base = static_cast<uint32_t>(pool_.size());
  pool_.insert(pool_.end(), args.begin(), args.end());
  for (uint32_t e : ends) offsets_.push_back(base + std::min<uint32_t>(e, static_cast<uint32_t>(args.size())));
  return first;
}

std::span<const Arg> ArgStore::get(uint32_t set) const {
  if (set == ~0u || set + 1 >= offsets_.size()) return {};
  return std::span<const Arg>(pool_.data() + offsets_[set], offsets_[set + 1] - offsets_[set]);
}

size_t ArgStore::memory_bytes() const {
  return pool_.capacity() * sizeof(Arg) + offsets_.capacity() * sizeof(uint32_t) +
         dedup_.size() * (sizeof(uint64_t) + sizeof(uint32_t) + 2 * sizeof(void*));
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
