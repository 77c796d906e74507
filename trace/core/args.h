// Free-form key/value arguments of slices (everything a source file says that the typed detail
// records do not hold: Kineto's "queued", "est. achieved occupancy %", Chrome args...). A set is
// stored as a shape (its keys and types, and the values all sets of that shape share, kept once)
// plus its own values, 8 bytes each: a Kineto CPU op whose args differ from its neighbours' only
// in "Ev Idx" costs 8 bytes of values + 8 of bookkeeping. get() gives a view that builds each Arg
// (16 bytes, 4-byte packed) on access: copy values out. Sets added with add() are deduplicated;
// the value pool grows by realloc, so adding sets never holds two copies of it.
#pragma once

#include <cstddef>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "trace/core/string_table.h"

namespace parascope {

#pragma pack(push, 4)
struct ArgValue {
  enum class Type : uint8_t { kInt, kUInt, kDouble, kBool, kString, kJson } type = Type::kInt;
  union {
    int64_t i;
    uint64_t u;
    double d;
    bool b;
    StringId s;  // kString: the text; kJson: raw JSON text of an array/object
  };
  ArgValue() : i(0) {}
  static ArgValue of_int(int64_t v) { ArgValue a; a.type = Type::kInt; a.i = v; return a; }
  static ArgValue of_uint(uint64_t v) { ArgValue a; a.type = Type::kUInt; a.u = v; return a; }
  static ArgValue of_double(double v) { ArgValue a; a.type = Type::kDouble; a.d = v; return a; }
  static ArgValue of_bool(bool v) { ArgValue a; a.type = Type::kBool; a.b = v; return a; }
  static ArgValue of_string(StringId v) { ArgValue a; a.type = Type::kString; a.s = v; return a; }
  static ArgValue of_json(StringId v) { ArgValue a; a.type = Type::kJson; a.s = v; return a; }
  // The value as the 8 bytes the store keeps (int/uint as is, double's bits, bool 0/1, string id),
  // and back: from_bits(type, bits()) == *this.
  uint64_t bits() const;
  static ArgValue from_bits(Type type, uint64_t bits);
  bool operator==(const ArgValue& o) const;
};

struct Arg {
  StringId key = kEmptyString;
  ArgValue value;
  bool operator==(const Arg& o) const { return key == o.key && value == o.value; }
};
#pragma pack(pop)
static_assert(sizeof(ArgValue) == 12 && sizeof(Arg) == 16, "an Arg is 16 bytes");

// One field of a shape: its key and type, and whether all sets of the shape share one value
// (`shared`, the value's bits() in `bits`) or each set stores its own.
struct ArgField {
  StringId key = kEmptyString;
  ArgValue::Type type = ArgValue::Type::kInt;
  bool shared = false;
  uint64_t bits = 0;
};

class ArgStore;

// The args of one set, built on access. Valid until the store is changed.
class ArgSetView {
 public:
  struct Slot {  // a stored shape field
    StringId key;
    ArgValue::Type type;
    uint8_t shared;
    uint16_t pad;
    uint32_t at;  // shared: index into the store's shared values; else into the set's values
  };
  // Holds what it reads (not a pointer to the view), so it stays valid while the store does.
  class iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Arg;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Arg;
    iterator() = default;
    iterator(const Slot* slot, const uint64_t* values, const uint64_t* shared)
        : slot_(slot), values_(values), shared_(shared) {}
    Arg operator*() const { return make(*slot_, values_, shared_); }
    iterator& operator++() { ++slot_; return *this; }
    iterator operator++(int) { iterator t = *this; ++slot_; return t; }
    friend bool operator==(const iterator& a, const iterator& b) { return a.slot_ == b.slot_; }
   private:
    const Slot* slot_ = nullptr;
    const uint64_t* values_ = nullptr;
    const uint64_t* shared_ = nullptr;
  };

  ArgSetView() = default;
  // (Parameter names avoid Qt's keyword macros: `slots`, `signals` and `emit` expand to nothing
  // in the GUI's translation units.)
  ArgSetView(const Slot* fields, uint32_t n, const uint64_t* values, const uint64_t* shared)
      : slots_(fields), values_(values), shared_(shared), n_(n) {}
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  Arg operator[](size_t i) const { return make(slots_[i], values_, shared_); }
  // Field i without building an Arg: key, type and the value's bits() (for writers).
  StringId key(size_t i) const { return slots_[i].key; }
  ArgValue::Type type(size_t i) const { return slots_[i].type; }
  uint64_t bits(size_t i) const { return slots_[i].shared ? shared_[slots_[i].at] : values_[slots_[i].at]; }
  iterator begin() const { return iterator(slots_, values_, shared_); }
  iterator end() const { return iterator(slots_ + n_, values_, shared_); }

 private:
  static Arg make(const Slot& f, const uint64_t* values, const uint64_t* shared) {
    Arg a;
    a.key = f.key;
    a.value = ArgValue::from_bits(f.type, f.shared ? shared[f.at] : values[f.at]);
    return a;
  }
  const Slot* slots_ = nullptr;
  const uint64_t* values_ = nullptr;
  const uint64_t* shared_ = nullptr;
  uint32_t n_ = 0;
};

