#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <tuple>

#include "test_paths.h"
#include "trace/core/summary.h"
#include "trace/core/trace_builder.h"
#include "trace/io/json/chrome_json_writer.h"
#include "trace/io/load_trace.h"

using namespace parascope;
namespace fs = std::filesystem;

namespace {

struct DeviceCounts {
  int32_t rank, ordinal;
  int64_t kernels, memcpys, memsets, syncs, comm_kernels, collectives;
  friend bool operator==(const DeviceCounts&, const DeviceCounts&) = default;
};

std::vector<DeviceCounts> counts(const Trace& t) {
  std::vector<DeviceCounts> out;
  const TraceSummary s = summarize(t);
  for (const ProcessSummary& ps : s.processes)
    for (const DeviceSummary& ds : ps.devices) {
      const Device& d = t.devices[ds.device];
      out.push_back({t.processes[d.process].rank, d.ordinal, ds.kernels, ds.memcpys, ds.memsets, ds.syncs,
                     ds.comm_kernels, ds.collectives});
    }
  std::sort(out.begin(), out.end(), [](const DeviceCounts& a, const DeviceCounts& b) {
    return std::tie(a.rank, a.ordinal) < std::tie(b.rank, b.ordinal);
  });
  return out;
}

}  // namespace

TEST_CASE("Exact microsecond text of nanoseconds", "[writers][json]") {
  CHECK(ns_to_us_text(5176511018780763) == "5176511018780.763");
  CHECK(ns_to_us_text(0) == "0.000");
  CHECK(ns_to_us_text(-1500) == "-1.500");
  CHECK(json_number(0.1) == "0.1");
  CHECK(json_number(1e300) == "1e+300");
}

TEST_CASE("JSON round trip of the bundled sample keeps every per-device count, slice and flow", "[writers][json][real]") {
  const std::string s = "allreduce_matmul_2xh200/";
  const Trace in = load_trace({test::sample_path(s + "rank0.json"), test::sample_path(s + "rank1.json")});
  const fs::path dir = test::temp_dir("json-rt");
  const ChromeJsonWriteResult w = write_chrome_json(in, (dir / "rt.json").string());
  // one file per source file (per rank), named after the output
  REQUIRE(w.files == std::vector<std::string>{(dir / "rt.rank0.json").string(), (dir / "rt.rank1.json").string()});
  CHECK(w.warnings.empty());
  const Trace out = load_trace(w.files);
  // README counts (Python json): per rank 21 kernels (6 NCCL, 3 with "Collective name"), 3 memcpys,
  // 0 memsets; the re-import must see the same
  const auto c = counts(out);
  REQUIRE(c.size() == 2);
  CHECK(c[0] == DeviceCounts{0, 0, 21, 3, 0, 0, 6, 3});
  CHECK(c[1] == DeviceCounts{1, 1, 21, 3, 0, 0, 6, 3});
  CHECK(counts(in) == c);
  CHECK(out.slice_count() == in.slice_count());  // 476 = 2 × (236 X + 2 i events)
  CHECK(out.slice_count() == 476);
  CHECK(out.flows.size() == in.flows.size());    // 48 launch flows
  CHECK(out.tracks.size() == in.tracks.size());
  CHECK(out.processes[0].clock_offset_ns == 1790857026000000000LL);
  CHECK(out.time_span() == in.time_span());
  // the collective annotations survive with their sizes
  REQUIRE(out.collectives.size() == 6);
  CHECK(out.collectives[0].in_elements == 4194304);
  CHECK(out.collectives[0].dtype_bytes == 4);
  CHECK(out.str(out.collectives[0].group_ranks) == "[0, 1]");
  fs::remove_all(dir);
}

TEST_CASE("JSON round trip of the tensor-parallel capture, gzipped and merged", "[writers][json][real]") {
  const Trace in = load_trace({test::source_path("resources/captures/h200x2_2026-11-30/tp_overlap_b1")});
  const auto expected = counts(in);
  // Python json on the two files: 32 kernels (12 with "Collective name"), 16 gpu_memset, 0 memcpy per rank
  REQUIRE(expected.size() == 2);
  CHECK(expected[0] == DeviceCounts{0, 0, 32, 0, 16, 0, 12, 12});
  CHECK(expected[1] == DeviceCounts{1, 1, 32, 0, 16, 0, 12, 12});
  const fs::path dir = test::temp_dir("json-rt-tp");
  SECTION("per rank, gzip") {
    const ChromeJsonWriteResult w = write_chrome_json(in, (dir / "tp.json.gz").string());
    REQUIRE(w.files.size() == 2);
    CHECK(w.files[1] == (dir / "tp.rank1.json.gz").string());
    const Trace out = load_trace(w.files);
    CHECK(counts(out) == expected);
    CHECK(out.slice_count() == in.slice_count());
    CHECK(out.flows.size() == in.flows.size());
  }
  SECTION("merged: one file, per-device counts kept, ranks folded into one process") {
    ChromeJsonWriteOptions o;
    o.merged = true;
    const ChromeJsonWriteResult w = write_chrome_json(in, (dir / "tp.json").string(), o);
    REQUIRE(w.files.size() == 1);
    const Trace out = load_trace(w.files);
    REQUIRE(out.devices.size() == 2);
    const TraceSummary s = summarize(out);
    int64_t kernels = 0, memsets = 0, collectives = 0;
    for (const auto& ps : s.processes)
      for (const auto& ds : ps.devices) {
        CHECK(ds.kernels == 32);
        CHECK(ds.memsets == 16);
        CHECK(ds.collectives == 12);
        kernels += ds.kernels;
        memsets += ds.memsets;
        collectives += ds.collectives;
      }
    CHECK(kernels == 64);
    CHECK(memsets == 32);
    CHECK(collectives == 24);
    CHECK(out.slice_count() == in.slice_count());
  }
  fs::remove_all(dir);
}

