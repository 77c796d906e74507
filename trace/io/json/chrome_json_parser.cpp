#include "trace/io/json/chrome_json_parser.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <deque>
#include <memory>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "trace/core/error.h"
#include "trace/core/json_escape.h"

namespace parascope {

__extension__ typedef __int128 Int128;  // exact decimal arithmetic for timestamps

// token helpers

bool JsonToken::to_int(int64_t& out) const {
  if (plain_integer && text.size() <= 18) {  // the common case: no overflow possible below 10^18
    const char* s = text.data();
    const char* e = s + text.size();
    const bool neg = *s == '-';
    s += neg;
    int64_t v = 0;
    for (; s < e; ++s) v = v * 10 + (*s - '0');
    out = neg ? -v : v;
    return true;
  }
  if (type != Type::kNumber && type != Type::kString) return false;
  std::string_view t = text;
  if (type == Type::kString && t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    uint64_t u = 0;
    auto r = std::from_chars(t.data() + 2, t.data() + t.size(), u, 16);
    if (r.ec != std::errc() || r.ptr != t.data() + t.size()) return false;
    out = static_cast<int64_t>(u);
    return true;
  }
  auto r = std::from_chars(t.data(), t.data() + t.size(), out);
  if (r.ec == std::errc() && r.ptr == t.data() + t.size()) return true;
  // integral values written as 12.0 or 1e3
  TimeNs ns;
  if (parse_us_to_ns(t, ns) && ns % 1000 == 0) {
    out = ns / 1000;
    return true;
  }
  return false;
}

bool JsonToken::to_uint(uint64_t& out) const {
  if (type != Type::kNumber && type != Type::kString) return false;
  auto r = std::from_chars(text.data(), text.data() + text.size(), out);
  if (r.ec == std::errc() && r.ptr == text.data() + text.size()) return true;
  int64_t i;
  if (to_int(i) && i >= 0) {
    out = static_cast<uint64_t>(i);
    return true;
  }
  return false;
}

bool JsonToken::to_double(double& out) const {
  if (type != Type::kNumber && type != Type::kString) return false;
  auto r = std::from_chars(text.data(), text.data() + text.size(), out);
  return r.ec == std::errc() && r.ptr == text.data() + text.size() && std::isfinite(out);
}

bool parse_us_to_ns(std::string_view t, TimeNs& out) {
  // Fast path for what Kineto writes ("%d.%03d"): up to 15 integer and 3 fractional digits.
  {
    const char* s = t.data();
    const char* const e = s + t.size();
    int64_t whole = 0;
    const char* q = s;
    while (q < e && static_cast<unsigned>(*q - '0') < 10u && q - s < 15) whole = whole * 10 + (*q++ - '0');
    if (q > s && (q == e || *q == '.')) {
      int64_t frac = 0;
      int nfrac = 0;
      if (q < e) {
        ++q;
        while (q < e && static_cast<unsigned>(*q - '0') < 10u && nfrac < 3) {
          frac = frac * 10 + (*q++ - '0');
          ++nfrac;
        }
      }
      if (q == e) {
        static constexpr int64_t kScale[] = {1000, 100, 10, 1};
        out = whole * 1000 + frac * kScale[nfrac];
        return true;
      }
    }
  }
  size_t i = 0;
  bool neg = false;
  if (i < t.size() && (t[i] == '-' || t[i] == '+')) neg = t[i++] == '-';
  Int128 mant = 0;
  int digits = 0;      // significant digits kept in mant
  int exp10 = 0;       // value = mant * 10^exp10 (in microseconds)
  bool any = false;
  bool round_up = false, sticky = false;
  auto take = [&](char c, bool fractional) {
    any = true;
    if (digits < 30) {
      mant = mant * 10 + (c - '0');
      if (mant != 0) ++digits;
      if (fractional) --exp10;
    } else {
      // beyond precision: integer digits scale, fractional digits only affect rounding
      if (!fractional) ++exp10;
      if (c != '0') sticky = true;
    }
  };
  while (i < t.size() && t[i] >= '0' && t[i] <= '9') take(t[i++], false);
  if (i < t.size() && t[i] == '.') {
    ++i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') take(t[i++], true);
  }
  if (!any) return false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    bool eneg = false;
    if (i < t.size() && (t[i] == '-' || t[i] == '+')) eneg = t[i++] == '-';
    int e = 0;
    bool edig = false;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
      edig = true;
      if (e < 100000) e = e * 10 + (t[i] - '0');
      ++i;
    }
    if (!edig) return false;
    exp10 += eneg ? -e : e;
  }
  if (i != t.size()) return false;
  exp10 += 3;  // microseconds → nanoseconds
  if (exp10 >= 0) {
    if (exp10 > 30) return mant == 0 ? (out = 0, true) : false;
    for (int k = 0; k < exp10; ++k) {
      mant *= 10;
      if (mant > static_cast<Int128>(INT64_MAX)) return false;
    }
  } else {
    for (int k = 0; k < -exp10; ++k) {
      if (mant == 0) break;
      const int d = static_cast<int>(mant % 10);
      mant /= 10;
      if (k == -exp10 - 1) round_up = d >= 5;
      else if (d != 0) sticky = true;
    }
    (void)sticky;  // half away from zero: only the first dropped digit decides
    if (round_up) ++mant;
  }
  if (mant > static_cast<Int128>(INT64_MAX)) return false;
  out = neg ? -static_cast<TimeNs>(mant) : static_cast<TimeNs>(mant);
  return true;
}

