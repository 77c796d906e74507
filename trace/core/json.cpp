#include "trace/core/json.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "trace/core/json_escape.h"

namespace parascope {

JsonValue JsonValue::boolean(bool b) {
  JsonValue v;
  v.type_ = Type::kBool;
  v.bool_ = b;
  return v;
}

JsonValue JsonValue::number(std::string text) {
  JsonValue v;
  v.type_ = Type::kNumber;
  v.text_ = std::move(text);
  return v;
}

JsonValue JsonValue::number(double d) {
  char buf[32];
  if (!std::isfinite(d)) return JsonValue();  // JSON has no NaN/Inf: written as null
  auto res = std::to_chars(buf, buf + sizeof buf, d);
  return number(std::string(buf, res.ptr));
}

JsonValue JsonValue::number(int64_t i) { return number(std::to_string(i)); }

JsonValue JsonValue::string(std::string s) {
  JsonValue v;
  v.type_ = Type::kString;
  v.text_ = std::move(s);
  return v;
}

JsonValue JsonValue::array(Array a) {
  JsonValue v;
  v.type_ = Type::kArray;
  v.array_ = std::make_shared<Array>(std::move(a));
  return v;
}

JsonValue JsonValue::object(Object o) {
  JsonValue v;
  v.type_ = Type::kObject;
  v.object_ = std::make_shared<Object>(std::move(o));
  return v;
}

double JsonValue::as_double() const { return std::strtod(text_.c_str(), nullptr); }

std::optional<int64_t> JsonValue::as_int() const {
  if (type_ != Type::kNumber) return std::nullopt;
  int64_t v = 0;
  auto res = std::from_chars(text_.data(), text_.data() + text_.size(), v);
  if (res.ec == std::errc() && res.ptr == text_.data() + text_.size()) return v;
  // "1e3" or "1024.0": accept when exactly integral and in range
  const double d = as_double();
  if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15) return static_cast<int64_t>(d);
  return std::nullopt;
}

std::optional<uint64_t> JsonValue::as_uint() const {
  if (type_ != Type::kNumber) return std::nullopt;
  uint64_t v = 0;
  auto res = std::from_chars(text_.data(), text_.data() + text_.size(), v);
  if (res.ec == std::errc() && res.ptr == text_.data() + text_.size()) return v;
  auto i = as_int();
  if (i && *i >= 0) return static_cast<uint64_t>(*i);
  return std::nullopt;
}

const JsonValue* JsonValue::find(std::string_view key) const {
  if (type_ != Type::kObject) return nullptr;
  for (const auto& [k, v] : *object_)
    if (k == key) return &v;
  return nullptr;
}

JsonValue& JsonValue::set(std::string key, JsonValue v) {
  for (auto& [k, existing] : *object_)
    if (k == key) return existing = std::move(v);
  object_->emplace_back(std::move(key), std::move(v));
  return object_->back().second;
}

std::string_view to_string(JsonValue::Type t) {
  switch (t) {
    case JsonValue::Type::kNull: return "null";
    case JsonValue::Type::kBool: return "a boolean";
    case JsonValue::Type::kNumber: return "a number";
    case JsonValue::Type::kString: return "a string";
    case JsonValue::Type::kArray: return "an array";
    case JsonValue::Type::kObject: return "an object";
  }
  return "?";
}

namespace {

class Parser {
 public:
  Parser(std::string_view text, const std::string& file, size_t max_depth)
      : s_(text), file_(file), max_depth_(max_depth) {}

  JsonValue parse_document() {
    skip_ws();
    JsonValue v = parse_value(0);
    skip_ws();
    if (pos_ != s_.size()) fail("unexpected text after the JSON value");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < pos_ && i < s_.size(); ++i) {
      if (s_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    InputLocation where;
    where.file = file_;
    where.byte_offset = static_cast<int64_t>(pos_);
    where.field = "line " + std::to_string(line) + ":" + std::to_string(col);
    throw InputError(where, problem);
  }

  void skip_ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\r' || s_[pos_] == '\t')) ++pos_;
  }

