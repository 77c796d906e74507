// The bench's probe traces from the 2 × H200 batch of 2026-11-30: the committed samples (upgraded
// from the interim payload) and the converter that upgraded them. Expected values are the lines
// parascope-bench printed in that run (kernels/results/logs/fused.log, all_to_all.log of the batch;
// totals in resources/captures/h200x2_2026-11-30/kernels/summary.txt), quoted next to each check.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "../cli/run_command.h"
#include "../io/trace_compare.h"
#include "test_paths.h"
#include "trace/core/error.h"
#include "trace/core/summary.h"
#include "trace/io/pstrace/pstrace_reader.h"

using namespace parascope;
namespace fs = std::filesystem;

namespace {

struct Buffer {
  int64_t spans = 0;
  std::set<int64_t> sms;
  int64_t roles[kSmRoleCount] = {0, 0, 0, 0};
};

// Spans per (GPU ordinal, buffer name) from the SM lanes of the model.
std::map<std::pair<int32_t, std::string>, Buffer> buffers(const Trace& t) {
  std::map<std::pair<int32_t, std::string>, Buffer> out;
  for (const Track& tr : t.tracks) {
    if (tr.key.kind != TrackKind::kSmLane) continue;
    for (uint32_t i = 0; i < tr.slices.size(); ++i) {
      Buffer& b = out[{t.devices[static_cast<size_t>(tr.key.device)].ordinal, std::string(t.str(tr.slices.name[i]))}];
      ++b.spans;
      b.sms.insert(tr.key.id);
      ++b.roles[static_cast<int>(t.sm_spans[tr.slices.ref[i].index()].role)];
    }
  }
  return out;
}

}  // namespace

TEST_CASE("Fused probe sample: the spans per GPU and buffer the bench printed", "[bench][probe][real]") {
  PstraceFileReport report;
  const Trace t = read_pstrace(test::sample_path("fused_probe_2xh200/fused_probe.pstrace"), {}, &report);
  // "probe: 12 buffers, 148 records, 0 overflowed"
  CHECK(report.probe_records == 148);
  CHECK(report.collector.probe_overflow == 0);
  REQUIRE(t.devices.size() == 2);
  CHECK(t.devices[0].name == "NVIDIA H200");
  CHECK(t.devices[0].sm_count == 132);
  const auto b = buffers(t);
  CHECK(b.size() == 12);
  // "GPU 0 ag_gemm_fused_tma_8sm_8192x8192x8192/push: 32 spans on 20 SMs (2-131), communicate 32"
  const Buffer& push0 = b.at({0, "ag_gemm_fused_tma_8sm_8192x8192x8192/push"});
  CHECK(push0.spans == 32);
  CHECK(push0.sms.size() == 20);
  CHECK(*push0.sms.begin() == 2);
  CHECK(*push0.sms.rbegin() == 131);
  CHECK(push0.roles[static_cast<int>(SmRole::kCommunicate)] == 32);
  // "GPU 1 ag_gemm_fused_tma_8sm_8192x8192x8192/push: 32 spans on 14 SMs (2-123), communicate 32"
  const Buffer& push1 = b.at({1, "ag_gemm_fused_tma_8sm_8192x8192x8192/push"});
  CHECK(push1.sms.size() == 14);
  CHECK(*push1.sms.rbegin() == 123);
  // "GPU 1 gemm_rs_fused_ldst_8sm_8192x8192x8192/wait: 4 spans on 1 SMs (124-124), wait 4"
  const Buffer& wait1 = b.at({1, "gemm_rs_fused_ldst_8sm_8192x8192x8192/wait"});
  CHECK(wait1.spans == 4);
  CHECK(wait1.sms == std::set<int64_t>{124});
  CHECK(wait1.roles[static_cast<int>(SmRole::kWait)] == 4);
  // "GPU 0 gemm_rs_fused_ldst_8sm_8192x8192x8192/push: 32 spans on 9 SMs (0-131)"
  CHECK(b.at({0, "gemm_rs_fused_ldst_8sm_8192x8192x8192/push"}).sms.size() == 9);
}

TEST_CASE("Collectives probe sample: 752 spans per GPU on all 132 SMs", "[bench][probe][real]") {
  PstraceFileReport report;
  const Trace t = read_pstrace(test::sample_path("collectives_probe_2xh200/collectives_probe.pstrace"), {}, &report);
  // "probe: 6 buffers, 1504 records, 0 overflowed"
  CHECK(report.probe_records == 1504);
  const auto b = buffers(t);
  CHECK(b.size() == 6);
  // "GPU 0 all_reduce_twoshot_ldst_bf16_64 MiB: 528 spans on 132 SMs (0-131), communicate 264, wait 264"
  const Buffer& ldst = b.at({0, "all_reduce_twoshot_ldst_bf16_64 MiB"});
  CHECK(ldst.spans == 528);
  CHECK(ldst.sms.size() == 132);
  CHECK(ldst.roles[static_cast<int>(SmRole::kCommunicate)] == 264);
  CHECK(ldst.roles[static_cast<int>(SmRole::kWait)] == 264);
  // "GPU 1 all_gather_tma_bf16_64 MiB: 96 spans on 32 SMs (0-131), communicate 32, wait 64"
  const Buffer& ag = b.at({1, "all_gather_tma_bf16_64 MiB"});
  CHECK(ag.spans == 96);
  CHECK(ag.sms.size() == 32);
  CHECK(ag.roles[static_cast<int>(SmRole::kWait)] == 64);
  const TraceSummary s = summarize(t);
  REQUIRE(s.processes.size() == 1);
  for (const DeviceSummary& d : s.processes[0].devices) {
    CHECK(d.sm_lanes == 132);
    CHECK(d.sm_spans == 752);  // 128 + 528 + 96 per GPU
  }
}

TEST_CASE("The converter upgrades an interim probe file to what the committed sample holds", "[bench][probe][real]") {
  const std::string interim = test::data_path("bench/fused_probe_interim.pstrace");
  // the interim file is refused by the reader (its metadata is not the documented payload)
  REQUIRE_THROWS_AS(read_pstrace(interim), InputError);
  const fs::path dir = test::temp_dir("probe-upgrade");
  const std::string out = (dir / "fused_probe.pstrace").string();
  const test::CommandResult r = test::run_command(std::string(PARASCOPE_UPGRADE_PROBE) + " " + interim + " " + out);
  REQUIRE(r.exit_code == 0);
  // it prints the bench's own per-buffer lines: this one is line 189 of that run's fused.log
  CHECK_THAT(r.out, Catch::Contains("GPU 0 ag_gemm_fused_tma_8sm_8192x8192x8192/push: 32 spans on 20 SMs (2-131), "
                                    "communicate 32, window 359.4 us, overflow 0\n"));
  CHECK_THAT(r.out, Catch::Contains("12 buffers, 148 records, 0 overflowed"));
  Trace upgraded = read_pstrace(out);
  const Trace sample = read_pstrace(test::sample_path("fused_probe_2xh200/fused_probe.pstrace"));
  REQUIRE(upgraded.processes.size() == 1);
  upgraded.processes[0].source = sample.processes[0].source;  // the file it was read from
  CHECK(test::trace_difference(upgraded, sample) == "");
  // a file that is not an interim probe trace is refused with the reason
  const test::CommandResult bad =
      test::run_command(std::string(PARASCOPE_UPGRADE_PROBE) + " " + test::sample_path("fused_probe_2xh200/fused_probe.pstrace") + " " + out + ".2");
  CHECK(bad.exit_code == 1);
  fs::remove_all(dir);
}
