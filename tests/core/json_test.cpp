#include <catch2/catch.hpp>

#include "trace/core/json.h"
#include "trace/core/json_escape.h"

using namespace parascope;

TEST_CASE("parse_json reads documents and keeps exact integers", "[core][json]") {
  const JsonValue v = parse_json(R"({"a": [1, 2.5, "x\u00e9"], "big": 1790857026000000000, "t": true, "n": null})", "x.json");
  REQUIRE(v.is_object());
  REQUIRE(v.find("a")->items().size() == 3);
  REQUIRE(v.find("a")->items()[1].as_double() == 2.5);
  REQUIRE(v.find("a")->items()[2].text() == "x\xc3\xa9");
  REQUIRE(*v.find("big")->as_int() == 1790857026000000000LL);  // beyond 2^53: exact
  REQUIRE(v.find("t")->as_bool());
  REQUIRE(v.find("n")->is_null());
  REQUIRE(to_json(v) == R"({"a":[1,2.5,"xé"],"big":1790857026000000000,"t":true,"n":null})");
}

TEST_CASE("json_quote and the Chrome writer's quoting escape one way, and parse_json reads it back", "[core][json]") {
  const std::string raw = std::string("a\"b\\c\n\r\t\b\f") + '\x01' + '\x1f' + "\xc3\xa9/";
  const std::string quoted = R"("a\"b\\c\n\r\t\b\f\u0001\u001f)" "\xc3\xa9" R"(/")";
  REQUIRE(json_quote(raw) == quoted);
  std::string appended = "x:";
  append_json_quoted(appended, raw);
  REQUIRE(appended == "x:" + quoted);
  REQUIRE(parse_json(quoted, "q.json").text() == raw);
}

TEST_CASE("parse_json errors name the file, byte offset and line:column", "[core][json]") {
  try {
    parse_json("{\n  \"a\": [1, 2,\n}", "topo.json");
    FAIL("expected an error");
  } catch (const InputError& e) {
    REQUIRE(e.where().file == "topo.json");
    REQUIRE(e.where().byte_offset == 16);
    REQUIRE(std::string(e.what()) == "topo.json (byte 16, line 3:1): expected a value");
  }
  REQUIRE_THROWS_WITH(parse_json("[1, NaN]", "f.json"), Catch::Contains("NaN/Infinity"));
  REQUIRE_THROWS_WITH(parse_json("{\"a\": 1} x", "f.json"), Catch::Contains("unexpected text after"));
  REQUIRE_THROWS_WITH(parse_json("", "f.json"), Catch::Contains("unexpected end of input"));
  REQUIRE_THROWS_WITH(parse_json(std::string(300, '['), "f.json"), Catch::Contains("nesting deeper"));
}

TEST_CASE("JsonField reports the JSON path of a bad field", "[core][json]") {
  const JsonValue v = parse_json(R"({"nodes": [{"sm_count": 132}, {"sm_count": "many"}]})", "t.json");
  const JsonField root(v, "t.json");
  REQUIRE(root.at("nodes").at(0).at("sm_count").as_int() == 132);
  try {
    root.at("nodes").at(1).at("sm_count").as_int();
    FAIL("expected an error");
  } catch (const InputError& e) {
    REQUIRE(e.where().field == "$.nodes[1].sm_count");
    REQUIRE(e.problem() == "expected a number, found a string");
  }
  REQUIRE_THROWS_WITH(root.at("links"), Catch::Contains("missing required member \"links\""));
  REQUIRE(root.get_double("absent", 4.5) == 4.5);
}