// the streaming parser

namespace {

struct NeedMore {};  // the current item runs past the buffered bytes

constexpr auto make_ws_table() {
  std::array<bool, 256> t{};
  t[' '] = t['\n'] = t['\r'] = t['\t'] = true;
  return t;
}
constexpr auto kWs = make_ws_table();

constexpr auto make_str_stop() {
  std::array<bool, 256> t{};
  t['"'] = t['\\'] = true;
  for (int c = 0; c < 0x20; ++c) t[c] = true;  // control chars (and the NUL sentinel)
  return t;
}
[[maybe_unused]] constexpr auto kStrStop = make_str_stop();

// Characters that continue a number after its leading digits (validity is checked on conversion).
constexpr auto make_num_tail() {
  std::array<bool, 256> t{};
  for (int c = '0'; c <= '9'; ++c) t[c] = true;
  t['.'] = t['e'] = t['E'] = t['+'] = t['-'] = true;
  return t;
}
constexpr auto kNumTail = make_num_tail();

// Bytes after the NUL sentinel that may be read (never used) by 16-byte string scans.
constexpr size_t kPad = 64;

// Index of the first byte in [p, p + 16) that is '"', '\\' or a control character (NUL included),
// or 16. Reads 16 bytes: the buffer keeps kPad readable bytes after its sentinel.
inline unsigned string_stop16(const char* p) {
#if defined(__SSE2__)
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
  const __m128i slash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
  const __m128i ctrl = _mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(0x1F)), _mm_set1_epi8(0x1F));
  const unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, slash), ctrl)));
  return mask ? static_cast<unsigned>(__builtin_ctz(mask)) : 16u;
#else
  for (unsigned i = 0; i < 16; ++i)
    if (kStrStop[static_cast<unsigned char>(p[i])]) return i;
  return 16u;
#endif
}

class Parser {
 public:
  Parser(ByteSource& src, ChromeJsonHandler& h, const ChromeJsonOptions& o) : src_(src), h_(h), o_(o) {
    // A small file gets a buffer of its size (not a whole block: small files stay cheap).
    size_t want = o_.block_bytes;
    if (!src_.compressed() && src_.file_size() < want) want = std::max<size_t>(4096, static_cast<size_t>(src_.file_size()) + 1);
    allocate(want + 1 + kPad);
    begin_ = buf_.get();
    p_ = end_ = begin_;
    terminate();
  }

  ChromeJsonStats run() {
    fill_initial();
    skip_bom();
    ws_top();
    if (at_end()) fail(offset(), "empty input: expected a JSON object or array of trace events");
    if (*p_ == '[') {
      ++p_;
      parse_event_array();
    } else if (*p_ == '{') {
      ++p_;
      parse_top_object();
    } else {
      fail(offset(), std::string("expected '{' or '[' at the start of a trace, found ") + describe(*p_));
    }
    ws_top();
    if (!at_end()) {
      warn("ignored " + std::to_string(remaining_hint()) + "+ bytes after the end of the trace at byte " +
           std::to_string(offset()));
    }
    stats_.json_bytes = consumed_ + static_cast<uint64_t>(end_ - begin_);
    return std::move(stats_);
  }

