#include <catch2/catch.hpp>

#include "trace/core/args.h"

using namespace parascope;

TEST_CASE("ArgStore deduplicates identical argument sets", "[core][args]") {
  StringTable s;
  ArgStore store;
  const Arg a[] = {{s.intern("queued"), ArgValue::of_int(0)}, {s.intern("context"), ArgValue::of_int(1)}};
  const Arg b[] = {{s.intern("queued"), ArgValue::of_int(0)}, {s.intern("context"), ArgValue::of_int(2)}};
  const uint32_t ia = store.add(a);
  const uint32_t ib = store.add(b);
  REQUIRE(ia == 0);
  REQUIRE(ib == 1);
  REQUIRE(store.add(a) == ia);  // same content, same set
  REQUIRE(store.set_count() == 2);
  REQUIRE(store.get(ib).size() == 2);
  REQUIRE(store.get(ib)[1].value.i == 2);
  REQUIRE(store.add({}) == ~0u);
  REQUIRE(store.get(~0u).empty());
  REQUIRE(format_arg(s, ArgValue::of_double(53.54248366013072)) == "53.54248366");
  REQUIRE(format_arg(s, ArgValue::of_string(s.intern("Float"))) == "Float");
}
