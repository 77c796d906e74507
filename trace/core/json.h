// A small JSON document model and strict parser for configuration files (topologies, workloads,
// calibration data, manifests) — small inputs read whole. Trace files use the streaming readers
// in trace/io instead. JsonField walks a document while remembering the JSON path, so every error
// names the file and the offending field ("$.nodes[3].gpu.sm_count: expected an integer").
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "trace/core/error.h"

namespace parascope {

class JsonValue {
 public:
  enum class Type : uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };
  using Object = std::vector<std::pair<std::string, JsonValue>>;  // keeps file order
  using Array = std::vector<JsonValue>;

  JsonValue() = default;
  static JsonValue null() { return {}; }
  static JsonValue boolean(bool b);
  static JsonValue number(std::string text);  // exact text kept for integers beyond 2^53
  static JsonValue number(double v);
  static JsonValue number(int64_t v);
  static JsonValue string(std::string s);
  static JsonValue array(Array a = {});
  static JsonValue object(Object o = {});

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::kNull; }
  bool is_number() const { return type_ == Type::kNumber; }
  bool is_string() const { return type_ == Type::kString; }
  bool is_object() const { return type_ == Type::kObject; }
  bool is_array() const { return type_ == Type::kArray; }
  bool as_bool() const { return bool_; }
  double as_double() const;
  // Exact integer value if the number is integral and fits; nullopt otherwise.
  std::optional<int64_t> as_int() const;
  std::optional<uint64_t> as_uint() const;
  const std::string& text() const { return text_; }  // string value, or number text
  const Array& items() const { return *array_; }
  Array& items() { return *array_; }
  const Object& members() const { return *object_; }
  Object& members() { return *object_; }
  const JsonValue* find(std::string_view key) const;
  JsonValue& set(std::string key, JsonValue v);  // objects: replace or append
  void push(JsonValue v) { array_->push_back(std::move(v)); }
  int64_t byte_offset() const { return offset_; }  // where it started in the parsed text
  void set_byte_offset(int64_t o) { offset_ = o; }

 private:
  Type type_ = Type::kNull;
  bool bool_ = false;
  std::string text_;
  std::shared_ptr<Array> array_;
  std::shared_ptr<Object> object_;
  int64_t offset_ = -1;
};

std::string_view to_string(JsonValue::Type t);

// Parses a whole JSON text; throws InputError naming `file`, the byte offset and line:column.
JsonValue parse_json(std::string_view text, const std::string& file, size_t max_depth = 256);
// Reads and parses a file (InputError when it cannot be read).
JsonValue load_json_file(const std::string& path);

// Compact or indented (indent > 0) JSON text.
std::string to_json(const JsonValue& v, int indent = 0);
// JSON string literal with escapes, quotes included.
std::string json_quote(std::string_view s);

// Typed, path-tracking access to a parsed document.
class JsonField {
 public:
  JsonField(const JsonValue& v, std::string file, std::string path = "$")
      : v_(&v), file_(std::make_shared<std::string>(std::move(file))), path_(std::move(path)) {}

  const std::string& path() const { return path_; }
  const JsonValue& value() const { return *v_; }
  JsonField at(std::string_view key) const;                 // required member
  std::optional<JsonField> get(std::string_view key) const;  // optional member (absent or null)
  JsonField at(size_t i) const;
  size_t size() const;                                       // array length (requires an array)
  std::vector<std::pair<std::string, JsonField>> members() const;  // requires an object

  int64_t as_int() const;
  uint64_t as_uint() const;
  double as_double() const;
  bool as_bool() const;
  const std::string& as_string() const;
  void expect(JsonValue::Type t) const;
  // Convenience for optional members with defaults.
  double get_double(std::string_view key, double dflt) const;
  int64_t get_int(std::string_view key, int64_t dflt) const;
  std::string get_string(std::string_view key, std::string_view dflt) const;
  bool get_bool(std::string_view key, bool dflt) const;

  [[noreturn]] void fail(const std::string& problem) const;

 private:
  JsonField(const JsonValue& v, std::shared_ptr<std::string> file, std::string path)
      : v_(&v), file_(std::move(file)), path_(std::move(path)) {}
  const JsonValue* v_;
  std::shared_ptr<std::string> file_;
  std::string path_;
};

}  // namespace parascope
