#include <catch2/catch.hpp>

#include <algorithm>

#include "import_text.h"
#include "trace/io/json/flow_binder.h"

using namespace parascope;
using test::flow_names;
using test::import_text;

// Binding rules as in Perfetto's JSON importer (trace_processor json_trace_parser_impl.cc and
// flow_tracker.cc): s/t bind to the deepest enclosing slice of their thread, f to the next slice
// starting at or after it unless "bp": "e"; flows identified by (id, cat, name); t moves the flow.
TEST_CASE("Flow events bind to enclosing or next slices by the Chrome and Perfetto rules", "[io][flows]") {
  FileImportReport rep;
  const Trace t = import_text(R"({"traceEvents": [
    {"ph": "X", "name": "a",  "pid": 1, "tid": 1, "ts": 10, "dur": 10},
    {"ph": "X", "name": "a2", "pid": 1, "tid": 1, "ts": 12, "dur": 3},
    {"ph": "s", "id": 1, "cat": "c", "name": "f", "pid": 1, "tid": 1, "ts": 13},
    {"ph": "s", "id": 2, "cat": "c", "name": "f", "pid": 1, "tid": 1, "ts": 11},
    {"ph": "X", "name": "b",  "pid": 1, "tid": 2, "ts": 30, "dur": 10},
    {"ph": "t", "id": 1, "cat": "c", "name": "f", "pid": 1, "tid": 2, "ts": 35},
    {"ph": "f", "id": 1, "cat": "c", "name": "f", "pid": 1, "tid": 3, "ts": 45},
    {"ph": "X", "name": "c0", "pid": 1, "tid": 3, "ts": 40, "dur": 4},
    {"ph": "X", "name": "c",  "pid": 1, "tid": 3, "ts": 50, "dur": 5},
    {"ph": "f", "id": 2, "cat": "c", "name": "f", "bp": "e", "pid": 1, "tid": 3, "ts": 52},
    {"ph": "f", "id": 3, "cat": "c", "name": "f", "bp": "e", "pid": 1, "tid": 3, "ts": 52},
    {"ph": "s", "id": 1, "cat": "other", "name": "f", "pid": 1, "tid": 2, "ts": 31},
    {"ph": "f", "id": 1, "cat": "other", "name": "f", "bp": "e", "pid": 1, "tid": 1, "ts": 19},
    {"ph": "s", "id": 5, "cat": "c", "name": "f", "pid": 1, "tid": 1, "ts": 100}
  ]})", &rep);
  // Replayed in time order: id 1: s in a2 (deepest at 13), t at 35 in b moves it (a2->b), f at 45
  // without bp binds to c, the next slice starting at or after it (c0 ended before): b->c. id 2: s
  // at 11 is only inside a; f with bp "e" at 52 binds to c: a->c. id 3 has no start. cat "other",
  // id 1 is another flow, whose f (ts 19) comes before its s (ts 31): no start yet, as in Perfetto.
  // id 5 at 100 has no slice.
  const auto flows = flow_names(t, FlowKind::kGeneric);
  REQUIRE(flows == std::vector<std::string>{"a2->b", "b->c", "a->c"});
  CHECK(rep.flows == 3);
  CHECK(rep.unbound_flow_events == 3);  // id 5 (no slice) + id 3 and "other" (no start)
  CHECK(test::has_warning(t, "1 flow events have no slice to bind to"));
  CHECK(test::has_warning(t, "2 flow steps/ends have no flow start"));
}

TEST_CASE("Flow v2: bind_id with flow_out and flow_in on slices, B/E included", "[io][flows]") {
  const Trace t = import_text(R"([
    {"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 3, "bind_id": "0xab", "flow_out": true},
    {"ph": "X", "name": "b", "pid": 2, "tid": 5, "ts": 6, "dur": 3, "bind_id": "0xab", "flow_in": true, "flow_out": true},
    {"ph": "B", "name": "c", "pid": 2, "tid": 6, "ts": 10, "bind_id": "0xab", "flow_in": true},
    {"ph": "E", "pid": 2, "tid": 6, "ts": 12},
    {"ph": "X", "name": "d", "pid": 1, "tid": 1, "ts": 20, "dur": 1, "bind_id": 171, "flow_in": true}
  ])");
  // 0xab = 171: d continues the same flow (numeric and hex ids are one namespace, as in Perfetto)
  REQUIRE(flow_names(t, FlowKind::kGeneric) == std::vector<std::string>{"a->b", "b->c", "b->d"});
}

TEST_CASE("Flow ids are namespaced per file", "[io][flows]") {
  TraceBuilder b;
  auto f1 = memory_byte_source(R"([{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 3},
                                   {"ph": "s", "id": 1, "cat": "c", "name": "f", "pid": 1, "tid": 1, "ts": 2}])", "one.json");
  auto f2 = memory_byte_source(R"([{"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 5, "dur": 3},
                                   {"ph": "f", "id": 1, "cat": "c", "name": "f", "bp": "e", "pid": 1, "tid": 1, "ts": 6}])", "two.json");
  const FileImportReport r1 = import_chrome_json(*f1, b);
  const FileImportReport r2 = import_chrome_json(*f2, b);
  const Trace t = b.finish();
  CHECK(t.flows.empty());
  CHECK(r1.flows == 0);
  CHECK(r2.unbound_flow_events == 1);  // its end has no start in its own file
}

TEST_CASE("FlowBinder sweeps each track once: many flows on one long thread", "[io][flows]") {
  // 200 000 slices on one thread, a flow from every even slice to the next odd one: the old
  // binder scanned every slice per flow event (4e10 steps); this must finish at once.
  TraceBuilder b;
  Process p;
  const uint32_t proc = b.add_process(p);
  const uint32_t tr = b.track(TrackKey{TrackKind::kCpuThread, proc, -1, 1}, "t");
  FlowBinder fb;
  const StringId cat = b.intern("c"), name = b.intern("f");
  constexpr int kN = 200000;
  for (int i = kN - 1; i >= 0; --i) b.add_slice(tr, int64_t{i} * 10, 5, name, SliceRef());  // reverse order
  for (int i = 0; i < kN; i += 2) {
    FlowBinder::V1Key k;
    k.id = static_cast<uint64_t>(i);
    k.cat = cat;
    k.name = name;
    fb.add_v1('s', k, false, int64_t{i} * 10 + 1, 0, FlowKind::kGeneric);
    fb.add_v1('f', k, false, int64_t{i} * 10 + 6, 0, FlowKind::kGeneric);  // next slice: i + 1
  }
  fb.set_thread_tracks(0, {tr});
  const FlowBindStats s = fb.bind(b);
  REQUIRE(s.flows == kN / 2);
  REQUIRE(s.unbound == 0);
  const Trace t = b.finish();
  // after sorting, slice k starts at 10 k: every flow goes from row i to row i + 1
  bool all = true;
  for (const Flow& f : t.flows) all &= f.to.index == f.from.index + 1 && f.from.index % 2 == 0;
  CHECK(all);
}
