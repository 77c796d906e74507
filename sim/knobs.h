// The knob registry: every parameter a user can change in `simulate`, `whatif`, their `--sweep`
// and the GUI's what-if panel is declared once here (name, type, range, default, unit, help), so
// the three cannot drift apart. KnobSettings holds chosen values, parsed once from text at the edge
// (the command line, a form) and validated against the registry; inside they travel typed.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace parascope::sim {

enum class KnobType : uint8_t { kInt, kDouble, kBool, kEnum, kBytes };
std::string_view to_string(KnobType t);

using KnobValue = std::variant<int64_t, double, bool, std::string>;  // kBytes/kInt: int64_t; kEnum: string

struct KnobSpec {
  std::string name;        // "num_comm_sms"
  KnobType type = KnobType::kInt;
  double min = 0, max = 0; // numeric range, inclusive (kInt, kDouble, kBytes)
  std::vector<std::string> choices;  // kEnum
  KnobValue default_value;
  std::string unit;        // "SMs", "bytes", "GB/s"
  std::string group;       // "collective", "mechanism", "topology", "schedule"
  std::string help;
};

class KnobError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class KnobRegistry {
 public:
  void add(KnobSpec spec);  // throws std::logic_error on duplicate names or a default out of range
  const KnobSpec* find(std::string_view name) const;
  const std::vector<KnobSpec>& all() const { return specs_; }
  // Parses `text` for knob `name`; KnobError names the knob, the text and the allowed range.
  KnobValue parse(std::string_view name, std::string_view text) const;
  std::string format(const KnobSpec& spec, const KnobValue& v) const;
  std::string format(std::string_view name, const KnobValue& v) const;  // std::logic_error for unknown names

 private:
  std::vector<KnobSpec> specs_;
};

// The registry of every knob Parascope has. Built once, immutable afterwards.
const KnobRegistry& knob_registry();

// A knob's allowed values as people read them: "[1, 1024]", "[256, 1TiB]", "ring|tree|...", "true|false".
std::string range_text(const KnobSpec& spec);

class KnobSettings {
 public:
  KnobSettings() : registry_(&knob_registry()) {}
  explicit KnobSettings(const KnobRegistry& registry) : registry_(&registry) {}
  // Parses each (name, text) as set() does: for tests and literal settings.
  KnobSettings(std::initializer_list<std::pair<std::string_view, std::string_view>> assignments);
  // "k=v"; KnobError on unknown knobs (with a suggestion) or bad values.
  void set(std::string_view assignment);
  void set(std::string_view name, std::string_view value_text);
  // A parsed value (a sweep point, another setting's): KnobError when it is of the wrong type or out of range.
  void set_value(std::string_view name, const KnobValue& value);
  // Every value of `other` set here too (other's win).
  void merge(const KnobSettings& other);
  void erase(std::string_view name) { values_.erase(std::string(name)); }
  bool empty() const { return values_.empty(); }
  bool is_set(std::string_view name) const { return values_.count(std::string(name)) != 0; }
  int64_t get_int(std::string_view name) const;     // kInt, kBytes
  double get_double(std::string_view name) const;   // kDouble (kInt/kBytes widen)
  bool get_bool(std::string_view name) const;
  std::string get_enum(std::string_view name) const;
  const std::map<std::string, KnobValue>& values() const { return values_; }
  std::string describe() const;  // "chunk_bytes=1MiB num_comm_sms=16" (by name)
  // The set values in a compact binary form, for cache keys: equal settings, equal keys.
  void append_key(std::string& key) const;

 private:
  const KnobValue& value(std::string_view name, KnobType expect) const;
  const KnobRegistry* registry_;
  std::map<std::string, KnobValue> values_;
};

// "--sweep k=v1,v2,..." → (k, [v1, v2, ...]); each value validated.
std::pair<std::string, std::vector<KnobValue>> parse_sweep(const KnobRegistry& registry, std::string_view spec);

// "1GiB", "64KiB", "1.5MB", "4096" → bytes (binary units for Ki/Mi/Gi/Ti, decimal for K/M/G/T(B)).
bool parse_bytes(std::string_view text, int64_t& out);
std::string format_bytes(int64_t bytes);  // "1GiB", "64KiB", "1000" — exact

}  // namespace parascope::sim
