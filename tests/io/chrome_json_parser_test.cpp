#include <catch2/catch.hpp>

#include <cstdio>

#include "trace/core/error.h"
#include "trace/io/json/chrome_json_parser.h"

using namespace parascope;

namespace {
struct Collect : ChromeJsonHandler {
  std::vector<std::string> names;
  std::vector<TimeNs> ts, dur;
  std::vector<std::string> meta;
  std::vector<std::string> arg_dump;
  void on_event(const RawEvent& e) override {
    names.emplace_back(e.name);
    ts.push_back(e.ts);
    dur.push_back(e.dur);
    std::string a;
    for (const auto& x : e.args) a += std::string(x.key) + "=" + std::string(x.value.text) + ";";
    arg_dump.push_back(a);
  }
  void on_metadata(std::string_view key, const JsonValue&) override { meta.emplace_back(key); }
};

ChromeJsonStats parse(const std::string& text, Collect& c, size_t block = 4 << 20, bool lenient = false) {
  auto src = memory_byte_source(text, "t.json");
  ChromeJsonOptions o;
  o.block_bytes = block;
  o.lenient = lenient;
  return parse_chrome_json(*src, c, o);
}
}  // namespace

TEST_CASE("Microsecond text converts to nanoseconds exactly", "[io][json][time]") {
  TimeNs ns = 0;
  REQUIRE(parse_us_to_ns("5176511019104.314", ns));
  REQUIRE(ns == 5176511019104314);  // a double would give ...104313 or ...104315 at this magnitude? exact here
  REQUIRE(parse_us_to_ns("1796033537323056.2345", ns));
  REQUIRE(ns == 1796033537323056235);  // 4th decimal 5 rounds half away from zero
  REQUIRE(parse_us_to_ns("-1.0005", ns));
  REQUIRE(ns == -1001);
  REQUIRE(parse_us_to_ns("1.5e3", ns));
  REQUIRE(ns == 1'500'000);
  REQUIRE(parse_us_to_ns("12", ns));
  REQUIRE(ns == 12'000);
  REQUIRE(parse_us_to_ns("0.0004", ns));
  REQUIRE(ns == 0);
  REQUIRE_FALSE(parse_us_to_ns("1e400", ns));  // overflow is an error, not infinity
  REQUIRE_FALSE(parse_us_to_ns("abc", ns));
  REQUIRE_FALSE(parse_us_to_ns("1.2.3", ns));
  // a double cannot hold this one exactly: 2^53 < 1796033537323056234 ns
  REQUIRE(parse_us_to_ns("1796033537323056.234", ns));
  REQUIRE(ns == 1796033537323056234);
}

TEST_CASE("Object and array forms, metadata members and escapes", "[io][json]") {
  Collect c;
  const auto st = parse(R"({"schemaVersion": 1, "traceEvents": [
      {"ph": "X", "name": "a\"b\u00e9", "ts": 1.5, "dur": 2, "pid": 1, "tid": 2, "args": {"grid": [24, 1, 1], "k": "v"}},
      {"ph": "i", "name": "mark", "ts": 3, "pid": 1, "tid": 2, "s": "t"}
    ], "baseTimeNanoseconds": 1790857026000000000})", c);
  REQUIRE(st.events == 2);
  REQUIRE(c.names[0] == "a\"b\xc3\xa9");
  REQUIRE(c.ts[0] == 1500);
  REQUIRE(c.dur[0] == 2000);
  REQUIRE(c.arg_dump[0] == "grid=[24, 1, 1];k=v;");
  REQUIRE(c.meta == std::vector<std::string>{"schemaVersion", "baseTimeNanoseconds"});
  Collect arr;
  parse(R"([{"ph": "X", "name": "x", "ts": 1, "dur": 1}])", arr);
  REQUIRE(arr.names.size() == 1);
}

TEST_CASE("A missing final bracket is tolerated, as Chrome does", "[io][json]") {
  Collect c;
  const auto st = parse(R"([{"ph": "X", "name": "x", "ts": 1, "dur": 1},
                            {"ph": "X", "name": "y", "ts": 2, "dur": 1},)", c);
  REQUIRE(st.events == 2);
  REQUIRE(st.missing_array_end);
  REQUIRE(st.warnings.size() == 1);
}

TEST_CASE("Events split across buffer refills parse the same", "[io][json]") {
  std::string text = "{\"traceEvents\": [";
  for (int i = 0; i < 500; ++i) {
    if (i) text += ",\n";
    text += R"({"ph": "X", "cat": "kernel", "name": "kernel_)" + std::to_string(i) +
            R"(\n", "ts": 5176511019104.)" + std::to_string(100 + i) + R"(, "dur": 1.5, "pid": 0, "tid": 7, "args": {"grid": [1, 2, 3]}})";
  }
  text += "]}";
  Collect big, tiny;
  parse(text, big);
  parse(text, tiny, 64);  // 64-byte blocks: every event straddles refills
  REQUIRE(big.names.size() == 500);
  REQUIRE(tiny.names == big.names);
  REQUIRE(tiny.ts == big.ts);
  REQUIRE(tiny.arg_dump == big.arg_dump);
  REQUIRE(big.names[499] == "kernel_499\n");
  REQUIRE(big.ts[499] == 5176511019104599);
}