namespace {

// name → unit of every counter track with samples
std::map<std::string, std::string> counter_units(const Trace& t) {
  std::map<std::string, std::string> out;
  for (const Track& tr : t.tracks)
    if (tr.counter.size()) out[std::string(t.str(tr.name))] = std::string(t.str(tr.unit));
  return out;
}

}  // namespace

TEST_CASE("JSON export keeps counter units: import, export, import reads them back", "[writers][json][counters]") {
  // issue 18: `convert X -o out.json` dropped the unit `info --json` shows
  TraceBuilder b;
  Process p;
  p.rank = 0;
  p.pid = 7;
  const uint32_t proc = b.add_process(p);
  const std::pair<const char*, const char*> series[] = {
      {"memory used", "bytes"}, {"NVLink tx", "bytes/s"}, {"SM busy", "%"}, {"queue depth", "count"}, {"probes", "per sample"}, {"plain", ""}};
  int64_t id = 1;
  for (const auto& [name, unit] : series) {
    const uint32_t t = b.track({TrackKind::kCounter, proc, -1, id++}, name);
    b.trace().tracks[t].unit = b.intern(unit);
    b.add_counter_sample(t, 1'000, 1.5);
    b.add_counter_sample(t, 2'000, 3);
  }
  b.add_slice(b.track({TrackKind::kCpuThread, proc, -1, 1}, "main"), 0, 3'000, b.intern("step"), SliceRef(SliceKind::kCpuOp, SliceRef::kNoDetail));
  const Trace in = b.finish();
  const std::map<std::string, std::string> expected = {{"memory used", "bytes"}, {"NVLink tx", "bytes/s"}, {"SM busy", "%"},
                                                       {"queue depth", "count"}, {"probes", "per sample"}, {"plain", ""}};
  REQUIRE(counter_units(in) == expected);
  const fs::path dir = test::temp_dir("json-units");
  const ChromeJsonWriteResult w = write_chrome_json(in, (dir / "u.json").string());
  REQUIRE(w.files.size() == 1);
  {
    std::ifstream f(w.files[0]);
    const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    // the unit rides in the value's key (Perfetto shows "NVLink tx value [bytes/s]"); no unit: "value"
    CHECK(text.find("\"args\": {\"value [bytes/s]\": 1.5}") != std::string::npos);
    CHECK(text.find("\"args\": {\"value [%]\": 3}") != std::string::npos);
    const size_t plain = text.find("\"name\": \"plain\"");
    REQUIRE(plain != std::string::npos);
    CHECK(text.substr(plain, text.find('}', plain) - plain).find("\"args\": {\"value\": 1.5") != std::string::npos);
  }
  const Trace back = load_trace(w.files);
  CHECK(counter_units(back) == expected);  // names as they were (no ".value [..]" suffix), units kept
  for (const Track& tr : back.tracks)
    if (back.str(tr.name) == "NVLink tx") CHECK(tr.counter.value == std::vector<double>{1.5, 3});
  // and again: the second export writes the same keys
  const ChromeJsonWriteResult w2 = write_chrome_json(back, (dir / "u2.json").string());
  CHECK(counter_units(load_trace(w2.files)) == expected);
  fs::remove_all(dir);
}

TEST_CASE("JSON export of the recorded NCCL sample keeps its NVLink counters' bytes/s", "[writers][json][counters][real]") {
  const Trace in = load_trace({test::sample_path("record_torch_nccl_2xh200")});
  const auto units = counter_units(in);
  REQUIRE(std::count_if(units.begin(), units.end(), [](const auto& u) { return u.second == "bytes/s"; }) >= 2);
  const fs::path dir = test::temp_dir("json-units-real");
  const ChromeJsonWriteResult w = write_chrome_json(in, (dir / "nccl.json").string());
  CHECK(counter_units(load_trace(w.files)) == units);
  fs::remove_all(dir);
}
