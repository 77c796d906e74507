#include <catch2/catch.hpp>

#include "trace/core/string_table.h"

using namespace parascope;

TEST_CASE("StringTable interns each string once and keeps views stable", "[core][strings]") {
  StringTable t;
  REQUIRE(t.size() == 1);  // id 0 is ""
  REQUIRE(t.intern("") == kEmptyString);
  const StringId a = t.intern("ncclDevKernel_AllReduce");
  const StringId b = t.intern("gemm");
  REQUIRE(a == 1);
  REQUIRE(b == 2);
  REQUIRE(t.intern("ncclDevKernel_AllReduce") == a);
  const std::string_view va = t.view(a);
  SECTION("views survive many more insertions (blocks never move)") {
    for (int i = 0; i < 100000; ++i) t.intern("name_" + std::to_string(i));
    REQUIRE(va.data() == t.view(a).data());
    REQUIRE(t.view(a) == "ncclDevKernel_AllReduce");
    REQUIRE(t.size() == 100003);
  }
  SECTION("strings larger than a block get their own") {
    const std::string big(200000, 'x');
    const StringId id = t.intern(big);
    REQUIRE(t.view(id) == big);
    REQUIRE(t.intern("after") == id + 1);
    REQUIRE(t.view(a) == "ncclDevKernel_AllReduce");
  }
  SECTION("find does not insert") {
    REQUIRE(t.find("gemm") == b);
    REQUIRE(t.find("absent") == UINT32_MAX);
    REQUIRE(t.size() == 3);
  }
}
