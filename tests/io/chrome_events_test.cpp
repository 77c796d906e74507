#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "import_text.h"
#include "test_paths.h"
#include "trace/io/load_trace.h"
#include "trace/core/error.h"

using namespace parascope;
using test::find_slice;
using test::import_text;

namespace {
const Track* track_named(const Trace& t, std::string_view name) {
  for (const Track& tr : t.tracks)
    if (t.str(tr.name) == name) return &tr;
  return nullptr;
}
std::string arg_text(const Trace& t, EventRef r, std::string_view key) {
  const auto& s = t.tracks[r.track].slices;
  for (const Arg& a : t.args.get(s.args_of(r.index)))
    if (t.str(a.key) == key) return format_arg(t.strings, a.value);
  return "<none>";
}
}  // namespace

TEST_CASE("Async b/e/n events become nested slices on one track per category and id", "[io][async]") {
  FileImportReport rep;
  const Trace t = import_text(R"({"traceEvents": [
    {"ph": "b", "cat": "net", "name": "req", "id": "0x10", "pid": 1, "tid": 1, "ts": 1},
    {"ph": "b", "cat": "net", "name": "dns", "id": "0x10", "pid": 1, "tid": 2, "ts": 2},
    {"ph": "n", "cat": "net", "name": "mark", "id": "0x10", "pid": 1, "tid": 2, "ts": 3},
    {"ph": "e", "cat": "net", "name": "dns", "id": "0x10", "pid": 1, "tid": 2, "ts": 4},
    {"ph": "e", "cat": "net", "name": "req", "id": "0x10", "pid": 1, "tid": 1, "ts": 9, "args": {"status": 200}},
    {"ph": "b", "cat": "net", "name": "other", "id": "0x11", "pid": 1, "tid": 1, "ts": 3},
    {"ph": "e", "cat": "net", "name": "other", "id": "0x11", "pid": 1, "tid": 1, "ts": 5},
    {"ph": "b", "cat": "io", "name": "read", "id2": {"local": "0x3"}, "pid": 1, "tid": 1, "ts": 5},
    {"ph": "e", "cat": "io", "name": "read", "id2": {"local": "0x3"}, "pid": 1, "tid": 1, "ts": 7},
    {"ph": "b", "cat": "io", "name": "g", "id2": {"global": "0x4"}, "pid": 2, "tid": 1, "ts": 5},
    {"ph": "e", "cat": "io", "name": "g", "id2": {"global": "0x4"}, "pid": 3, "tid": 1, "ts": 8},
    {"ph": "e", "cat": "io", "name": "nothing", "id": 99, "pid": 1, "tid": 1, "ts": 8},
    {"ph": "b", "cat": "io", "name": "open", "id": 98, "pid": 1, "tid": 1, "ts": 8},
    {"ph": "b", "cat": "io", "name": "no id", "pid": 1, "tid": 1, "ts": 8}
  ]})", &rep);
  // tracks: net/0x10, net/0x11, io/local 0x3 (pid 1), io/global 0x4 (b on pid 2, e on pid 3), io/99, io/98
  size_t async_tracks = 0;
  for (const Track& tr : t.tracks) async_tracks += tr.key.kind == TrackKind::kAsync;
  CHECK(async_tracks == 6);
  const EventRef req = find_slice(t, "req"), dns = find_slice(t, "dns"), mark = find_slice(t, "mark");
  REQUIRE(req.valid());
  REQUIRE(dns.track == req.track);
  REQUIRE(mark.track == req.track);
  const auto& s = t.tracks[req.track].slices;
  CHECK(s.start[req.index] == 1000);
  CHECK(s.dur[req.index] == 8000);    // 1 us .. 9 us
  CHECK(s.dur[dns.index] == 2000);    // 2 .. 4
  CHECK(s.depth_of(dns.index) == 1);  // dns inside req
  CHECK(s.depth_of(mark.index) == 2);  // the 'n' instant inside dns
  CHECK(s.ref[mark.index].kind() == SliceKind::kInstant);
  CHECK(arg_text(t, req, "status") == "200");  // the 'e' event's args join the slice
  CHECK(t.str(t.tracks[req.track].name) == "req");  // named after the first event
  const EventRef g = find_slice(t, "g");
  REQUIRE(g.valid());
  CHECK(t.tracks[g.track].slices.dur[g.index] == 3000);  // global id: one slice across pids 2 and 3
  CHECK(find_slice(t, "other").track != req.track);
  CHECK(rep.async_slices == 6);  // req, dns, mark, other, read, g
  CHECK(test::has_warning(t, "1 async 'e' events have no open 'b'"));
  CHECK(test::has_warning(t, "1 async 'b' events have no matching 'e'"));
  CHECK(test::has_warning(t, "1 async events have no id"));
}

