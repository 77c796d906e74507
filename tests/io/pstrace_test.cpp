#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "io/rich_trace.h"
#include "io/trace_compare.h"
#include "test_paths.h"
#include "trace/core/error.h"
#include "trace/core/summary.h"
#include "trace/io/byte_io.h"
#include "trace/io/chunk_reader.h"
#include "trace/io/chunk_writer.h"
#include "trace/io/load_trace.h"
#include "trace/io/pstrace_reader.h"
#include "trace/io/pstrace_writer.h"

using namespace parascope;
namespace fs = std::filesystem;

TEST_CASE("Round trip: every part of the model survives Trace to pstrace to Trace", "[io][pstrace]") {
  const fs::path dir = test::temp_dir("pst-rich");
  const Trace original = test::make_rich_trace();
  // the fixture really covers what it claims: every detail kind, args, flows, collectives...
  REQUIRE(original.kernels.size() == 4);
  REQUIRE(original.memcpys.size() == 2);
  REQUIRE(original.memsets.size() == 1);
  REQUIRE(original.syncs.size() == 2);
  REQUIRE(original.nvtx.size() == 2);
  REQUIRE(original.cpu_ops.size() == 3);
  REQUIRE(original.api_calls.size() == 2);
  REQUIRE(original.sm_spans.size() == 3);
  REQUIRE(original.flows.size() == 3);
  REQUIRE(original.collectives.size() == 2);
  REQUIRE(original.links.size() == 2);
  REQUIRE(original.topology.has_value());
  REQUIRE(original.tracks[0].max_depth == 2);  // matmul > mm > cudaLaunchKernel
  REQUIRE(original.warnings.size() == 3);      // two recorded + the clamped negative duration

  SECTION("whole-trace writer, one chunk per run") {
    const std::string path = (dir / "rich.pstrace").string();
    write_pstrace(original, path);
    PstraceFileReport report;
    Trace back = read_pstrace(path, {}, &report);
    CHECK(test::trace_difference(original, back) == "");
    // the comparison can fail: a changed detail field, arg or name is found
    back.memsets[0].value = 1;
    // stream 7 sorted: fill, nvjet, no config, PtoP, DtoH, memset (row 5)
    CHECK(test::trace_difference(original, back) == "track 2 slice 5 value differs: 3735928559 vs 1");
    back.memsets[0].value = 0xDEADBEEF;
    back.tracks[4].name = back.strings.intern("renamed");
    CHECK(test::trace_difference(original, back) == "track 4 name differs: stream 17 vs renamed");
    CHECK(back.source_format == "pstrace");
    CHECK(report.warnings.empty());
    CHECK_FALSE(report.truncated);
    CHECK(report.slices == static_cast<int64_t>(original.slice_count()));
    CHECK(report.counter_samples == 6);
  }
  SECTION("whole-trace writer, tiny chunks (runs split, rows continue across chunks)") {
    const std::string path = (dir / "rich-split.pstrace").string();
    PstraceWriteOptions o;
    o.slices_per_chunk = 2;
    o.codec = Codec::kNone;
    write_pstrace(original, path, o);
    const Trace back = read_pstrace(path);
    CHECK(test::trace_difference(original, back) == "");
    // the stream track alone has 10 slices: 5 chunks of 2
    ChunkReader r(path);
    size_t slice_chunks = 0;
    for (const auto& c : r.chunks()) slice_chunks += c.header.type == static_cast<uint32_t>(ChunkType::kSlices);
    CHECK(slice_chunks > 10);
  }
  SECTION("incremental writer with automatic flushes equals the builder given the same calls") {
    const std::string path = (dir / "rich-inc.pstrace").string();
    PstraceWriteOptions o;
    o.max_buffered_events = 3;  // flushes every third event: runs of one track span many flushes
    o.slices_per_chunk = 2;
    {
      test::WriterSink w(path, o);
      test::record_rich_trace(w);
      w.w.close();
    }
    const Trace back = read_pstrace(path);
    CHECK(test::trace_difference(original, back) == "");
  }
  fs::remove_all(dir);
}

TEST_CASE("Round trip of the real Kineto sample keeps every event, count and reference", "[io][pstrace]") {
  const fs::path dir = test::temp_dir("pst-sample");
  const Trace original = load_trace({test::sample_path("allreduce_matmul_2xh200")});
  const std::string path = (dir / "sample.pstrace").string();
  write_pstrace(original, path);
  const Trace back = read_pstrace(path);
  CHECK(test::trace_difference(original, back) == "");
  // counts from resources/samples/allreduce_matmul_2xh200/README.md (Python's json module)
  const TraceSummary s = summarize(back);
  REQUIRE(s.processes.size() == 2);
  for (const auto& p : s.processes) {
    REQUIRE(p.devices.size() == 1);
    CHECK(p.devices[0].kernels == 21);
    CHECK(p.devices[0].comm_kernels == 6);
    CHECK(p.devices[0].memcpys == 3);
    CHECK(p.devices[0].memsets == 0);
  }
  // and it is much smaller than the JSON it came from (2 × 105 kB)
  CHECK(fs::file_size(path) * 4 < fs::file_size(test::sample_path("allreduce_matmul_2xh200/rank0.json")) * 2);
  fs::remove_all(dir);
}
