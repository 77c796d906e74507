// Free-form key/value arguments of slices (everything a source file says that the typed detail
// records do not hold: Kineto's "queued", "est. achieved occupancy %", Chrome args...). Sets are
// deduplicated, so the many kernels that share their extra args share one set.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "trace/core/string_table.h"

namespace parascope {

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
  std::span<const Arg> get(uint32_t set) const;
  size_t set_count() const { return offsets_.empty() ? 0 : offsets_.size() - 1; }
  size_t memory_bytes() const;

 private:
  std::vector<Arg> pool_;
  std::vector<uint32_t> offsets_;  // set i is pool_[offsets_[i], offsets_[i+1])
  std::unordered_multimap<uint64_t, uint32_t> dedup_;
};

// Text of a value for display ("3", "1.5", "true", the string itself).
std::string format_arg(const StringTable& strings, const ArgValue& v);

}  // namespace parascope