TEST_CASE("B/E pairs, instants, counters, metadata names and sort indexes", "[io][chrome]") {
  FileImportReport rep;
  const Trace t = import_text(R"({"displayTimeUnit": "ns", "traceEvents": [
    {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "server"}},
    {"ph": "M", "name": "process_sort_index", "pid": 1, "args": {"sort_index": 4}},
    {"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "main"}},
    {"ph": "M", "name": "thread_sort_index", "pid": 1, "tid": 1, "args": {"sort_index": -1}},
    {"ph": "B", "name": "outer", "pid": 1, "tid": 1, "ts": 1.5, "args": {"x": [1, 2]}},
    {"ph": "B", "name": "inner", "pid": 1, "tid": 1, "ts": 2.25},
    {"ph": "E", "pid": 1, "tid": 1, "ts": 3.125},
    {"ph": "E", "pid": 1, "tid": 1, "ts": 4, "args": {"done": true}},
    {"ph": "E", "pid": 1, "tid": 1, "ts": 5},
    {"ph": "B", "name": "never ends", "pid": 1, "tid": 2, "ts": 5},
    {"ph": "C", "name": "mem", "pid": 1, "ts": 1, "args": {"heap": 10, "stack": "5"}},
    {"ph": "C", "name": "mem", "pid": 1, "ts": 2, "args": {"heap": 12, "stack": 6}},
    {"ph": "C", "name": "q", "id": 3, "pid": 1, "ts": 2, "args": {"value": 1e3}},
    {"ph": "i", "name": "g", "s": "g", "pid": 1, "tid": 1, "ts": 2},
    {"ph": "I", "name": "p", "s": "p", "pid": 1, "tid": 1, "ts": 2},
    {"ph": "R", "name": "mark", "pid": 1, "tid": 1, "ts": 2},
    {"ph": "P", "name": "sample", "pid": 1, "tid": 1, "ts": 3},
    {"ph": "O", "name": "snapshot", "pid": 1, "tid": 1, "ts": 3, "id": 1}
  ]})", &rep);
  REQUIRE(t.processes.size() == 1);
  CHECK(t.processes[0].name == "server");
  CHECK(t.processes[0].sort_index == 4);
  const Track* main = track_named(t, "main");
  REQUIRE(main);
  CHECK(main->sort_index == -1);
  const EventRef outer = find_slice(t, "outer"), inner = find_slice(t, "inner");
  REQUIRE(outer.valid());
  CHECK(t.tracks[outer.track].slices.dur[outer.index] == 2500);  // 1.5 .. 4 us
  CHECK(t.tracks[inner.track].slices.dur[inner.index] == 875);   // 2.25 .. 3.125 us
  CHECK(t.tracks[inner.track].slices.depth_of(inner.index) == 1);
  CHECK(arg_text(t, outer, "x") == "[1, 2]");
  CHECK(arg_text(t, outer, "done") == "true");  // E's args join the slice
  CHECK(test::has_warning(t, "1 'E' events have no open 'B'"));
  CHECK(test::has_warning(t, "1 'B' events have no matching 'E'"));
  const Track* heap = track_named(t, "mem.heap");
  const Track* stack = track_named(t, "mem.stack");
  const Track* q = track_named(t, "q id: 3");
  REQUIRE(heap);
  REQUIRE(stack);
  REQUIRE(q);
  CHECK(heap->counter.value == std::vector<double>{10, 12});
  CHECK(stack->counter.value == std::vector<double>{5, 6});  // "5" as text counts too
  CHECK(q->counter.value == std::vector<double>{1000});
  CHECK(find_slice(t, "g").track != main - t.tracks.data());
  CHECK(t.str(t.tracks[find_slice(t, "g").track].name) == "global instants");
  CHECK(t.str(t.tracks[find_slice(t, "p").track].name) == "process instants");
  CHECK(t.tracks[find_slice(t, "mark").track].slices.ref[find_slice(t, "mark").index].kind() == SliceKind::kInstant);
  CHECK(rep.unknown_phases == 2);  // P and O
  CHECK(test::has_warning(t, "2 events with unknown phases were skipped"));
}

