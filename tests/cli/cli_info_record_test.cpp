// `info` on the real GPU outputs that come with the project: the collector's record directory
// (resources/samples/record_torch_nccl_2xh200) and the bench's probe traces
// (resources/samples/fused_probe_2xh200). Counts are the collector's own (tests/data/collector/
// summaries/torch_nvl.summary.json) and the bench's log lines (see tests/kernels/bench_probe_files_test.cpp).
#include <catch2/catch.hpp>

#include <filesystem>

#include "cli/run_command.h"
#include "test_paths.h"
#include "trace/core/json.h"

using namespace parascope;

namespace {
std::string cli() { return PARASCOPE_CLI; }
}  // namespace

TEST_CASE("info on the record sample: ranks, named GPUs, streams with work, collectives, NVLink counters", "[cli][info][collector]") {
  const auto r = test::run_command(cli() + " info " + test::sample_path("record_torch_nccl_2xh200"));
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("rank 0  pid 3490  host vm"));
  CHECK_THAT(r.out, Catch::Contains("rank 1  pid 3491  host vm"));
  CHECK_THAT(r.out, Catch::Contains("pid 3445  host vm"));  // torchrun itself
  CHECK_THAT(r.out, Catch::Contains("GPU 0  NVIDIA H200 (132 SMs)  0000:00:06.0"));
  // rank 0: 174 kernels, 57 NCCL (all annotated), 146 + 6 peer copies, 208 memsets
  CHECK_THAT(r.out, Catch::Contains("kernels 174 (communication 57, collectives 57)  memcpys 152 (peer 6)  memsets 208"));
  // rank 1's file was cut before its last 9 NCCL operations: 48 annotated
  CHECK_THAT(r.out, Catch::Contains("kernels 174 (communication 57, collectives 48)"));
  CHECK_THAT(r.out, Catch::Contains("stream 7      kernels 173"));
  CHECK_THAT(r.out, Catch::Contains("API calls 12620, NVTX 232"));
  // PM-sampled NVLink bytes: 1013 samples + a closing 0, 2.619 GB received (summary sum 2618804464)
  CHECK_THAT(r.out, Catch::Contains("NVLink rx (nvlrx__bytes.sum)  measured, 1014 samples, peak 120.3 GB/s, 2.619 GB"));
  CHECK_THAT(r.out, Catch::Contains("GPU 0 globaltimer -> CUPTI -1131284 ns +- 817 ns"));
  // no stream row without work
  CHECK_THAT(r.out, !Catch::Contains("kernels 0      comm 0     memcpys 0     memsets 0     syncs 0 "));

  const auto j = test::run_command(cli() + " info --json " + test::sample_path("record_torch_nccl_2xh200"));
  REQUIRE(j.exit_code == 0);
  const JsonValue doc = parse_json(j.out, "info-output");
  CHECK(*doc.find("collectives")->as_int() == 57 + 48);
  CHECK(*doc.find("counter_samples")->as_int() == 2 * 1014 + 2 * 1015);
}

TEST_CASE("info, stats and convert show the record sample's warnings and notes apart", "[cli][info][stats][convert][notes]") {
  // recorded before notes existed: its 10 warnings are 5 warnings (the command's exit status 1,
  // per rank: no end index and 2 NVTX ranges without end) and 5 notes (torchrun's run summary,
  // per rank: NVLink PM sampling's counters and setup), by trace/io/collector/collector_notes.h
  const std::string sample = test::sample_path("record_torch_nccl_2xh200");
  const auto j = test::run_command(cli() + " info --json " + sample);
  REQUIRE(j.exit_code == 0);
  const JsonValue doc = parse_json(j.out, "info-output");
  const auto& warnings = doc.find("warnings")->items();
  const auto& notes = doc.find("notes")->items();
  REQUIRE(warnings.size() == 5);
  REQUIRE(notes.size() == 5);
  CHECK(warnings[0].text() == sample + "/manifest.json: the recorded command exited with status 1");
  CHECK(notes[0].text() == sample + "/vm-3445-rnone.pstrace: collector: 237 CUPTI records, 0 dropped by CUPTI, 0 buffer requests refused (exit)");
  for (const auto& n : notes) CHECK_THAT(n.text(), !Catch::Contains("NVTX") && !Catch::Contains("end index"));

  SECTION("info's text: a warnings block, then a notes block") {
    const auto r = test::run_command(cli() + " info -q " + sample);
    REQUIRE(r.exit_code == 0);
    const size_t w = r.out.find("\nwarnings\n"), n = r.out.find("\nnotes\n");
    REQUIRE(w != std::string::npos);
    REQUIRE(n != std::string::npos);
    CHECK(w < n);
    CHECK(r.out.find("the recorded command exited with status 1") < n);
    CHECK(r.out.find("collector: 237 CUPTI records") > n);
  }
  SECTION("stats: the same two blocks and arrays") {
    const auto r = test::run_command(cli() + " stats -q " + sample);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("\nwarnings\n") < r.out.find("\nnotes\n"));
    const auto sj = test::run_command(cli() + " stats --json " + sample);
    REQUIRE(sj.exit_code == 0);
    const JsonValue st = parse_json(sj.out, "stats-output");
    CHECK(st.find("warnings")->items().size() == 5);
    CHECK(st.find("notes")->items().size() == 5);
  }
  SECTION("convert: warnings on stderr, notes counted, listed with --verbose, and kept in a .pstrace") {
    const auto dir = test::temp_dir("cli-notes");
    const std::string out = (dir / "r.pstrace").string();
    auto r = test::run_command(cli() + " convert -q " + sample + " -o " + out);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.err, Catch::Contains("warning: " + sample + "/manifest.json: the recorded command exited with status 1"));
    CHECK_THAT(r.err, Catch::Contains("\n5 notes on how the trace was made (--verbose lists them)\n"));
    CHECK_THAT(r.err, !Catch::Contains("collector: 237 CUPTI records"));
    r = test::run_command(cli() + " convert -q -v " + sample + " -o " + out);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.err, Catch::Contains("note: " + sample + "/vm-3445-rnone.pstrace: collector: 237 CUPTI records"));
    CHECK_THAT(r.err, !Catch::Contains("--verbose lists them"));
    const auto back = test::run_command(cli() + " info --json " + out);
    REQUIRE(back.exit_code == 0);
    const JsonValue bd = parse_json(back.out, "info-output");
    CHECK(bd.find("warnings")->items().size() == 5);
    CHECK(bd.find("notes")->items().size() == 5);
    std::filesystem::remove_all(dir);
  }
}

TEST_CASE("info on the bench's probe traces: GPUs and their SM lanes", "[cli][info][probe]") {
  const auto r = test::run_command(cli() + " info " + test::sample_path("fused_probe_2xh200/fused_probe.pstrace") + " " +
                                   test::sample_path("collectives_probe_2xh200/collectives_probe.pstrace"));
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("GPU 1  NVIDIA H200 (132 SMs)"));
  // all_reduce twoshot TMA 128 + LD/ST 528 + all_gather TMA 96 spans per GPU, every SM used
  CHECK_THAT(r.out, Catch::Contains("SM lanes 132, 752 spans"));
  // fused, GPU 0: push spans on 20 SMs plus SM 124 (barrier, wait); 1 + 32 + 4 spans per kernel, 2 kernels
  CHECK_THAT(r.out, Catch::Contains("SM lanes 21, 74 spans"));
}