class ArgStore {
 public:
  // Returns the id of an identical set if one exists. An empty set has no id: kNone (~0u).
  uint32_t add(std::span<const Arg> args);
  // Adds a set without looking for an identical one, for writers whose input is deduplicated
  // already: no hashing, no index entry. add() does not find sets added this way, so a set may
  // then be stored twice; ids and get() are unaffected.
  uint32_t append(std::span<const Arg> args);
  // Readers of columnar input (.pstrace): a shape (interned: the same fields give the same id),
  // room for up to `max_values` values (valid until the next call that adds), then
  // append_commit(shapes) adds one set per entry, each taking its shape's unshared fields'
  // values in field order from the returned pointer on. Nothing else may be added in between;
  // an uncommitted write is simply forgotten. Returns the id of the first set; the others follow.
  uint32_t shape(std::span<const ArgField> fields);
  // Room for `sets` more sets' bookkeeping (a hint: growing by copies costs a reader more than
  // reserving what it may not use, which is never touched).
  void reserve_sets(size_t sets);
  uint32_t unshared_count(uint32_t shape) const { return shapes_[shape].unshared; }
  uint64_t* append_begin(size_t max_values);
  uint32_t append_commit(std::span<const uint32_t> set_shapes);

  ArgSetView get(uint32_t set) const {
    if (set == ~0u || set >= set_shape_.size()) return {};
    const Shape& sh = shapes_[set_shape_[set]];
    return ArgSetView(fields_.data() + sh.first, sh.count, values_.data() + offsets_[set], shared_.data());
  }
  // The shape of a set (kNone32 for none): sets of one shape have the same keys and types in
  // the same order, so writers can group them without looking at every key.
  uint32_t shape_of_set(uint32_t set) const { return set < set_shape_.size() ? set_shape_[set] : ~0u; }
  size_t set_count() const { return set_shape_.size(); }
  size_t shape_count() const { return shapes_.size(); }
  size_t value_count() const { return values_.size(); }  // stored per-set values (8 bytes each)
  // Memory reserved (reserve_sets, append_begin's growth) that nothing has written yet, as
  // (address, bytes) for the values, the set offsets and the set shapes: a reader may map it
  // ahead of its writes (trace/io/pstrace/page_prefaulter.h). Valid until the next call that adds.
  struct Unwritten {
    const void* at;
    size_t bytes;
  };
  std::array<Unwritten, 3> unwritten() const;
  size_t memory_bytes() const;

 private:
  struct Shape {
    uint32_t first = 0;     // into fields_
    uint32_t count = 0;
    uint32_t unshared = 0;  // values each set of this shape stores
  };
  size_t slot_of(std::span<const Arg> args, uint64_t h) const;  // the slot holding this set, or the empty one
  void grow();
  uint32_t shape_of(std::span<const Arg> args);  // all fields unshared
  uint32_t push_set(uint32_t shape, std::span<const Arg> args);

  // A vector of trivially copyable values grown with realloc: big blocks move by mremap, without
  // a second copy.
  class Pool {
   public:
    Pool() = default;
    Pool(Pool&& o) noexcept : data_(o.data_), size_(o.size_), cap_(o.cap_) { o.data_ = nullptr, o.size_ = o.cap_ = 0; }
    Pool& operator=(Pool&& o) noexcept;
    Pool(const Pool&) = delete;
    Pool& operator=(const Pool&) = delete;
    ~Pool() { std::free(data_); }
    uint64_t* tail(size_t n);  // room for n more at the end, not yet counted
    void commit(size_t n) { size_ += n; }
    const uint64_t* data() const { return data_; }
    size_t size() const { return size_; }
    size_t capacity() const { return cap_; }

   private:
    uint64_t* data_ = nullptr;
    size_t size_ = 0, cap_ = 0;
  };

  Pool values_;
  size_t room_end_ = 0;  // values_ size up to which append_begin made room
  std::vector<uint32_t> offsets_{0};  // set i's values start at values_[offsets_[i]]; one past the last set
  std::vector<uint32_t> set_shape_;   // shape of set i
  std::vector<Shape> shapes_;
  std::vector<ArgSetView::Slot> fields_;
  std::vector<uint64_t> shared_;      // values shared by all sets of a shape
  std::vector<uint64_t> shape_hash_;  // per shape, for the shape index
  std::vector<uint32_t> shape_slots_;  // open addressing over shapes, at most half full; shape+1, 0 = empty
  uint32_t recent_shapes_[8] = {~0u, ~0u, ~0u, ~0u, ~0u, ~0u, ~0u, ~0u};  // add/append: unshared shapes used last
  uint32_t recent_next_ = 0;
  // Low half of each indexed set's hash (the slot holds the high half): cheap growth. Sized only
  // up to the last set add() indexed; appended sets need none.
  std::vector<uint32_t> hash_lo_;
  // Dedup index: open addressing, at most half full, (hash >> 32) << 32 | (set + 1); 0 = empty.
  std::vector<uint64_t> slots_;
};
static_assert(sizeof(ArgSetView::Slot) == 12);

// Text of a value for display ("3", "1.5", "true", the string itself).
std::string format_arg(const StringTable& strings, const ArgValue& v);

}  // namespace parascope