 private:
  // buffer
  int64_t offset() const { return static_cast<int64_t>(consumed_ + static_cast<uint64_t>(p_ - begin_)); }
  int64_t offset_of(const char* q) const { return static_cast<int64_t>(consumed_ + static_cast<uint64_t>(q - begin_)); }
  size_t remaining_hint() const { return static_cast<size_t>(end_ - p_); }

  void allocate(size_t n) {
    buf_.reset(new char[n]);  // not zeroed: only [begin_, end_ + kPad] is ever read
    buf_size_ = n;
  }
  // The NUL sentinel at end_, and initialised padding after it for the 16-byte scans.
  void terminate() { std::memset(end_, 0, kPad + 1); }

  void fill_initial() {
    const size_t n = read_some(begin_, buf_size_ - 1 - kPad);
    end_ = begin_ + n;
    terminate();
  }
  size_t read_some(char* dst, size_t cap) {
    size_t got = 0;
    while (got < cap) {
      const size_t n = src_.read(dst + got, cap - got);
      if (n == 0) {
        eof_ = true;
        break;
      }
      got += n;
      if (got >= cap / 2) break;
    }
    if (o_.progress) o_.progress(src_.file_position(), src_.file_size());
    if (o_.cancel && o_.cancel->load(std::memory_order_relaxed)) throw OperationCancelled();
    return got;
  }

  // Keeps [keep, end) and reads more after it. Returns false at end of input.
  bool refill(const char*& keep) {
    if (eof_) return false;
    const size_t kept = static_cast<size_t>(end_ - keep);
    if (kept + o_.block_bytes / 2 > buf_size_ - 1 - kPad) {
      if (kept >= o_.max_event_bytes)
        fail(offset_of(keep), "a single event is larger than " + std::to_string(o_.max_event_bytes >> 20) + " MiB");
      std::unique_ptr<char[]> old = std::move(buf_);
      allocate(std::max(buf_size_ * 2, kept + o_.block_bytes + 1 + kPad));
      std::memcpy(buf_.get(), keep, kept);
      consumed_ += static_cast<uint64_t>(keep - begin_);
    } else {
      std::memmove(buf_.get(), keep, kept);
      consumed_ += static_cast<uint64_t>(keep - begin_);
    }
    begin_ = buf_.get();
    keep = begin_;
    const size_t n = read_some(begin_ + kept, buf_size_ - 1 - kPad - kept);
    end_ = begin_ + kept + n;
    terminate();
    return n > 0 || !eof_;
  }

  bool at_end() const { return p_ >= end_; }

  // Called when the sentinel NUL is seen at p_.
  [[noreturn]] void hit_nul() {
    if (p_ >= end_) throw NeedMore{};
    fail(offset(), "NUL byte in JSON text");
  }

  [[noreturn]] void fail(int64_t at, const std::string& problem) const {
    InputLocation where;
    where.file = src_.path();
    where.byte_offset = at;
    if (current_index_ >= 0) where.event_index = current_index_;
    throw InputError(where, problem);
  }
  void warn(std::string w) { stats_.warnings.push_back(std::move(w)); }

  static std::string describe(char c) {
    if (c == '\0') return "end of input";
    if (static_cast<unsigned char>(c) < 0x20) return "control character";
    return std::string("'") + c + "'";
  }

  void skip_bom() {
    if (end_ - p_ >= 3 && static_cast<unsigned char>(p_[0]) == 0xEF && static_cast<unsigned char>(p_[1]) == 0xBB &&
        static_cast<unsigned char>(p_[2]) == 0xBF)
      p_ += 3;
  }

  // Whitespace at the top level, refilling as needed (nothing is kept).
  void ws_top() {
    while (true) {
      while (kWs[static_cast<unsigned char>(*p_)]) ++p_;
      if (p_ < end_) return;
      const char* keep = p_;
      const bool more = refill(keep);
      p_ = keep;  // refill may have moved the buffer even when nothing more came
      if (!more) return;
    }
  }

