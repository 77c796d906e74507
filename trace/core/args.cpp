#include "trace/core/args.h"

#include "trace/core/hash.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <limits>
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

uint64_t* ArgStore::Pool::tail(size_t n) {
  if (size_ + n > cap_) {
    size_t cap = std::max<size_t>({64, cap_ + cap_ / 2, size_ + n});
    void* grown = std::realloc(data_, cap * sizeof(uint64_t));
    if (!grown) throw std::bad_alloc();
    data_ = static_cast<uint64_t*>(grown);
    cap_ = cap;
  }
  return data_ + size_;
}

uint64_t ArgValue::bits() const {
  switch (type) {
    case Type::kInt: return static_cast<uint64_t>(i);
    case Type::kUInt: return u;
    case Type::kDouble: {
      const double x = d;  // a copy: the member is 4-byte aligned (pack(4)), bit_cast takes a reference
      return std::bit_cast<uint64_t>(x);
    }
    case Type::kBool: return b ? 1 : 0;
    case Type::kString:
    case Type::kJson: return s;
  }
  return 0;
}

ArgValue ArgValue::from_bits(Type type, uint64_t bits) {
  switch (type) {
    case Type::kInt: return of_int(static_cast<int64_t>(bits));
    case Type::kUInt: return of_uint(bits);
    case Type::kDouble: return of_double(std::bit_cast<double>(bits));
    case Type::kBool: return of_bool(bits != 0);
    case Type::kString: return of_string(static_cast<StringId>(bits));
    case Type::kJson: return of_json(static_cast<StringId>(bits));
  }
  return {};
}

bool ArgValue::operator==(const ArgValue& o) const {
  // bitwise for doubles: NaN payloads and -0.0 stay distinct
  return type == o.type && bits() == o.bits();
}

namespace {
uint64_t hash_args(std::span<const Arg> args) {
  uint64_t h = 0x452821e638d01377ull ^ args.size();
  for (const Arg& a : args) {
    h = hash_combine(h, (static_cast<uint64_t>(a.key) << 8) | static_cast<uint64_t>(a.value.type));
    h = hash_combine(h, a.value.bits());
  }
  return hash_mix(h);
}

uint64_t hash_fields(std::span<const ArgField> fields) {
  uint64_t h = 0x13198a2e03707344ull ^ fields.size();
  for (const ArgField& f : fields) {
    h = hash_combine(h, (static_cast<uint64_t>(f.key) << 9) | (static_cast<uint64_t>(f.type) << 1) | (f.shared ? 1 : 0));
    if (f.shared) h = hash_combine(h, f.bits);
  }
  return hash_mix(h);
}

constexpr uint64_t kMaxIndex = std::numeric_limits<uint32_t>::max() - 1;
}  // namespace

uint32_t ArgStore::shape(std::span<const ArgField> fields) {
  const uint64_t h = hash_fields(fields);
  if (shapes_.size() * 2 >= shape_slots_.size()) {
    std::vector<uint32_t> grown(std::max<size_t>(64, shape_slots_.size() * 2), 0);
    const size_t mask = grown.size() - 1;
    for (uint32_t s = 0; s < shapes_.size(); ++s) {
      size_t i = static_cast<size_t>(shape_hash_[s]) & mask;
      while (grown[i] != 0) i = (i + 1) & mask;
      grown[i] = s + 1;
    }
    shape_slots_.swap(grown);
  }
  const size_t mask = shape_slots_.size() - 1;
  size_t i = static_cast<size_t>(h) & mask;
  for (;; i = (i + 1) & mask) {
    const uint32_t slot = shape_slots_[i];
    if (slot == 0) break;
    if (shape_hash_[slot - 1] != h) continue;
    const Shape& sh = shapes_[slot - 1];
    if (sh.count != fields.size()) continue;
    bool same = true;
    for (size_t f = 0; f < fields.size() && same; ++f) {
      const ArgSetView::Slot& s = fields_[sh.first + f];
      same = s.key == fields[f].key && s.type == fields[f].type && (s.shared != 0) == fields[f].shared &&
             (!s.shared || shared_[s.at] == fields[f].bits);
    }
    if (same) return slot - 1;
  }
  if (shapes_.size() >= kMaxIndex || fields_.size() + fields.size() >= kMaxIndex || shared_.size() + fields.size() >= kMaxIndex)
    throw std::length_error("argument store full");
  Shape sh;
  sh.first = static_cast<uint32_t>(fields_.size());
  sh.count = static_cast<uint32_t>(fields.size());
  for (const ArgField& f : fields) {
    ArgSetView::Slot s{};
    s.key = f.key;
    s.type = f.type;
    s.shared = f.shared ? 1 : 0;
    if (f.shared) {
      s.at = static_cast<uint32_t>(shared_.size());
      shared_.push_back(f.bits);
    } else {
      s.at = sh.unshared++;
    }
    fields_.push_back(s);
  }
  const auto id = static_cast<uint32_t>(shapes_.size());
  shapes_.push_back(sh);
  shape_hash_.push_back(h);
  shape_slots_[i] = id + 1;
  return id;
}