TEST_CASE("Bad input names the byte offset and event index", "[io][json][errors]") {
  Collect c;
  SECTION("truncated inside an event") {
    REQUIRE_THROWS_WITH(parse(R"({"traceEvents": [{"ph": "X", "name": "x", "ts": 1, "dur": 1}, {"ph": "X", "na)", c),
                        "t.json (byte 62, event #1): file ends inside event #1 (truncated trace)");
  }
  SECTION("non-finite timestamp") {
    REQUIRE_THROWS_WITH(parse(R"([{"ph": "X", "name": "x", "ts": NaN, "dur": 1}])", c),
                        Catch::Contains("event #0") && Catch::Contains("NaN/Infinity"));
  }
  SECTION("wrong type") {
    REQUIRE_THROWS_WITH(parse(R"([{"ph": "X", "name": "x", "ts": "soon", "dur": 1}])", c),
                        Catch::Contains("\"ts\" is not a finite number: soon"));
  }
  SECTION("not JSON at all") {
    REQUIRE_THROWS_WITH(parse("hello", c), "t.json (byte 0): expected '{' or '[' at the start of a trace, found 'h'");
  }
  SECTION("empty") { REQUIRE_THROWS_WITH(parse("", c), Catch::Contains("empty input")); }
  SECTION("garbage between events") {
    REQUIRE_THROWS_WITH(parse(R"([{"ph": "X", "ts": 1, "dur": 1} x])", c),
                        Catch::Contains("expected ',' or ']' between events, found 'x'"));
  }
  SECTION("lenient skips a malformed event and counts it") {
    const auto st = parse(R"([{"ph": "X", "name": "a", "ts": 1, "dur": 1}, {"ph": "X", "ts": [}, {"ph": "X", "name": "b", "ts": 2, "dur": 1}])",
                          c, 4 << 20, true);
    REQUIRE(st.skipped_malformed == 1);
    REQUIRE(c.names == std::vector<std::string>{"a", "b"});
  }
}

TEST_CASE("The fast timestamp path agrees with exact decimal arithmetic", "[io][json][time]") {
  // Kineto writes "%d.%03d" (fast path); longer fractions, signs and exponents take the exact
  // 128-bit path. Both must give round-half-away-from-zero nanoseconds of the decimal text.
  TimeNs ns = 0;
  REQUIRE(parse_us_to_ns("999999999999999.999", ns));  // 15 integer digits: fast path
  REQUIRE(ns == 999999999999999999);
  REQUIRE(parse_us_to_ns("1000000000000000.5", ns));  // 16 digits: exact path
  REQUIRE(ns == 1000000000000000500);
  REQUIRE(parse_us_to_ns("7.1", ns));
  REQUIRE(ns == 7100);
  REQUIRE(parse_us_to_ns("7.12", ns));
  REQUIRE(ns == 7120);
  REQUIRE(parse_us_to_ns("7.0005", ns));  // 4th decimal 5: rounds up
  REQUIRE(ns == 7001);
  REQUIRE(parse_us_to_ns("7.00049", ns));
  REQUIRE(ns == 7000);
  REQUIRE(parse_us_to_ns("0", ns));
  REQUIRE(ns == 0);
  REQUIRE_FALSE(parse_us_to_ns("", ns));
  REQUIRE_FALSE(parse_us_to_ns(".", ns));
  REQUIRE_FALSE(parse_us_to_ns("1.2x", ns));
  // every "%d.%03d" for a spread of magnitudes equals integer arithmetic on the parts
  uint64_t x = 88172645463325252ull;  // xorshift, fixed seed
  for (int i = 0; i < 20000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const int64_t whole = static_cast<int64_t>(x % 1000000000000000ull) >> (x % 40);
    const int frac = static_cast<int>((x >> 20) % 1000);
    char text[40];
    std::snprintf(text, sizeof text, "%lld.%03d", static_cast<long long>(whole), frac);
    REQUIRE(parse_us_to_ns(text, ns));
    REQUIRE(ns == whole * 1000 + frac);
  }
}

TEST_CASE("Strings of every length around the 16-byte scan width, with escapes and control bytes", "[io][json]") {
  for (size_t n = 0; n < 70; ++n) {
    INFO("length " << n);
    const std::string body(n, 'k');
    Collect c;
    parse(R"([{"ph": "X", "name": ")" + body + R"(", "ts": 1, "dur": 1}])", c);
    REQUIRE(c.names.at(0) == body);
    Collect esc;
    parse(R"([{"ph": "X", "name": ")" + body + R"(\"q", "ts": 1, "dur": 1}])", esc);
    REQUIRE(esc.names.at(0) == body + "\"q");
    Collect bad;
    REQUIRE_THROWS_WITH(parse("[{\"ph\": \"X\", \"name\": \"" + body + "\x01\", \"ts\": 1, \"dur\": 1}]", bad),
                        Catch::Contains("control character inside a string"));
  }
  // UTF-8 bytes (>= 0x80) are text, not control characters
  Collect u;
  parse("[{\"ph\": \"X\", \"name\": \"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 caf\xc3\xa9 and more text\", \"ts\": 1, \"dur\": 1}]", u);
  REQUIRE(u.names.at(0) == "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 caf\xc3\xa9 and more text");
}
