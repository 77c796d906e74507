// The pkb report on recorded PKB tasks: a few tasks of the world-1 suite the GPU batch
// (scripts/gpu/pkb_world1.sh) recorded on the lent H200, committed under tests/data/pkb/w1.
// Exits 77 (ctest: skipped) until that fixture is committed.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>

#include "pkb/report/suite_report.h"
#include "test_paths.h"

using namespace parascope;
using namespace parascope::pkb;
namespace fs = std::filesystem;

namespace {
std::string fixture() { return test::data_path("pkb/w1"); }

// Four tasks of the 2026-12-02 world-1 suite (1 x H200, PKB 3cc0f9b): 1_allreduce, 12_allgather_gemm,
// 39_ulysses_attention_e2e (ok) and 49_moe_ep_balanced (failed), with PKB's eval of 1 and 12.
// 1 and 12 were recorded before task_window.cpp knew c10d's own create/record/destroy events: the
// suite cut their traces to the last half of the loop, so their loop is not found any more (the
// trace holds 52 of PKB's 101 timing events); 39 launches no collective and is whole.
const TaskReport& task(const SuiteReport& r, const std::string& stem) {
  for (const TaskReport& t : r.tasks)
    if (t.record.stem == stem) return t;
  FAIL("no task " << stem);
  return r.tasks.front();
}

SuiteReport report() {
  ReportOptions o;
  o.machine = "h200x2";
  o.preset_dir = test::source_path("resources/topologies");
  return build_suite_report(fixture(), o);
}

TEST_CASE("pkb: the recorded world-1 tasks, PKB's numbers and the failing task's reason") {
  const SuiteReport r = report();
  REQUIRE(r.tasks.size() == 4);
  CHECK(r.suite.world == 1);
  CHECK(r.ok == 3);
  CHECK(r.failed == 1);
  // by gap: the one analysed task, then the rest by id
  CHECK(r.tasks[0].record.stem == "39_ulysses_attention_e2e");
  CHECK(r.tasks[1].record.stem == "1_allreduce");
  CHECK(r.tasks[2].record.stem == "12_allgather_gemm");
  // tasks/49_moe_ep_balanced/run.log: the worker's last exception line
  const TaskReport& f = r.tasks[3];
  CHECK(f.record.stem == "49_moe_ep_balanced");
  CHECK(f.record.status == TaskStatus::kFailed);
  CHECK(f.record.reason == "RuntimeError: selected index k out of range");
  const JsonValue j = suite_report_json(r);
  CHECK(j.find("schema_version")->as_int() == 1);
  CHECK(j.find("tasks_ok")->as_int() == 3);
  CHECK(j.find("tasks_failed")->as_int() == 1);
}

TEST_CASE("pkb: 39_ulysses_attention_e2e at world 1 - the loop, its GEMM shapes and its HBM bound") {
  const SuiteReport r = report();
  const TaskReport& t = task(r, "39_ulysses_attention_e2e");
  REQUIRE(t.analyzed);
  CHECK(t.analysis_note.empty());
  // perf/rank_0_perf.json: wall_time_ms 0.17071424484252928 over 100 iterations
  CHECK(t.reference_s == Approx(170.71424e-6).epsilon(1e-6));
  CHECK(t.window.iterations.size() == 100);
  // PKB's CUDA events and the trace's loop window time the same GPU span (170.51 us per iteration)
  CHECK(t.breakdown.window_ns * 1e-9 == Approx(t.reference_s).epsilon(0.01));
  // six ops, once per iteration each; two mm and two bmm with shapes from the NVTX op ranges:
  // 2 x (256 x 512 x 1536 + 2 x 256 x 8 x 64 x 8 + 256 x 512 x 512) = 541065216 FLOPs
  REQUIRE(t.ops.ops.size() == 6);
  for (const IterationOp& o : t.ops.ops) CHECK(o.count == 100);
  REQUIRE(t.ops.ops[0].shape);
  CHECK(t.ops.ops[0].shape->op == "aten::mm");
  CHECK(t.ops.ops[0].shape->sizes == "[[256, 512], [512, 1536]]");
  CHECK(t.ops.ops[0].shape->flops == 2.0 * 256 * 512 * 1536);
  CHECK(t.ops.flops == 541065216);
  CHECK(t.ops.without_shapes == 0);
  CHECK(t.ops.collectives.empty());
  // HBM 4849664 B / 5.2027 TB/s = 0.932 us > compute 541065216 / 989 TFLOP/s = 0.547 us
  CHECK(t.ops.hbm_bytes == 4849664);
  CHECK(t.bound.binds == Resource::kHbm);
  CHECK(t.bound.bound_s == Approx(4849664 / r.ceilings.hbm_bytes_per_s));
  CHECK(t.bound.compute_s == Approx(541065216 / 989e12));
  CHECK(t.bound.gap == Approx(183.14).epsilon(1e-3));
  CHECK(t.designs.note == "one rank: nothing crosses a link, no communication to design");
}

TEST_CASE("pkb: 1_allreduce and 12_allgather_gemm - traces cut before the c10d event rule, and PKB's eval") {
  const SuiteReport r = report();
  for (const char* stem : {"1_allreduce", "12_allgather_gemm"}) {
    const TaskReport& t = task(r, stem);
    INFO(stem);
    CHECK(t.record.status == TaskStatus::kOk);
    CHECK_FALSE(t.analyzed);
    CHECK(t.analysis_note ==
          "PKB's timed loop not found: found 52 timing event records before the elapsed-time calls, expected 101");
  }
  // perf/rank_0_perf.json, and solutions/<stem>.json: PASS, PKB's reference and solution times
  // measured by its eval, the speed-up predicted by `pkb solutions` before it ran
  const TaskReport& a = task(r, "1_allreduce");
  CHECK(a.reference_s == Approx(137.0928e-6).epsilon(1e-6));
  REQUIRE(a.solution);
  CHECK(a.solution->correct);
  CHECK(a.solution->kernel == "one-shot pull all-reduce");
  CHECK(a.solution->measured_speedup == Approx(0.064 / 0.051));
  CHECK(a.solution->predicted_speedup == Approx(2.0523).epsilon(1e-3));
  const TaskReport& g = task(r, "12_allgather_gemm");
  CHECK(g.reference_s == Approx(127.70496e-6).epsilon(1e-6));
  REQUIRE(g.solution);
  CHECK(g.solution->correct);
  CHECK(g.solution->measured_speedup == Approx(0.14 / 0.057));
  CHECK(g.solution->predicted_speedup == Approx(2.0706).epsilon(1e-3));
}

}  // namespace

int main(int argc, char** argv) {
  if (!fs::exists(fixture() + "/suite.json")) {
    std::printf("SKIPPED: no recorded PKB suite at %s (the GPU batch scripts/gpu/pkb_world1.sh makes it)\n", fixture().c_str());
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