  bool literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) == word) {
      pos_ += word.size();
      return true;
    }
    return false;
  }

  JsonValue parse_value(size_t depth) {
    if (depth > max_depth_) fail("nesting deeper than " + std::to_string(max_depth_) + " levels");
    if (pos_ >= s_.size()) fail("unexpected end of input, expected a value");
    const auto start = static_cast<int64_t>(pos_);
    JsonValue v;
    switch (s_[pos_]) {
      case '{': v = parse_object(depth); break;
      case '[': v = parse_array(depth); break;
      case '"': v = JsonValue::string(parse_string()); break;
      case 't':
        if (!literal("true")) fail("invalid literal, expected true");
        v = JsonValue::boolean(true);
        break;
      case 'f':
        if (!literal("false")) fail("invalid literal, expected false");
        v = JsonValue::boolean(false);
        break;
      case 'n':
        if (!literal("null")) fail("invalid literal, expected null");
        break;
      default: v = parse_number(); break;
    }
    v.set_byte_offset(start);
    return v;
  }

  JsonValue parse_object(size_t depth) {
    ++pos_;
    JsonValue::Object members;
    skip_ws();
    if (pos_ < s_.size() && s_[pos_] == '}') {
      ++pos_;
      return JsonValue::object(std::move(members));
    }
    while (true) {
      skip_ws();
      if (pos_ >= s_.size() || s_[pos_] != '"') fail("expected a member name in quotes");
      std::string key = parse_string();
      skip_ws();
      if (pos_ >= s_.size() || s_[pos_] != ':') fail("expected ':' after member name");
      ++pos_;
      skip_ws();
      members.emplace_back(std::move(key), parse_value(depth + 1));
      skip_ws();
      if (pos_ >= s_.size()) fail("unexpected end of input inside an object");
      if (s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (s_[pos_] == '}') {
        ++pos_;
        return JsonValue::object(std::move(members));
      }
      fail("expected ',' or '}' in an object");
    }
  }

  JsonValue parse_array(size_t depth) {
    ++pos_;
    JsonValue::Array items;
    skip_ws();
    if (pos_ < s_.size() && s_[pos_] == ']') {
      ++pos_;
      return JsonValue::array(std::move(items));
    }
    while (true) {
      skip_ws();
      items.push_back(parse_value(depth + 1));
      skip_ws();
      if (pos_ >= s_.size()) fail("unexpected end of input inside an array");
      if (s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (s_[pos_] == ']') {
        ++pos_;
        return JsonValue::array(std::move(items));
      }
      fail("expected ',' or ']' in an array");
    }
  }


  uint32_t hex4() {
    if (pos_ + 4 > s_.size()) fail("truncated \\u escape");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = s_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= static_cast<uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f') v |= static_cast<uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= static_cast<uint32_t>(c - 'A' + 10);
      else fail("invalid hex digit in \\u escape");
    }
    return v;
  }

  std::string parse_string() {
    ++pos_;  // opening quote
    std::string out;
    while (true) {
      if (pos_ >= s_.size()) fail("unterminated string");
      const char c = s_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) {
        --pos_;
        fail("control character inside a string");
      }
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (pos_ >= s_.size()) fail("unterminated escape");
      const char e = s_[pos_++];
      if (append_simple_escape(out, e)) continue;
      switch (e) {
        case 'u': {
          uint32_t cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00 && s_.substr(pos_, 2) == "\\u") {
            pos_ += 2;
            const uint32_t lo = hex4();
            if (lo >= 0xDC00 && lo < 0xE000) cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          append_utf8(out, cp);
          break;
        }
        default: --pos_; fail(std::string("invalid escape '\\") + e + "'");
      }
    }
  }

  JsonValue parse_number() {
    const size_t start = pos_;
    if (pos_ < s_.size() && s_[pos_] == '-') ++pos_;
    if (pos_ >= s_.size() || !(s_[pos_] >= '0' && s_[pos_] <= '9')) {
      if (s_.substr(start, 3) == "NaN" || s_.substr(pos_, 8) == "Infinity")
        fail("NaN/Infinity are not JSON numbers");
      fail("expected a value");
    }
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
    if (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      if (pos_ >= s_.size() || !(s_[pos_] >= '0' && s_[pos_] <= '9')) fail("expected digits after '.'");
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (pos_ >= s_.size() || !(s_[pos_] >= '0' && s_[pos_] <= '9')) fail("expected digits in exponent");
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
    }
    return JsonValue::number(std::string(s_.substr(start, pos_ - start)));
  }

  std::string_view s_;
  const std::string& file_;
  size_t max_depth_;
  size_t pos_ = 0;
};

