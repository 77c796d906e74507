// `info` on the real GPU outputs that come with the project: the collector's record directory
// (resources/samples/record_torch_nccl_2xh200) and the bench's probe traces
// (resources/samples/fused_probe_2xh200). Counts are the collector's own (tests/data/collector/
// summaries/torch_nvl.summary.json) and the bench's log lines (see tests/kernels/bench_probe_files_test.cpp).
#include <catch2/catch.hpp>

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