uint32_t ArgStore::shape_of(std::span<const Arg> args) {
  // Sets added one by one mostly cycle through a few shapes: those used last are compared first.
  for (const uint32_t id : recent_shapes_) {
    if (id >= shapes_.size()) break;  // not yet used (~0u), or a moved-from store's
    const Shape& sh = shapes_[id];
    if (sh.count != args.size() || sh.unshared != sh.count) continue;
    const ArgSetView::Slot* f = fields_.data() + sh.first;
    bool same = true;
    for (size_t i = 0; i < args.size() && same; ++i) same = f[i].key == args[i].key && f[i].type == args[i].value.type;
    if (same) return id;
  }
  ArgField fields[16];
  std::vector<ArgField> many;
  std::span<ArgField> f(fields, args.size() <= 16 ? args.size() : 0);
  if (args.size() > 16) {
    many.resize(args.size());
    f = many;
  }
  for (size_t i = 0; i < args.size(); ++i) {
    f[i].key = args[i].key;
    f[i].type = args[i].value.type;
  }
  const uint32_t id = shape(f);
  recent_shapes_[recent_next_] = id;
  recent_next_ = (recent_next_ + 1) % 8;
  return id;
}

uint32_t ArgStore::push_set(uint32_t shape, std::span<const Arg> args) {
  if (values_.size() + args.size() > kMaxIndex || set_shape_.size() >= kMaxIndex) throw std::length_error("argument store full");
  uint64_t* out = values_.tail(args.size());
  for (size_t i = 0; i < args.size(); ++i) out[i] = args[i].value.bits();
  values_.commit(args.size());
  const auto id = static_cast<uint32_t>(set_shape_.size());
  set_shape_.push_back(shape);
  offsets_.push_back(static_cast<uint32_t>(values_.size()));
  return id;
}

size_t ArgStore::slot_of(std::span<const Arg> args, uint64_t h) const {
  const size_t mask = slots_.size() - 1;
  const uint64_t tag = h >> 32;
  for (size_t i = static_cast<size_t>(h) & mask;; i = (i + 1) & mask) {
    const uint64_t slot = slots_[i];
    if (slot == 0) return i;
    if ((slot >> 32) != tag) continue;
    const ArgSetView existing = get(static_cast<uint32_t>(slot) - 1);
    if (existing.size() != args.size()) continue;
    bool same = true;
    for (size_t k = 0; k < args.size() && same; ++k) same = existing[k] == args[k];
    if (same) return i;
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
  if (slots_.empty()) grow();
  const uint64_t h = hash_args(args);
  size_t i = slot_of(args, h);
  if (slots_[i] != 0) return static_cast<uint32_t>(slots_[i]) - 1;
  if (set_shape_.size() * 2 > slots_.size()) {
    grow();
    i = slot_of(args, h);
  }
  const uint32_t id = push_set(shape_of(args), args);
  hash_lo_.resize(id, 0);  // sets appended without the index have none
  hash_lo_.push_back(static_cast<uint32_t>(h));
  slots_[i] = (h >> 32 << 32) | (static_cast<uint64_t>(id) + 1);
  return id;
}

uint32_t ArgStore::append(std::span<const Arg> args) {
  if (args.empty()) return ~0u;
  return push_set(shape_of(args), args);
}

void ArgStore::reserve_sets(size_t sets) {
  const size_t want = std::min<size_t>(set_shape_.size() + sets, kMaxIndex);
  set_shape_.reserve(want);
  offsets_.reserve(want + 1);
}

uint64_t* ArgStore::append_begin(size_t max_values) {
  if (values_.size() + max_values > kMaxIndex) throw std::length_error("argument store full");
  uint64_t* at = values_.tail(max_values);
  room_end_ = values_.size() + max_values;
  return at;
}

uint32_t ArgStore::append_commit(std::span<const uint32_t> set_shapes) {
  if (set_shape_.size() + set_shapes.size() > kMaxIndex) throw std::length_error("argument store full");
  const auto first = static_cast<uint32_t>(set_shape_.size());
  const size_t old = offsets_.size();
  offsets_.resize(old + set_shapes.size());
  uint32_t* o = offsets_.data() + old;
  uint64_t at = values_.size();
  for (size_t i = 0; i < set_shapes.size(); ++i) {
    if (set_shapes[i] >= shapes_.size()) throw std::logic_error("append_commit: unknown shape");
    at += shapes_[set_shapes[i]].unshared;
    o[i] = static_cast<uint32_t>(at);
  }
  if (at > values_.size() && (at > room_end_ || at > values_.capacity())) {
    offsets_.resize(old);
    throw std::logic_error("append_commit: more values than append_begin made room for");
  }
  values_.commit(at - values_.size());
  room_end_ = 0;
  set_shape_.insert(set_shape_.end(), set_shapes.begin(), set_shapes.end());
  return first;
}

std::array<ArgStore::Unwritten, 3> ArgStore::unwritten() const {
  const size_t v = std::max(values_.size(), room_end_);
  return {{{values_.data() + v, (values_.capacity() - std::min(v, values_.capacity())) * sizeof(uint64_t)},
           {offsets_.data() + offsets_.size(), (offsets_.capacity() - offsets_.size()) * sizeof(uint32_t)},
           {set_shape_.data() + set_shape_.size(), (set_shape_.capacity() - set_shape_.size()) * sizeof(uint32_t)}}};
}

size_t ArgStore::memory_bytes() const {
  return values_.capacity() * sizeof(uint64_t) + offsets_.capacity() * sizeof(uint32_t) +
         set_shape_.capacity() * sizeof(uint32_t) + shapes_.capacity() * sizeof(Shape) +
         fields_.capacity() * sizeof(ArgSetView::Slot) + shared_.capacity() * sizeof(uint64_t) +
         shape_hash_.capacity() * sizeof(uint64_t) + shape_slots_.capacity() * sizeof(uint32_t) +
         slots_.capacity() * sizeof(uint64_t) + hash_lo_.capacity() * sizeof(uint32_t);
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
