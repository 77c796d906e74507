#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "test_paths.h"
#include "trace/io/collector/collector_notes.h"
#include "trace/io/load_trace.h"

using namespace parascope;

TEST_CASE("An older collector's informational lines are notes, by one rule; the rest stay warnings", "[io][collector][notes]") {
  SECTION("the known notes, as the collectors wrote them") {
    // resources/samples/record_torch_nccl_2xh200 (2026-11-30), verbatim
    CHECK(is_collector_note("collector: 237 CUPTI records, 0 dropped by CUPTI, 0 buffer requests refused (exit)"));
    CHECK(is_collector_note("nvlink sampling: PM sampling counters on GH100 starting with nvl: nvlrx__bytes "
                            "nvlrx__bytes_data_protocol nvltx__bytes nvltx__cycles_in_region"));
    CHECK(is_collector_note("nvlink sampling: PM sampling on device 0 (GH100) every 1000 us: nvlrx__bytes.sum nvltx__bytes.sum"));
    // the collector's clock sync line (trace/collector/collector.cpp, resolve_brackets)
    CHECK(is_collector_note("clock sync device 1: host window [-1131700, -1130100] (width 1600), kernel brackets "
                            "[-1131500, -1131000] (width 500) from 8 of 8 kernels -> CUPTI - globaltimer = -1131250 "
                            "+- 250 ns (host window ∩ kernel brackets)"));
  }
  SECTION("known lines that report a loss stay warnings") {
    CHECK_FALSE(is_collector_note("collector: 237 CUPTI records, 12 dropped by CUPTI, 0 buffer requests refused (exit)"));
    CHECK_FALSE(is_collector_note("collector: 237 CUPTI records, 10 dropped by CUPTI, 0 buffer requests refused (exit)"));
    CHECK_FALSE(is_collector_note("collector: 237 CUPTI records, 0 dropped by CUPTI, 3 buffer requests refused (exit)"));
    // a summary after a crash flush names the signal: the trace stops at the crash
    CHECK_FALSE(is_collector_note("collector: 237 CUPTI records, 0 dropped by CUPTI, 0 buffer requests refused (SIGTERM)"));
    CHECK_FALSE(is_collector_note("clock sync device 0: host window [1, 2] (width 1), kernel brackets [5, 6] (width 1) "
                                  "from 8 of 8 kernels -> CUPTI - globaltimer = 5 +- 1 ns (kernel brackets); the host "
                                  "window and the kernel brackets miss each other by 3 ns (CUPTI's conversion of GPU "
                                  "kernel times differs from cuptiGetTimestamp by at least that)"));
    CHECK_FALSE(is_collector_note("nvlink sampling: PM sampling metrics refused: nvlrx__foo (CUPTI_ERROR_INVALID_METRIC_NAME)"));
    CHECK_FALSE(is_collector_note("nvlink sampling: PM sampling hardware buffer overflowed on device 0: samples were lost (raise the interval)"));
    CHECK_FALSE(is_collector_note("nvlink sampling: NOT available on this driver/device: cuptiPmSamplingEnable: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"));
    CHECK_FALSE(is_collector_note("nvlink sampling stopped: cuptiPmSamplingDecodeData: CUPTI_ERROR_UNKNOWN"));
    CHECK_FALSE(is_collector_note("clock sync on device 0 failed: cudaErrorLaunchFailure"));
  }
  SECTION("anything else stays a warning") {
    CHECK_FALSE(is_collector_note(""));
    CHECK_FALSE(is_collector_note("collector: "));
    CHECK_FALSE(is_collector_note("collector: many CUPTI records, 0 dropped by CUPTI, 0 buffer requests refused (exit)"));
    CHECK_FALSE(is_collector_note("2 NVTX ranges have no end (the file was cut, or the program never closed them); shown with zero length"));
    CHECK_FALSE(is_collector_note("CUPTI API version 130002 at /x/libcupti.so.13 differs from the collector's 130001; record layouts are assumed compatible"));
    CHECK_FALSE(is_collector_note("probe records of device 0 stored with clock offset 0 (no clock sync)"));
    // the rule reads the collector's own text, not the reader's "FILE: " in front of it
    CHECK_FALSE(is_collector_note("r0.pstrace: collector: 237 CUPTI records, 0 dropped by CUPTI, 0 buffer requests refused (exit)"));
  }
}

TEST_CASE("The bundled record directory, recorded before notes existed, loads with 5 warnings and 5 notes", "[io][collector][notes]") {
  // before: 10 warnings (GUI '10 warnings', issue 18 item 6)
  const std::string dir = test::sample_path("record_torch_nccl_2xh200");
  const Trace t = load_trace({dir});
  const std::string r0 = dir + "/vm-3490-r0.pstrace", r1 = dir + "/vm-3491-r1.pstrace";
  const std::string nvtx = ": 2 NVTX ranges have no end (the file was cut, or the program never closed them); shown with zero length";
  CHECK(t.warnings == std::vector<std::string>{
                          dir + "/manifest.json: the recorded command exited with status 1",
                          r0 + ": has no end index (its writer did not close it: still running, or killed); read 19 complete chunks by scanning",
                          r0 + nvtx,
                          r1 + ": has no end index (its writer did not close it: still running, or killed); read 20 complete chunks by scanning",
                          r1 + nvtx,
                      });
  REQUIRE(t.notes.size() == 5);
  CHECK(t.notes[0] == dir + "/vm-3445-rnone.pstrace: collector: 237 CUPTI records, 0 dropped by CUPTI, 0 buffer requests refused (exit)");
  CHECK(t.notes[1].starts_with(r0 + ": nvlink sampling: PM sampling counters on GH100 starting with nvl: nvlrx__bytes "));
  CHECK(t.notes[2] == r0 + ": nvlink sampling: PM sampling on device 0 (GH100) every 1000 us: nvlrx__bytes.sum nvltx__bytes.sum");
  CHECK(t.notes[3].starts_with(r1 + ": nvlink sampling: PM sampling counters on GH100 starting with nvl: nvlrx__bytes "));
  CHECK(t.notes[4] == r1 + ": nvlink sampling: PM sampling on device 1 (GH100) every 1000 us: nvlrx__bytes.sum nvltx__bytes.sum");
}