TEST_CASE("Clock offsets: baseTimeNanoseconds, a file clock, epoch timestamps", "[io][clock]") {
  FileImportReport rep;
  const Trace based = import_text(R"({"baseTimeNanoseconds": 1000000, "traceEvents": [
    {"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1.5, "dur": 1}]})", &rep);
  CHECK(rep.clock_offset_ns == 1000000);
  CHECK(based.tracks[0].slices.start[0] == 1001500);
  const Trace plain = import_text(R"([{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1.5, "dur": 1}])", &rep);
  CHECK(rep.clock_offset_ns == 0);
  CHECK(plain.processes[0].clock_offset_reason == "none (file clock used as is)");
  // older Kineto wrote microseconds since the Unix epoch: 2026-11-30 is 1.796e15 us
  import_text(R"([{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1796033537323056.234, "dur": 1}])", &rep);
  CHECK(rep.clock_offset_reason == "none (timestamps are already wall-clock epoch times)");
}

TEST_CASE("Merging files with and without baseTimeNanoseconds warns about the unaligned one", "[io][clock]") {
  const auto dir = test::temp_dir("clocks");
  std::ofstream(dir / "a.json") << R"({"baseTimeNanoseconds": 5000, "traceEvents": [{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1}]})";
  std::ofstream(dir / "b.json") << R"([{"ph": "X", "name": "b", "pid": 2, "tid": 1, "ts": 1, "dur": 1}])";
  LoadReport rep;
  const Trace t = load_trace({(dir / "a.json").string(), (dir / "b.json").string()}, {}, &rep);
  CHECK(rep.files[0].clock_offset_ns == 5000);
  CHECK(rep.files[1].clock_offset_ns == 0);
  CHECK(test::has_warning(t, (dir / "b.json").string() + ": no baseTimeNanoseconds while " + (dir / "a.json").string() + " has one"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("A counter's unit rides in its value key, as our JSON writer puts it", "[io][chrome][counters]") {
  const Trace t = import_text(R"({"traceEvents": [
    {"ph": "C", "name": "NVLink tx", "pid": 1, "ts": 1, "args": {"value [bytes/s]": 5e9}},
    {"ph": "C", "name": "NVLink tx", "pid": 1, "ts": 2, "args": {"value [bytes/s]": 6e9}},
    {"ph": "C", "name": "mem", "pid": 1, "ts": 1, "args": {"heap [bytes]": 10, "stack [bytes]": 5}},
    {"ph": "C", "name": "odd", "pid": 1, "ts": 1, "args": {"[x]": 1}},
    {"ph": "C", "name": "plain", "pid": 1, "ts": 1, "args": {"value": 2}}
  ]})");
  const Track* tx = track_named(t, "NVLink tx");
  REQUIRE(tx);
  CHECK(t.str(tx->unit) == "bytes/s");
  CHECK(tx->counter.value == std::vector<double>{5e9, 6e9});
  const Track* heap = track_named(t, "mem.heap");
  REQUIRE(heap);
  CHECK(t.str(heap->unit) == "bytes");
  REQUIRE(track_named(t, "mem.stack"));
  const Track* odd = track_named(t, "odd.[x]");  // no name before the brackets: a plain key
  REQUIRE(odd);
  CHECK(t.str(odd->unit).empty());
  REQUIRE(track_named(t, "plain"));
  CHECK(t.str(track_named(t, "plain")->unit).empty());
}