  // inside one item (event or metadata value): no refills, NeedMore instead
  void ws() {
    while (kWs[static_cast<unsigned char>(*p_)]) ++p_;
    if (*p_ == '\0') hit_nul();
  }
  void expect(char c, const char* what) {
    ws();
    if (*p_ != c) fail(offset(), std::string("expected ") + what + ", found " + describe(*p_));
    ++p_;
  }

  // String at p_ (opening quote). Views stay valid until the item is done (escapes decode to a pool).
  // Fast path inline (no escapes: the common case); the rest out of line.
  inline __attribute__((always_inline)) std::string_view string() {
    if (__builtin_expect(*p_ == '"', 1)) {
      const char* start = ++p_;
      while (true) {
        const unsigned k = string_stop16(p_);
        p_ += k;
        if (k < 16) break;
      }
      if (__builtin_expect(*p_ == '"', 1)) {
        std::string_view s(start, static_cast<size_t>(p_ - start));
        ++p_;
        return s;
      }
      return string_slow(start);
    }
    if (*p_ == '\0') hit_nul();
    fail(offset(), std::string("expected a string, found ") + describe(*p_));
  }
  // p_ is at a backslash, a control character or the sentinel inside the string begun at `start`.
  __attribute__((noinline)) std::string_view string_slow(const char* start) {
    if (*p_ == '\0') hit_nul();
    if (*p_ != '\\') fail(offset(), "control character inside a string");
    // slow path with escapes
    std::string& out = scratch();
    out.assign(start, static_cast<size_t>(p_ - start));
    while (true) {
      char c = *p_;
      if (c == '"') {
        ++p_;
        return out;
      }
      if (c == '\0') hit_nul();
      if (static_cast<unsigned char>(c) < 0x20) fail(offset(), "control character inside a string");
      if (c != '\\') {
        out.push_back(c);
        ++p_;
        continue;
      }
      ++p_;
      c = *p_++;
      if (append_simple_escape(out, c)) continue;
      switch (c) {
        case 'u': {
          uint32_t cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00 && p_[0] == '\\' && p_[1] == 'u') {
            p_ += 2;
            const uint32_t lo = hex4();
            if (lo >= 0xDC00 && lo < 0xE000) cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          append_utf8(out, cp);
          break;
        }
        case '\0': --p_; hit_nul();
        default: fail(offset() - 1, std::string("invalid escape \\") + c);
      }
    }
  }
  uint32_t hex4() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = *p_;
      if (c == '\0') hit_nul();
      v <<= 4;
      if (c >= '0' && c <= '9') v |= static_cast<uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f') v |= static_cast<uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= static_cast<uint32_t>(c - 'A' + 10);
      else fail(offset(), "invalid hex digit in \\u escape");
      ++p_;
    }
    return v;
  }
  std::string& scratch() {
    if (scratch_used_ == scratch_.size()) scratch_.emplace_back();
    return scratch_[scratch_used_++];
  }

  std::string_view number_text() {
    const char* start = p_;
    if (*p_ == '-') ++p_;
    if (!(*p_ >= '0' && *p_ <= '9')) {
      if (*p_ == '\0') hit_nul();
      if (std::strncmp(start, "NaN", 3) == 0 || std::strncmp(p_, "Infinity", 8) == 0)
        fail(offset_of(start), "non-finite number (NaN/Infinity) is not valid JSON");
      fail(offset(), std::string("expected a value, found ") + describe(*p_));
    }
    while (static_cast<unsigned>(*p_ - '0') < 10u) ++p_;
    plain_ = true;
    if (kNumTail[static_cast<unsigned char>(*p_)]) {
      plain_ = false;
      while (kNumTail[static_cast<unsigned char>(*p_)]) ++p_;
    }
    if (*p_ == '\0') hit_nul();  // a number may continue in the next block
    return std::string_view(start, static_cast<size_t>(p_ - start));
  }

  // Any value; objects and arrays are skipped and returned as raw text.
  JsonToken value(int depth = 0) {
    ws();
    JsonToken t;
    const char c = *p_;
    switch (c) {
      case '"':
        t.type = JsonToken::Type::kString;
        t.text = string();
        return t;
      case '{':
      case '[': {
        const char* start = p_;
        skip_container(depth);
        t.type = c == '{' ? JsonToken::Type::kObject : JsonToken::Type::kArray;
        t.text = std::string_view(start, static_cast<size_t>(p_ - start));
        return t;
      }
      case 't': literal("true"); t.type = JsonToken::Type::kBool; t.text = "true"; return t;
      case 'f': literal("false"); t.type = JsonToken::Type::kBool; t.text = "false"; return t;
      case 'n': literal("null"); t.type = JsonToken::Type::kNull; t.text = "null"; return t;
      default:
        t.type = JsonToken::Type::kNumber;
        t.text = number_text();
        t.plain_integer = plain_ && t.text.size() > (t.text[0] == '-' ? 1u : 0u);
        return t;
    }
  }
  void literal(const char* word) {
    for (const char* w = word; *w; ++w, ++p_) {
      if (*p_ == '\0') hit_nul();
      if (*p_ != *w) fail(offset(), std::string("invalid literal, expected ") + word);
    }
  }
  void skip_container(int depth) {
    if (depth > 512) fail(offset(), "nesting deeper than 512 levels");
    const char open = *p_++;
    const char close = open == '{' ? '}' : ']';
    ws();
    if (*p_ == close) {
      ++p_;
      return;
    }
    while (true) {
      if (open == '{') {
        ws();
        (void)string();
        expect(':', "':'");
      }
      (void)value(depth + 1);
      ws();
      if (*p_ == ',') {
        ++p_;
        continue;
      }
      if (*p_ == close) {
        ++p_;
        return;
      }
      fail(offset(), std::string("expected ',' or '") + close + "', found " + describe(*p_));
    }
  }

  TimeNs time_value(const char* key) {
    const JsonToken t = value();
    TimeNs ns;
    if ((t.type == JsonToken::Type::kNumber || t.type == JsonToken::Type::kString) && parse_us_to_ns(t.text, ns))
      return ns;
    if (t.type == JsonToken::Type::kNull) fail(offset(), std::string("\"") + key + "\" is null");
    fail(offset(), std::string("\"") + key + "\" is not a finite number: " + std::string(t.text.substr(0, 40)));
  }

  // One event object at p_ ('{'). Fills ev_.
  void event() {
    ev_.ph = ev_.name = ev_.cat = ev_.scope = ev_.bp = {};
    ev_.pid = ev_.tid = ev_.id = ev_.id2 = ev_.bind_id = JsonToken{};
    ev_.has_ts = ev_.has_dur = ev_.flow_in = ev_.flow_out = false;
    ev_.ts = ev_.dur = 0;
    ev_.args.clear();
    scratch_used_ = 0;
    ev_.byte_offset = offset();
    ++p_;  // '{'
    ws();
    if (*p_ == '}') {
      ++p_;
      return;
    }
    while (true) {
      ws();
      const std::string_view key = string();
      expect(':', "':' after a member name");
      ws();
      switch (key.size()) {
        case 2:
          if (key == "ph") { ev_.ph = string_or_fail(key); break; }
          if (key == "ts") { ev_.ts = time_value("ts"); ev_.has_ts = true; break; }
          if (key == "id") { ev_.id = value(); break; }
          if (key == "bp") { ev_.bp = string_or_fail(key); break; }
          (void)value();
          break;
        case 3:
          if (key == "pid") { ev_.pid = value(); break; }
          if (key == "tid") { ev_.tid = value(); break; }
          if (key == "cat") { ev_.cat = string_or_null(); break; }
          if (key == "dur") { ev_.dur = time_value("dur"); ev_.has_dur = true; break; }
          if (key == "id2") { ev_.id2 = value(); break; }
          (void)value();
          break;
        case 4:
          if (key == "name") { ev_.name = string_or_null(); break; }
          if (key == "args") { args(); break; }
          (void)value();
          break;
        case 1:
          if (key == "s") { ev_.scope = string_or_fail(key); break; }
          (void)value();
          break;
        case 7:
          if (key == "bind_id") { ev_.bind_id = value(); break; }
          if (key == "flow_in") { ev_.flow_in = value().text == "true"; break; }
          (void)value();
          break;
        case 8:
          if (key == "flow_out") { ev_.flow_out = value().text == "true"; break; }
          (void)value();
          break;
        default: (void)value(); break;
      }
      ws();
      if (*p_ == ',') {
        ++p_;
        continue;
      }
      if (*p_ == '}') {
        ++p_;
        return;
      }
      fail(offset(), std::string("expected ',' or '}' in an event, found ") + describe(*p_));
    }
  }
  std::string_view string_or_fail(std::string_view key) {
    const JsonToken t = value();
    if (t.type != JsonToken::Type::kString)
      fail(offset(), "\"" + std::string(key) + "\" must be a string");
    return t.text;
  }
  std::string_view string_or_null() {
    const JsonToken t = value();
    if (t.type == JsonToken::Type::kNull) return {};
    return t.text;  // numbers as names are kept as their text
  }
  void args() {
    if (*p_ != '{') {
      (void)value();  // Chrome allows any args value; only objects carry fields
      return;
    }
    ++p_;
    ws();
    if (*p_ == '}') {
      ++p_;
      return;
    }
    while (true) {
      ws();
      RawArg a;
      a.key = string();
      expect(':', "':' after an argument name");
      a.value = value(1);
      ev_.args.push_back(a);
      ws();
      if (*p_ == ',') {
        ++p_;
        continue;
      }
      if (*p_ == '}') {
        ++p_;
        return;
      }
      fail(offset(), std::string("expected ',' or '}' in args, found ") + describe(*p_));
    }
  }

  // top level
  void parse_event_array() {
    int64_t index = 0;
    while (true) {
      ws_top();
      if (at_end()) {
        stats_.missing_array_end = true;
        warn("the traceEvents array has no closing ']' (tolerated, as Chrome does)");
        return;
      }
      if (*p_ == ']') {
        ++p_;
        return;
      }
      if (index > 0) {
        if (*p_ != ',') fail(offset(), std::string("expected ',' or ']' between events, found ") + describe(*p_));
        ++p_;
        ws_top();
        if (at_end()) {
          stats_.missing_array_end = true;
          warn("the traceEvents array ends with ',' and no closing ']' (tolerated)");
          return;
        }
        if (*p_ == ']') {  // trailing comma, as some writers leave it
          ++p_;
          return;
        }
      }
      if (*p_ != '{') fail(offset(), std::string("expected an event object, found ") + describe(*p_));
      current_index_ = index;
      const char* start = p_;
      while (true) {
        try {
          event();
          break;
        } catch (const NeedMore&) {
          p_ = start;
          if (!refill(start)) {
            p_ = end_;
            fail(offset_of(start), "file ends inside event #" + std::to_string(index) + " (truncated trace)");
          }
          p_ = start;
        } catch (const InputError&) {
          if (!o_.lenient) throw;
          ++stats_.skipped_malformed;
          if (!skip_to_next_event(start)) return;
          goto next;
        }
      }
      ev_.index = index;
      try {
        h_.on_event(ev_);
      } catch (const InputError&) {
        if (!o_.lenient) throw;
        ++stats_.skipped_malformed;  // well-formed JSON the importer could not use
      }
      ++stats_.events;
    next:
      ++index;
      current_index_ = -1;
    }
  }

  // Lenient recovery: resume at the next ',' + '{' outside a string (the start of the next event,
  // or of an object nested in a damaged one, which then parses or is skipped in turn).
  bool skip_to_next_event(const char* start) {
    p_ = start + 1;
    bool in_str = false;
    const char* comma = nullptr;
    while (true) {
      const char c = *p_;
      if (c == '\0' && p_ >= end_) {
        const char* keep = comma ? comma : p_;
        const ptrdiff_t back = p_ - keep;
        if (!refill(keep)) {
          p_ = end_;  // the buffer may have moved: never leave p_ in the old one
          return false;
        }
        comma = comma ? keep : nullptr;
        p_ = keep + back;
        continue;
      }
      ++p_;
      if (in_str) {
        if (c == '\\' && !(*p_ == '\0' && p_ >= end_)) ++p_;
        else if (c == '"') in_str = false;
        continue;
      }
      if (c == '"') {
        in_str = true;
        comma = nullptr;
      } else if (c == ',') {
        comma = p_ - 1;
      } else if (c == '{' && comma) {
        p_ = comma;
        return true;
      } else if (!kWs[static_cast<unsigned char>(c)]) {
        comma = nullptr;
      }
    }
  }

  // A top-level object without "traceEvents" is some other JSON, not a timeline (a PyTorch
  // execution trace has "nodes"): an error that says what was there, not an empty trace.
  void require_trace_events(const std::vector<std::string>& keys, bool saw_events) {
    if (saw_events) return;
    std::string list;
    for (size_t i = 0; i < keys.size() && i < 8; ++i) list += (i ? ", " : "") + keys[i];
    if (keys.size() > 8) list += ", ...";
    const bool et = std::find(keys.begin(), keys.end(), "nodes") != keys.end();
    fail(0, "not a timeline: the top-level object has no \"traceEvents\" (its members: " + (list.empty() ? "none" : list) + ")" +
                (et ? "; \"nodes\" suggests a PyTorch execution trace: open the profiler's Kineto trace (traceEvents) instead" : ""));
  }

  void parse_top_object() {
    bool first = true;
    bool saw_events = false;
    std::vector<std::string> keys;
    while (true) {
      ws_top();
      if (at_end()) {
        warn("the top-level object has no closing '}' (tolerated)");
        require_trace_events(keys, saw_events);
        return;
      }
      if (*p_ == '}') {
        ++p_;
        require_trace_events(keys, saw_events);
        return;
      }
      if (!first) {
        if (*p_ != ',') fail(offset(), std::string("expected ',' or '}' at the top level, found ") + describe(*p_));
        ++p_;
        ws_top();
      }
      first = false;
      // member name + ':' (+ the value for metadata) parsed as one item
      const char* start = p_;
      std::string key;
      while (true) {
        try {
          scratch_used_ = 0;
          key = std::string(string());
          expect(':', "':' after a member name");
          ws();
          break;
        } catch (const NeedMore&) {
          if (!refill(start)) {
            p_ = end_;
            fail(offset_of(start), "file ends inside a top-level member name");
          }
          p_ = start;
        }
      }
      keys.push_back(key);
      if (key == "traceEvents") {
        saw_events = true;
        if (*p_ != '[') fail(offset(), "\"traceEvents\" must be an array");
        ++p_;
        parse_event_array();
        continue;
      }
      start = p_;
      JsonToken t;
      while (true) {
        try {
          scratch_used_ = 0;
          t = value();
          break;
        } catch (const NeedMore&) {
          if (!refill(start)) {
            p_ = end_;
            fail(offset_of(start), "file ends inside top-level member \"" + key + "\"");
          }
          p_ = start;
        }
      }
      JsonValue v;
      const int64_t at = offset_of(start);
      switch (t.type) {
        case JsonToken::Type::kString: v = JsonValue::string(std::string(t.text)); break;
        case JsonToken::Type::kNumber: v = JsonValue::number(std::string(t.text)); break;
        case JsonToken::Type::kBool: v = JsonValue::boolean(t.text == "true"); break;
        case JsonToken::Type::kNull:
        case JsonToken::Type::kAbsent: break;
        case JsonToken::Type::kObject:
        case JsonToken::Type::kArray:
          try {
            v = parse_json(t.text, src_.path());
          } catch (const InputError& e) {
            fail(at, "in top-level member \"" + key + "\": " + e.problem());
          }
          break;
      }
      h_.on_metadata(key, v);
    }
  }

  ByteSource& src_;
  ChromeJsonHandler& h_;
  const ChromeJsonOptions& o_;
  std::unique_ptr<char[]> buf_;
  size_t buf_size_ = 0;
  char* begin_;
  const char* p_;
  char* end_;
  uint64_t consumed_ = 0;  // bytes before begin_
  bool eof_ = false;
  RawEvent ev_;
  std::deque<std::string> scratch_;
  size_t scratch_used_ = 0;
  int64_t current_index_ = -1;
  bool plain_ = false;  // the last number_text() was digits only
  ChromeJsonStats stats_;
};

}  // namespace

ChromeJsonStats parse_chrome_json(ByteSource& source, ChromeJsonHandler& handler, const ChromeJsonOptions& options) {
  Parser p(source, handler, options);
  return p.run();
}

}  // namespace parascope
