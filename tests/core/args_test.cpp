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

TEST_CASE("ArgStore sets decoded in place read back like appended ones, and add still deduplicates after them", "[core][args]") {
  StringTable s;
  ArgStore store;
  const StringId k = s.intern("External id"), q = s.intern("queued");
  // an indexed set first, then 1000 in-place sets of 2 args, asking for more room than used
  const Arg first[] = {{q, ArgValue::of_int(7)}};
  REQUIRE(store.add(first) == 0);
  std::vector<uint32_t> ends;
  Arg* out = store.append_begin(5000);
  for (uint32_t i = 0; i < 1000; ++i) {
    out[2 * i] = Arg{k, ArgValue::of_uint(100 + i)};
    out[2 * i + 1] = Arg{q, ArgValue::of_int(-static_cast<int64_t>(i))};
    ends.push_back(2 * i + 2);
  }
  REQUIRE(store.append_commit(2000, ends) == 1);  // ids follow the indexed set
  REQUIRE(store.set_count() == 1001);
  // set 1 + 537 holds External id 637 and queued -537
  const auto s537 = store.get(538);
  REQUIRE(s537.size() == 2);
  CHECK(s537[0].key == k);
  CHECK(s537[0].value.u == 637);
  CHECK(s537[1].value.i == -537);
  // the index grows past 64 slots while the in-place sets have no hash entry: the first set is
  // still found, and 100 new distinct sets get ids 1001..1100
  for (int i = 0; i < 100; ++i) {
    const Arg a[] = {{q, ArgValue::of_int(1000 + i)}};
    REQUIRE(store.add(a) == 1001u + static_cast<uint32_t>(i));
  }
  CHECK(store.add(first) == 0);
  const Arg again[] = {{q, ArgValue::of_int(1050)}};
  CHECK(store.add(again) == 1051);
  // an uncommitted write is forgotten: the next sets start where the committed ones ended
  store.append_begin(10)[0] = Arg{k, ArgValue::of_int(-1)};
  const Arg b[] = {{k, ArgValue::of_int(5)}, {q, ArgValue::of_int(6)}};
  const uint32_t end2[] = {2};
  REQUIRE(store.append_sets(b, end2) == 1101);
  CHECK(store.get(1101)[0].value.i == 5);
  CHECK(store.get(1100)[0].value.i == 1099);
  // committing more than the room asked for is refused
  store.append_begin(1);
  const uint32_t end3[] = {3};
  REQUIRE_THROWS_AS(store.append_commit(1u << 30, end3), std::logic_error);
}