void write_json(std::string& out, const JsonValue& v, int indent, int level) {
  auto newline = [&](int lvl) {
    if (indent <= 0) return;
    out.push_back('\n');
    out.append(static_cast<size_t>(indent * lvl), ' ');
  };
  switch (v.type()) {
    case JsonValue::Type::kNull: out += "null"; break;
    case JsonValue::Type::kBool: out += v.as_bool() ? "true" : "false"; break;
    case JsonValue::Type::kNumber: out += v.text(); break;
    case JsonValue::Type::kString: out += json_quote(v.text()); break;
    case JsonValue::Type::kArray: {
      out.push_back('[');
      bool first = true;
      // short arrays of scalars stay on one line
      bool scalar = v.items().size() <= 16;
      for (const auto& it : v.items()) scalar &= !(it.is_array() || it.is_object());
      for (const auto& it : v.items()) {
        if (!first) out.push_back(',');
        if (scalar) {
          if (!first && indent > 0) out.push_back(' ');
        } else {
          newline(level + 1);
        }
        write_json(out, it, indent, level + 1);
        first = false;
      }
      if (!scalar && !v.items().empty()) newline(level);
      out.push_back(']');
      break;
    }
    case JsonValue::Type::kObject: {
      out.push_back('{');
      bool first = true;
      for (const auto& [k, it] : v.members()) {
        if (!first) out.push_back(',');
        newline(level + 1);
        out += json_quote(k);
        out += indent > 0 ? ": " : ":";
        write_json(out, it, indent, level + 1);
        first = false;
      }
      if (!v.members().empty()) newline(level);
      out.push_back('}');
      break;
    }
  }
}

}  // namespace

JsonValue parse_json(std::string_view text, const std::string& file, size_t max_depth) {
  return Parser(text, file, max_depth).parse_document();
}

JsonValue load_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    InputLocation where;
    where.file = path;
    throw InputError(where, std::string("cannot open: ") + std::strerror(errno));
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_json(ss.str(), path);
}

std::string to_json(const JsonValue& v, int indent) {
  std::string out;
  write_json(out, v, indent, 0);
  return out;
}

std::string json_quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  append_json_quoted(out, s);
  return out;
}

// ---- JsonField ----

void JsonField::fail(const std::string& problem) const {
  InputLocation where;
  where.file = *file_;
  where.byte_offset = v_->byte_offset();
  where.field = path_;
  throw InputError(where, problem);
}

void JsonField::expect(JsonValue::Type t) const {
  if (v_->type() != t)
    fail("expected " + std::string(to_string(t)) + ", found " + std::string(to_string(v_->type())));
}

JsonField JsonField::at(std::string_view key) const {
  expect(JsonValue::Type::kObject);
  const JsonValue* m = v_->find(key);
  if (!m) fail("missing required member \"" + std::string(key) + "\"");
  return JsonField(*m, file_, path_ + "." + std::string(key));
}

std::optional<JsonField> JsonField::get(std::string_view key) const {
  expect(JsonValue::Type::kObject);
  const JsonValue* m = v_->find(key);
  if (!m || m->is_null()) return std::nullopt;
  return JsonField(*m, file_, path_ + "." + std::string(key));
}

JsonField JsonField::at(size_t i) const {
  expect(JsonValue::Type::kArray);
  if (i >= v_->items().size()) fail("index " + std::to_string(i) + " out of range");
  return JsonField(v_->items()[i], file_, path_ + "[" + std::to_string(i) + "]");
}

size_t JsonField::size() const {
  expect(JsonValue::Type::kArray);
  return v_->items().size();
}

std::vector<std::pair<std::string, JsonField>> JsonField::members() const {
  expect(JsonValue::Type::kObject);
  std::vector<std::pair<std::string, JsonField>> out;
  for (const auto& [k, v] : v_->members()) out.emplace_back(k, JsonField(v, file_, path_ + "." + k));
  return out;
}

int64_t JsonField::as_int() const {
  expect(JsonValue::Type::kNumber);
  auto v = v_->as_int();
  if (!v) fail("expected an integer, found " + v_->text());
  return *v;
}

uint64_t JsonField::as_uint() const {
  expect(JsonValue::Type::kNumber);
  auto v = v_->as_uint();
  if (!v) fail("expected a non-negative integer, found " + v_->text());
  return *v;
}

double JsonField::as_double() const {
  expect(JsonValue::Type::kNumber);
  const double d = v_->as_double();
  if (!std::isfinite(d)) fail("number out of range: " + v_->text());
  return d;
}

bool JsonField::as_bool() const {
  expect(JsonValue::Type::kBool);
  return v_->as_bool();
}

const std::string& JsonField::as_string() const {
  expect(JsonValue::Type::kString);
  return v_->text();
}

double JsonField::get_double(std::string_view key, double dflt) const {
  auto f = get(key);
  return f ? f->as_double() : dflt;
}
int64_t JsonField::get_int(std::string_view key, int64_t dflt) const {
  auto f = get(key);
  return f ? f->as_int() : dflt;
}
std::string JsonField::get_string(std::string_view key, std::string_view dflt) const {
  auto f = get(key);
  return f ? f->as_string() : std::string(dflt);
}
bool JsonField::get_bool(std::string_view key, bool dflt) const {
  auto f = get(key);
  return f ? f->as_bool() : dflt;
}

}  // namespace parascope
