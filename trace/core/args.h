// Free-form key/value arguments of slices (everything a source file says that the typed detail
// records do not hold: Kineto's "queued", "est. achieved occupancy %", Chrome args...). Sets are
// deduplicated, so the many kernels that share their extra args share one set. An Arg is 16 bytes
// (values are 4-byte aligned: copy them out, do not bind references to them), and the pool grows
// by realloc, so adding sets never holds two copies of it (memory per event is a requirement).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <type_traits>
#include <span>
#include <string_view>
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
  bool operator==(const ArgValue& o) const;
};

struct Arg {
  StringId key = kEmptyString;
  ArgValue value;
  bool operator==(const Arg& o) const { return key == o.key && value == o.value; }
};
#pragma pack(pop)
static_assert(sizeof(ArgValue) == 12 && sizeof(Arg) == 16, "an Arg is 16 bytes");
static_assert(std::is_trivially_copyable_v<Arg>, "the pool grows by realloc");

class ArgStore {
 public:
  // Returns the id of an identical set if one exists. An empty set has no id: kNone (~0u).
  uint32_t add(std::span<const Arg> args);
  // Adds a set without looking for an identical one, for readers whose input is deduplicated
  // already (.pstrace): no hashing, no index entry. add() does not find sets added this way, so
  // a set may then be stored twice; ids and get() are unaffected.
  uint32_t append(std::span<const Arg> args);
  // Appends many sets in one go: set i is args[ends[i-1], ends[i]) (ends[-1] = 0). Returns the
  // id of the first; the others follow consecutively.
  uint32_t append_sets(std::span<const Arg> args, std::span<const uint32_t> ends);
  // The same, decoded in place: room for up to `max_args` args at the returned pointer (valid
  // until the next call that adds), then append_commit(used, ends) adds them as sets like
  // append_sets (ends relative to the returned pointer). Nothing else may be added in between;
  // an uncommitted write is simply forgotten.
  Arg* append_begin(size_t max_args);
  uint32_t append_commit(size_t used, std::span<const uint32_t> ends);
  std::span<const Arg> get(uint32_t set) const;
  size_t set_count() const { return offsets_.empty() ? 0 : offsets_.size() - 1; }
  size_t memory_bytes() const;

 private:
  size_t slot_of(std::span<const Arg> args, uint64_t h) const;  // the slot holding this set, or the empty one
  void grow();

  // A vector of Arg grown with realloc: big blocks move by mremap, without a second copy.
  class Pool {
   public:
    Pool() = default;
    Pool(Pool&& o) noexcept : data_(o.data_), size_(o.size_), cap_(o.cap_) { o.data_ = nullptr, o.size_ = o.cap_ = 0; }
    Pool& operator=(Pool&& o) noexcept;
    Pool(const Pool&) = delete;
    Pool& operator=(const Pool&) = delete;
    ~Pool() { std::free(data_); }
    void append(std::span<const Arg> args);
    Arg* tail(size_t n);  // room for n more at the end, not yet counted
    void commit(size_t n) { size_ += n; }
    const Arg* data() const { return data_; }
    size_t size() const { return size_; }
    size_t capacity() const { return cap_; }

   private:
    Arg* data_ = nullptr;
    size_t size_ = 0, cap_ = 0;
  };

  Pool pool_;
  std::vector<uint32_t> offsets_;  // set i is pool_[offsets_[i], offsets_[i+1])
  // Low half of each indexed set's hash (the slot holds the high half): cheap growth. Sized only
  // up to the last set add() indexed; appended sets need none.
  std::vector<uint32_t> hash_lo_;
  // Dedup index: open addressing, at most half full, (hash >> 32) << 32 | (set + 1); 0 = empty.
  std::vector<uint64_t> slots_;
};

// Text of a value for display ("3", "1.5", "true", the string itself).
std::string format_arg(const StringTable& strings, const ArgValue& v);

}  // namespace parascope
