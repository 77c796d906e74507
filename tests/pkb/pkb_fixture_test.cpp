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
// 23_grad_acc_loss (ok) and 49_moe_ep_balanced (failed), with PKB's eval of 1 and 12.
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

TEST_CASE("pkb: the recorded world-1 tasks are analysed with PKB's numbers and the failing task's reason") {
  const SuiteReport r = report();
  REQUIRE(r.tasks.size() == 4);
  CHECK(r.suite.world == 1);
  CHECK(r.ok == 3);
  CHECK(r.failed == 1);
  for (const TaskReport& t : r.tasks) {
    INFO(t.record.stem);
    if (t.record.status != TaskStatus::kOk) continue;
    REQUIRE(t.analyzed);
    CHECK(t.window.iterations.size() == 100);  // PKB's --measure-profiling-iters
    CHECK(t.designs.note == "one rank: nothing crosses a link, no communication to design");
  }
  // tasks/49_moe_ep_balanced/run.log: the worker's last exception line
  const TaskReport& f = task(r, "49_moe_ep_balanced");
  CHECK(f.record.status == TaskStatus::kFailed);
  CHECK(f.record.reason == "RuntimeError: selected index k out of range");
  // failed tasks sort last (no gap)
  CHECK(r.tasks.back().record.stem == "49_moe_ep_balanced");
  const JsonValue j = suite_report_json(r);
  CHECK(j.find("schema_version")->as_int() == 1);
  CHECK(j.find("tasks_ok")->as_int() == 3);
}

TEST_CASE("pkb: 1_allreduce at world 1 - PKB's time, the copy it does, its HBM bound and the eval") {
  const SuiteReport r = report();
  const TaskReport& t = task(r, "1_allreduce");
  // perf/rank_0_perf.json: wall_time_ms 0.13709280014038086
  CHECK(t.reference_s == Approx(137.0928e-6).epsilon(1e-6));
  // the one op of an iteration: aten::copy_ of two 1024 x 1024 bf16 tensors, read once = 4 MiB
  REQUIRE(t.ops.ops.size() == 1);
  REQUIRE(t.ops.ops[0].shape);
  CHECK(t.ops.ops[0].shape->op == "aten::copy_");
  CHECK(t.ops.ops[0].shape->hbm_bytes == 4194304);
  CHECK(t.ops.collectives.empty());  // NCCL on one rank: no collective in the trace
  // HBM bound: 4194304 B / h200x2's 5.2027 TB/s = 0.8062 us; gap 137.09 / 0.8062 = 170.05
  CHECK(t.bound.binds == Resource::kHbm);
  CHECK(t.bound.bound_s == Approx(4194304 / r.ceilings.hbm_bytes_per_s));
  CHECK(t.bound.bound_s == Approx(0.8062e-6).epsilon(1e-3));
  CHECK(t.bound.gap == Approx(170.05).epsilon(1e-3));
  // solutions/1_allreduce.json: PASS, 0.064 ms / 0.051 ms measured, 2.05x predicted before
  REQUIRE(t.solution);
  CHECK(t.solution->correct);
  CHECK(t.solution->measured_speedup == Approx(0.064 / 0.051));
  CHECK(t.solution->predicted_speedup == Approx(2.0523).epsilon(1e-3));
  // KNOWN FAULT (docs/pkb.md, Results): c10d's per-collective create/record/destroy event pair is
  // counted as one of PKB's timing events, so the window is the last half of the loop: 65.995 us
  // per iteration (task.json window.gpu_ns 6599545 / 100) against PKB's 137.09 us, and the copy
  // appears in 50 of the 100 "iterations". When task_window.cpp is fixed (and the fixture
  // re-recorded), these two checks change to window == reference within 20 % and count == 100.
  CHECK(t.breakdown.window_ns == Approx(65995.45).epsilon(1e-4));
  CHECK(t.ops.ops[0].count == 50);
}

TEST_CASE("pkb: 12_allgather_gemm at world 1 - the GEMM's shape from the NVTX op range, and its bound") {
  const SuiteReport r = report();
  const TaskReport& t = task(r, "12_allgather_gemm");
  CHECK(t.reference_s == Approx(127.70496e-6).epsilon(1e-6));
  // aten::mm [[1024, 512], [512, 1024]]: m = n = 1024, k = 512, 2 m n k = 1073741824 FLOPs
  const IterationOp* gemm = nullptr;
  for (const IterationOp& o : t.ops.ops)
    if (o.shape && o.shape->gemm) gemm = &o;
  REQUIRE(gemm);
  CHECK(gemm->shape->op == "aten::mm");
  CHECK(gemm->shape->m == 1024);
  CHECK(gemm->shape->n == 1024);
  CHECK(gemm->shape->k == 512);
  CHECK(t.ops.flops == 1073741824);
  // HBM: the GEMM's 4 MiB + the 2 MiB device copy = 6291456 B: 1.209 us > compute 1.086 us
  CHECK(t.ops.hbm_bytes == 6291456);
  CHECK(t.bound.compute_s == Approx(1073741824 / 989e12));
  CHECK(t.bound.binds == Resource::kHbm);
  CHECK(t.bound.gap == Approx(105.61).epsilon(1e-3));
  REQUIRE(t.solution);
  CHECK(t.solution->measured_speedup == Approx(0.14 / 0.057));
}

TEST_CASE("pkb: 23_grad_acc_loss at world 1 - scalar ops leave a bound of one 8-byte copy") {
  const SuiteReport r = report();
  const TaskReport& t = task(r, "23_grad_acc_loss");
  // three elementwise ops on scalars ([[], []]) have no bytes; the 8-byte DtoH copy is all that is known
  CHECK(t.ops.with_shapes == 1);
  CHECK(t.ops.without_shapes == 3);
  CHECK(t.ops.hbm_bytes == 8);
  CHECK(t.bound.bound_s == Approx(8 / r.ceilings.hbm_bytes_per_s));
  CHECK(t.bound.note == "3 of 4 compute/memory ops have no shape: the bound leaves their work out");
  // the largest gap of the four, so it sorts first
  CHECK(r.tasks.front().record.stem == "23_grad_acc_loss");
}
}  // namespace

int main(int argc, char** argv) {
  if (!fs::exists(fixture() + "/suite.json")) {
    std::printf("SKIPPED: no recorded PKB suite at %s (the GPU batch scripts/gpu/pkb_world1.sh makes it)\n", fixture().c_str());
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
