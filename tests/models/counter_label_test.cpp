#include <catch2/catch.hpp>

#include <filesystem>

#include "models/timeline_index.h"
#include "test_paths.h"
#include "trace/core/counter_unit.h"
#include "trace/io/export/trace_writer.h"
#include "trace/io/load_trace.h"

using namespace parascope;
using namespace parascope::models;

namespace {

int32_t track_named(const Trace& t, std::string_view name) {
  for (size_t i = 0; i < t.tracks.size(); ++i)
    if (t.str(t.tracks[i].name) == name && !t.tracks[i].counter.time.empty()) return static_cast<int32_t>(i);
  return -1;
}

}  // namespace

TEST_CASE("Counter values are written in their track's unit", "[app][counter]") {
  CHECK(parse_counter_unit("bytes") == CounterUnit::kBytes);
  CHECK(parse_counter_unit("bytes/s") == CounterUnit::kBytesPerS);
  CHECK(parse_counter_unit("%") == CounterUnit::kPercent);
  CHECK(parse_counter_unit("count") == CounterUnit::kCount);
  CHECK(parse_counter_unit("") == CounterUnit::kNone);
  CHECK(parse_counter_unit("per sample") == CounterUnit::kOther);
  // decimal units, as every DataTable: 1947305472 B = 1.947 GB; 7.723e8 B/s = 772.3 MB/s
  CHECK(format_counter_value(1947305472.0, CounterUnit::kBytes) == "1.947 GB");
  CHECK(format_counter_value(7.723e8, CounterUnit::kBytesPerS) == "772.3 MB/s");
  CHECK(format_counter_value(87.64, CounterUnit::kPercent) == "87.6 %");
  CHECK(format_counter_value(1234, CounterUnit::kCount) == "1234");
  CHECK(format_counter_value(3, CounterUnit::kOther, "per sample") == "3 per sample");
  CHECK(format_counter_value(2.5, CounterUnit::kNone) == "2.5");
}

TEST_CASE("A memory counter's row says bytes from the import through the timeline to an export", "[app][counter][captures]") {
  // resources/captures/h200x2_2026-11-30/dp_step rank 0: the largest CUDA Total Allocated of its
  // [memory] events is 1947305472 bytes (kineto_importer_test); before, the row read "peak 2 GB/s".
  const Trace t = load_trace({test::source_path("resources/captures/h200x2_2026-11-30/dp_step/rank0.1796033539809103290.pt.trace.json")});
  const int32_t mem = track_named(t, "memory allocated");
  REQUIRE(mem >= 0);
  CHECK(counter_unit(t, t.tracks[static_cast<size_t>(mem)]) == CounterUnit::kBytes);
  const TimelineIndex index(t);
  CHECK(index.counter_info(static_cast<uint32_t>(mem)) == "measured  \xC2\xB7  peak 1.947 GB");
  const int32_t host = track_named(t, "host memory allocated");
  REQUIRE(host >= 0);
  const std::string host_info = index.counter_info(static_cast<uint32_t>(host));
  CHECK(host_info.find("/s") == std::string::npos);
  CHECK(host_info.back() == 'B');

  SECTION("the native file keeps the unit") {
    const auto path = std::filesystem::temp_directory_path() / "parascope_counter_unit.pstrace";
    write_trace(t, path.string());
    const Trace back = load_trace({path.string()});
    std::filesystem::remove(path);
    const int32_t m2 = track_named(back, "memory allocated");
    REQUIRE(m2 >= 0);
    const TimelineIndex back_index(back);
    CHECK(back_index.counter_info(static_cast<uint32_t>(m2)) == "measured  \xC2\xB7  peak 1.947 GB");
  }
}

TEST_CASE("A link counter's row says bytes/s", "[app][counter]") {
  // the collector sample's rank 0 GPU 0 NVLink tx peaks at 117.5 GB/s (cli_links_test)
  const Trace t = load_trace({test::sample_path("record_torch_nccl_2xh200")});
  const TimelineIndex index(t);
  bool found = false;
  for (size_t i = 0; i < t.tracks.size(); ++i) {
    const Track& tr = t.tracks[i];
    if (tr.key.kind != TrackKind::kLink || tr.counter.time.empty()) continue;
    CHECK(counter_unit(t, tr) == CounterUnit::kBytesPerS);
    const std::string info = index.counter_info(static_cast<uint32_t>(i));
    CHECK(info.substr(info.size() - 4) == "GB/s");
    found |= info == "measured  \xC2\xB7  peak 117.5 GB/s";
  }
  CHECK(found);
}
