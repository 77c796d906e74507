#include <catch2/catch.hpp>

#include "sim/knobs.h"

using namespace parascope::sim;

TEST_CASE("Byte sizes parse with binary and decimal units", "[sim][knobs]") {
  int64_t b = 0;
  REQUIRE(parse_bytes("1GiB", b));
  REQUIRE(b == 1073741824);
  REQUIRE(parse_bytes("64KiB", b));
  REQUIRE(b == 65536);
  REQUIRE(parse_bytes("1.5MB", b));
  REQUIRE(b == 1500000);
  REQUIRE(parse_bytes("4096", b));
  REQUIRE(b == 4096);
  REQUIRE_FALSE(parse_bytes("1.5B", b));  // not a whole byte
  REQUIRE_FALSE(parse_bytes("12 parsecs", b));
  REQUIRE(format_bytes(1073741824) == "1GiB");
  REQUIRE(format_bytes(3 * 65536) == "192KiB");
  REQUIRE(format_bytes(1000) == "1000");
}

TEST_CASE("The registry validates knob values and suggests names", "[sim][knobs]") {
  const KnobRegistry& r = knob_registry();
  REQUIRE(r.find("num_comm_sms"));
  KnobSettings s;
  s.set("num_comm_sms=24");
  s.set("chunk_bytes=256KiB");
  s.set("algorithm", "two_shot");
  REQUIRE(s.get_int("num_comm_sms") == 24);
  REQUIRE(s.get_int("chunk_bytes") == 262144);
  REQUIRE(s.get_enum("algorithm") == "two_shot");
  REQUIRE(s.get_int("channels") == 16);  // default from the registry
  REQUIRE(s.describe() == "algorithm=two_shot chunk_bytes=256KiB num_comm_sms=24");
  REQUIRE_THROWS_WITH(s.set("num_comm_sm=4"), Catch::StartsWith("unknown knob 'num_comm_sm' (did you mean 'num_comm_sms'?)"));
  REQUIRE_THROWS_WITH(s.set("num_comm_sms=-1"), "knob num_comm_sms: '-1' is not in range [0, 1024]");
  REQUIRE_THROWS_WITH(s.set("algorithm=butterfly"), Catch::Contains("one of: ring, tree, one_shot, two_shot, nvls"));
  REQUIRE_THROWS_WITH(s.set("chunk_bytes"), Catch::Contains("expected knob=value"));
  const auto [name, values] = parse_sweep(r, "num_comm_sms=8,16,32");
  REQUIRE(name == "num_comm_sms");
  REQUIRE(values.size() == 3);
  REQUIRE(std::get<int64_t>(values[2]) == 32);
}
