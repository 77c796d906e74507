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
  const StringId k = s.intern("External id"), q = s.intern("queued"), c = s.intern("context");
  // an indexed set first, then 1000 in-place sets of 3 args whose "context" is shared (stored
  // once in the shape), asking for more room than used
  const Arg first[] = {{q, ArgValue::of_int(7)}};
  REQUIRE(store.add(first) == 0);
  const ArgField fields[] = {{k, ArgValue::Type::kUInt, false, 0},
                             {c, ArgValue::Type::kInt, true, ArgValue::of_int(1).bits()},
                             {q, ArgValue::Type::kInt, false, 0}};
  const uint32_t shape = store.shape(fields);
  CHECK(store.shape(fields) == shape);  // interned
  CHECK(store.unshared_count(shape) == 2);
  std::vector<uint32_t> shapes(1000, shape);
  uint64_t* out = store.append_begin(5000);
  for (uint32_t i = 0; i < 1000; ++i) {
    out[2 * i] = ArgValue::of_uint(100 + i).bits();
    out[2 * i + 1] = ArgValue::of_int(-static_cast<int64_t>(i)).bits();
  }
  const size_t values_before = store.value_count();  // 1: the first set's
  REQUIRE(store.append_commit(shapes) == 1);  // ids follow the indexed set
  REQUIRE(store.set_count() == 1001);
  CHECK(store.value_count() == values_before + 2000);  // 2 per set: "context" is not repeated
  // set 1 + 537 holds External id 637, context 1 (shared) and queued -537, in field order
  const auto s537 = store.get(538);
  REQUIRE(s537.size() == 3);
  CHECK(s537[0].key == k);
  CHECK(s537[0].value.type == ArgValue::Type::kUInt);
  CHECK(s537[0].value.u == 637);
  CHECK(s537[1].key == c);
  CHECK(s537[1].value.i == 1);
  CHECK(s537[2].value.i == -537);
  // the index grows past 64 slots while the in-place sets have no hash entry: the first set is
  // still found, and 100 new distinct sets get ids 1001..1100
  for (int i = 0; i < 100; ++i) {
    const Arg a[] = {{q, ArgValue::of_int(1000 + i)}};
    REQUIRE(store.add(a) == 1001u + static_cast<uint32_t>(i));
  }
  CHECK(store.add(first) == 0);
  const Arg again[] = {{q, ArgValue::of_int(1050)}};
  CHECK(store.add(again) == 1051);
  // add() finds an in-place set by content, shared field included? No: in-place sets are not
  // indexed, so the same content gets a new id (as append() would)
  const Arg same_as_537[] = {{k, ArgValue::of_uint(637)}, {c, ArgValue::of_int(1)}, {q, ArgValue::of_int(-537)}};
  CHECK(store.add(same_as_537) == 1101);
  CHECK(store.add(same_as_537) == 1101);
  // an uncommitted write is forgotten: the next sets start where the committed ones ended
  store.append_begin(10)[0] = ArgValue::of_int(-1).bits();
  const Arg b[] = {{k, ArgValue::of_int(5)}, {q, ArgValue::of_int(6)}};
  REQUIRE(store.append(b) == 1102);
  CHECK(store.get(1102)[0].value.i == 5);
  CHECK(store.get(1100)[0].value.i == 1099);
  // committing more values than the room asked for is refused, and adds nothing
  store.append_begin(1);
  const uint32_t three[] = {shape, shape, shape};  // 6 values
  REQUIRE_THROWS_AS(store.append_commit(three), std::logic_error);
  CHECK(store.set_count() == 1103);
}

TEST_CASE("ArgStore values round-trip through their 8-byte form", "[core][args]") {
  // bits(): int/uint as is, double's IEEE bits, bool 0/1, string id; from_bits(type, bits) inverts
  CHECK(ArgValue::of_int(-2).bits() == 0xFFFFFFFFFFFFFFFEull);
  CHECK(ArgValue::of_double(1.5).bits() == 0x3FF8000000000000ull);  // 1.5 = 1.1b x 2^0
  CHECK(ArgValue::of_bool(true).bits() == 1);
  CHECK(ArgValue::of_string(42).bits() == 42);
  const double back = ArgValue::from_bits(ArgValue::Type::kDouble, 0x3FF8000000000000ull).d;  // a copy: 4-byte aligned member
  CHECK(back == 1.5);
  CHECK(ArgValue::from_bits(ArgValue::Type::kJson, 7) == ArgValue::of_json(7));
  CHECK_FALSE(ArgValue::of_json(7) == ArgValue::of_string(7));  // same bits, other type
  // -0.0 and 0.0 stay distinct (bitwise), as before
  CHECK_FALSE(ArgValue::of_double(-0.0) == ArgValue::of_double(0.0));
  // a set of 3 args added with add() stores 3 values (8 bytes each) + its shape once: two sets
  // of the same keys and types share the shape
  StringTable s;
  ArgStore store;
  const Arg a[] = {{s.intern("x"), ArgValue::of_int(1)}, {s.intern("y"), ArgValue::of_bool(false)}, {s.intern("z"), ArgValue::of_double(2.0)}};
  const Arg b[] = {{s.intern("x"), ArgValue::of_int(2)}, {s.intern("y"), ArgValue::of_bool(true)}, {s.intern("z"), ArgValue::of_double(2.0)}};
  store.add(a);
  store.add(b);
  CHECK(store.shape_count() == 1);
  CHECK(store.value_count() == 6);
  CHECK(store.get(1)[1].value.b);
}
