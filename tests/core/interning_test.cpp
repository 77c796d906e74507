#include <catch2/catch.hpp>

#include <string>

#include "trace/core/args.h"
#include "trace/core/string_table.h"

using namespace parascope;

TEST_CASE("StringTable keeps ids and views through many growths of its index", "[core][strings]") {
  StringTable t;
  constexpr int kN = 100000;
  std::vector<StringId> ids;
  for (int i = 0; i < kN; ++i) ids.push_back(t.intern("name " + std::to_string(i * 7919)));
  REQUIRE(t.size() == kN + 1);  // plus "" at id 0
  CHECK(t.intern("") == kEmptyString);
  for (int i = 0; i < kN; i += 997) {
    const std::string s = "name " + std::to_string(i * 7919);
    CHECK(t.intern(s) == ids[static_cast<size_t>(i)]);
    CHECK(t.find(s) == ids[static_cast<size_t>(i)]);
    CHECK(t.view(ids[static_cast<size_t>(i)]) == s);
  }
  CHECK(t.find("never interned") == std::numeric_limits<StringId>::max());
  // strings differing only after their first 8 bytes, or in length, stay distinct
  CHECK(t.intern("abcdefgh1") != t.intern("abcdefgh2"));
  CHECK(t.intern("abcdefgh") != t.intern(std::string_view("abcdefgh\0", 9)));
}

TEST_CASE("ArgStore: 16-byte args, dedup by content, append for unique sets, growth keeps sets", "[core][args]") {
  static_assert(sizeof(Arg) == 16);
  StringTable s;
  ArgStore store;
  const StringId k1 = s.intern("Ev Idx"), k2 = s.intern("queued");
  const Arg a[] = {{k2, ArgValue::of_int(0)}, {k1, ArgValue::of_int(5)}};
  const uint32_t first = store.add(a);
  CHECK(store.add(a) == first);            // identical content → same set
  const uint32_t appended = store.append(a);
  CHECK(appended != first);                // append never looks
  CHECK(store.add(a) == first);            // and add does not find appended sets
  // 200 000 distinct sets through many realloc growths of the pool and the index
  std::vector<uint32_t> ids;
  for (int i = 0; i < 200000; ++i) {
    const Arg b[] = {{k1, ArgValue::of_uint(static_cast<uint64_t>(i))}, {k2, ArgValue::of_double(i * 0.5)}};
    ids.push_back(i % 2 ? store.append(b) : store.add(b));
  }
  for (int i = 0; i < 200000; i += 1999) {
    const auto set = store.get(ids[static_cast<size_t>(i)]);
    REQUIRE(set.size() == 2);
    CHECK(set[0].value.u == static_cast<uint64_t>(i));
    CHECK(set[1].value.d == i * 0.5);
  }
  const Arg again[] = {{k1, ArgValue::of_uint(1000)}, {k2, ArgValue::of_double(500.0)}};
  CHECK(store.add(again) == ids[1000]);  // an even i went through add(): found again
  CHECK(store.set_count() == 2 + 200000);
}
