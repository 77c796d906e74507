// The pkb library's suite side: problem ranges, PKB's perf files, failure reasons, NVTX op names,
// the suite folder and the report (JSON schema and the suite table) on a suite written here around
// the hand-built PKB loop (pkb_loop_trace.h).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "pkb/report/suite_report.h"
#include "pkb/solutions/pkb_eval.h"
#include "pkb/suite/failure_reason.h"
#include "pkb/suite/pkb_checkout.h"
#include "pkb/suite/pkb_perf.h"
#include "pkb/suite/pkb_runner.h"
#include "pkb/suite/suite_folder.h"
#include "pkb/task/op_shapes.h"
#include "pkb_suite_fixture.h"
#include "test_paths.h"
#include "trace/core/error.h"

using namespace parascope;
using namespace parascope::pkb;
namespace fs = std::filesystem;

namespace {
void write(const fs::path& p, const std::string& text) { test::write_text(p, text); }
const char* kPerf = test::kPkbPerfJson;
}  // namespace

TEST_CASE("pkb: problem ranges") {
  CHECK(parse_problem_range("1-3,7,12-12") == std::set<int>{1, 2, 3, 7, 12});
  CHECK(parse_problem_range("87") == std::set<int>{87});
  CHECK_THROWS_WITH(parse_problem_range("3-1"), "problem range '3-1': 3-1 runs backwards");
  CHECK_THROWS_WITH(parse_problem_range("1,x"), "problem range '1,x': 'x' is not a task number");
  CHECK_THROWS_WITH(parse_problem_range("0"), "problem range '0': '0' is not a task number");
}

TEST_CASE("pkb: PKB's perf files, and the task's time is the slowest rank's") {
  const fs::path d = test::temp_dir("pkb-perf");
  write(d / "rank_0_perf.json", kPerf);
  write(d / "rank_1_perf.json", R"({"wall_time_ms": 0.0401, "iterations": 4, "warmup_iterations": 500})");
  write(d / "rank_0.pt", "not json");
  const PerfSummary s = read_perf_dir(d.string());
  REQUIRE(s.ranks.size() == 2);
  CHECK(s.ranks[0].rank == 0);
  CHECK(s.ranks[0].wall_time_ms == 0.030075);
  CHECK(s.ranks[0].wall_time_std_ms == 0.0012);
  CHECK(s.ranks[0].timed_tensor_bytes == 2097152.0);
  CHECK(s.wall_time_ms_max == 0.0401);
  CHECK(s.wall_time_ms_mean == Approx((0.030075 + 0.0401) / 2));
  CHECK(s.iterations == 4);
  CHECK(s.warmup_iterations == 500);
  write(d / "rank_2_perf.json", R"({"iterations": 4})");
  CHECK_THROWS_WITH(read_perf_dir(d.string()), (d / "rank_2_perf.json").string() + " ($.wall_time_ms): missing (not a PKB perf file?)");
  fs::remove_all(d);
}

TEST_CASE("pkb: one line saying why a task failed") {
  // what run_local.py passes on from a worker that could not import a package
  const std::string tb =
      "Traceback (most recent call last):\n  File \"/pkb/scripts/worker.py\", line 25, in <module>\n    import torch\n"
      "ModuleNotFoundError: No module named 'torch'\n";
  CHECK(failure_reason({1, false, 0, "", tb}) == "missing Python package 'torch' (No module named 'torch')");
  CHECK(missing_package("ModuleNotFoundError: No module named 'torch_geometric.utils'") ==
        "missing Python package 'torch_geometric' (No module named 'torch_geometric.utils')");
  const std::string assert_tb =
      "[Rank 0/1] worker error — traceback:\nTraceback (most recent call last):\n  File \"x.py\", line 3, in f\n"
      "    assert num_experts % world_size == 0\nAssertionError: num_experts (1) must be divisible by world_size (1)\n"
      "E1201 torch/distributed/elastic/multiprocessing/api.py:882] failed (exitcode: 1)\n";
  CHECK(failure_reason({1, false, 0, "", assert_tb}) == "AssertionError: num_experts (1) must be divisible by world_size (1)");
  CHECK(failure_reason({-1, true, 40, "", ""}) == "timed out after 40 s");
  CHECK(failure_reason({134, false, 0, "", "free(): invalid pointer\n"}) == "killed by signal 6: free(): invalid pointer");
  CHECK(failure_reason({2, false, 0, "", ""}) == "exit code 2");
}

TEST_CASE("pkb: op shapes from PyTorch's NVTX op ranges") {
  const auto s = parse_nvtx_op("aten::addmm, seq = 12, op_id = 40, sizes = [[256], [64, 128], [128, 256], [], []], input_op_ids = [(39, 0)]");
  REQUIRE(s);
  CHECK(s->op == "aten::addmm");
  CHECK(s->sizes == "[[256], [64, 128], [128, 256], [], []]");
  OpShape w = *s;
  compute_op_work(w, "bfloat16");
  CHECK(w.flops == 2.0 * 64 * 128 * 256);  // 4194304
  CHECK(w.gemm);
  CHECK(w.m == 64);
  CHECK(w.k == 128);
  CHECK(w.n == 256);
  // any other op: its inputs read once (bf16): 1024 x 1024 x 2 + 1024 x 2
  OpShape add = *parse_nvtx_op("aten::add, seq = 3, op_id = 9, sizes = [[1024, 1024], [1024], []]");
  compute_op_work(add, "bfloat16");
  CHECK(add.flops == 0);
  CHECK(add.hbm_bytes == 2097152.0 + 2048.0);
  CHECK(add.work_source == "inputs read once");
  // a gather reads the rows it picks: 68_gnn_sparse_feature_fetch_projection's aten::index of 20000
  // rows of 256 bf16 from a 55.5 M-row table: 2 x 20000 x 256 x 2 bytes + 20000 int64 indices, not 28 GB
  OpShape idx = *parse_nvtx_op("aten::index, seq = 5, op_id = 11, sizes = [[55500000, 256], [20000]]");
  compute_op_work(idx, "bfloat16");
  CHECK(idx.hbm_bytes == 2.0 * 20000 * 256 * 2 + 8.0 * 20000);
  CHECK(idx.work_source == "rows gathered");
  OpShape emb = *parse_nvtx_op("aten::embedding, seq = 1, op_id = 1, sizes = [[32768, 768], [8, 512], [], [], []]");
  compute_op_work(emb, "float32");
  CHECK(emb.hbm_bytes == 2.0 * 8 * 512 * 768 * 4 + 8.0 * 8 * 512);
  OpShape gat = *parse_nvtx_op("aten::gather, seq = 2, op_id = 3, sizes = [[1024, 1024], [], [1024, 4], []]");
  compute_op_work(gat, "float32");
  CHECK(gat.hbm_bytes == 2.0 * 4096 * 4 + 8.0 * 4096);
  // never more than the table: 2 index tensors of 10 picking single elements of a [4, 4] table
  OpShape small = *parse_nvtx_op("aten::index, seq = 6, op_id = 12, sizes = [[4, 4], [10], [10]]");
  compute_op_work(small, "float32");
  CHECK(small.hbm_bytes == 2.0 * 10 * 4 + 8.0 * 10);
  CHECK_FALSE(parse_nvtx_op("aten::empty, seq = 1, op_id = 2"));
  CHECK_FALSE(parse_nvtx_op("aten::cat, sizes = [[1024, 1"));  // cut off
}

TEST_CASE("pkb: a suite folder round trip, and the report on a suite around the PKB loop") {
  const fs::path root = test::temp_dir("pkb-suite");
  const SuitePaths p{root.string()};
  test::make_pkb_suite(root.string());
  const auto back = read_suite_info(p);
  REQUIRE(back);
  CHECK(back->world == 1);
  CHECK(back->dtype == "bfloat16");
  CHECK(back->pkb_root == "/pkb");
  CHECK(back->created_unix_ns == 1796037811705784842ull);
  const auto records = read_task_records(p);
  REQUIRE(records.size() == 2);
  CHECK(records[0].stem == "1_allreduce");
  CHECK(records[0].status == TaskStatus::kOk);
  CHECK(records[0].window.gpu_ns == 120300);
  CHECK(records[0].command == std::vector<std::string>{"parascope-cli", "record"});
  CHECK(records[1].status == TaskStatus::kFailed);
  CHECK(records[1].reason == "missing Python package 'gsplat' (No module named 'gsplat')");
  const std::string bad_reason = records[1].reason;

  ReportOptions o;
  o.machine = "h200x2";
  o.preset_dir = test::source_path("resources/topologies");
  const SuiteReport r = build_suite_report(root.string(), o);
  CHECK(r.ok == 1);
  CHECK(r.failed == 1);
  CHECK(r.machine == "h200x2");
  REQUIRE(r.tasks.size() == 2);
  const TaskReport& t = r.tasks[0];  // the analysed task first (it has a gap)
  CHECK(t.record.stem == "1_allreduce");
  REQUIRE(t.analyzed);
  CHECK(t.reference_s == Approx(30.075e-6));
  CHECK(t.breakdown.window_ns == 30075);
  CHECK(t.bound.binds == Resource::kLink);
  CHECK(r.tasks[1].record.stem == "61_gsplat_3d_gaussian_splatting");

  const DataTable table = suite_table(r);
  REQUIRE(table.rows.size() == 2);
  CHECK(table.rows[0][1].text == "1_allreduce");
  CHECK(table.rows[0][3].value == 30075);                  // reference, ns
  CHECK(table.rows[0][5].value == Approx(t.bound.gap));    // gap
  CHECK(table.rows[0][6].text == "link");
  CHECK(table.rows[1][2].text == "failed");
  CHECK(table.rows[1][10].text == bad_reason);

  const JsonValue j = suite_report_json(r);
  CHECK(j.find("schema_version")->as_int() == 1);
  CHECK(j.find("kind")->text() == "parascope-pkb-report");
  const JsonValue& task = j.find("tasks")->items()[0];
  for (const char* key : {"id", "stem", "status", "reason", "reference_ms", "pkb", "run", "trace", "breakdown_us", "operations",
                          "collectives", "work", "bound", "designs"})
    CHECK(task.find(key) != nullptr);
  CHECK(task.find("reference_ms")->as_double() == Approx(0.030075));
  CHECK(task.find("bound")->find("binds")->text() == "link");
  CHECK(task.find("breakdown_us")->find("communication_exposed")->as_double() == Approx(20.0));
  CHECK(task.find("collectives")->items()[0].find("wire_bytes")->as_double() == 2097152.0);
  const JsonValue& alt0 = task.find("designs")->find("alternatives")->items()[0];
  CHECK(alt0.find("workload")->text() == "allreduce:gpus=2,bytes=2097152,dtype_bytes=2,algorithm=ring");
  const JsonValue& failed = j.find("tasks")->items()[1];
  CHECK(failed.find("status")->text() == "failed");
  CHECK(failed.find("bound") == nullptr);
  fs::remove_all(root);
}

TEST_CASE("pkb: a folder that is not a suite, and a suite of a newer schema") {
  const fs::path root = test::temp_dir("pkb-notsuite");
  ReportOptions o;
  o.preset_dir = test::source_path("resources/topologies");
  CHECK_THROWS_WITH(build_suite_report(root.string(), o),
                    root.string() + " (suite.json): not a pkb suite folder (no suite.json; made by `pkb run`)");
  write(root / "suite.json", R"({"schema_version": 2, "kind": "parascope-pkb-suite"})");
  CHECK_THROWS_WITH(read_suite_info(SuitePaths{root.string()}),
                    (root / "suite.json").string() + " ($.schema_version): schema_version 2 is not 1");
  fs::remove_all(root);
}

TEST_CASE("pkb: PKB's eval output read back: verdict, timed trials, and why a job failed") {
  // the lines run_local.py --mode eval --measure-perf prints (utils/run_utils.py, run_local.py)
  const std::string pass =
      "Submitting reference (trial 0) (reference)...\n  Job completed.\n"
      "  trial 0: match | ref 0.031 ms | cuda 0.025 ms | speedup 1.24x\n"
      "  trial 1: match | ref 0.029 ms | cuda 0.023 ms | speedup 1.26x\nall trials match\n"
      "PKB_EVAL_JSON:{\"version\": 1, \"mode\": \"eval\", \"all_ok\": true, \"trials\": [{\"trial\": 0, \"result\": \"match\"}, "
      "{\"trial\": 1, \"result\": \"match\"}]}\n";
  const EvalResult ok = parse_eval_output("1_allreduce", pass, "", 0);
  CHECK(ok.correct);
  CHECK(ok.trials == 2);
  CHECK(ok.reference_ms == Approx(0.030));    // (0.031 + 0.029) / 2
  CHECK(ok.solution_ms == Approx(0.024));     // (0.025 + 0.023) / 2
  CHECK(ok.measured_speedup == Approx(0.030 / 0.024));
  CHECK(ok.reason.empty());
  const std::string fail =
      "  trial 0: cannot_compare (missing rank outputs) | perf: n/a\nmismatch\n"
      "PKB_EVAL_JSON:{\"all_ok\": false, \"trials\": [{\"trial\": 0, \"result\": \"no_artifacts\"}]}\n";
  const EvalResult bad = parse_eval_output("2_allgather", fail, "RuntimeError: parascope kernel: bytes 40 is not a positive multiple of 16 x nranks\n", 1);
  CHECK_FALSE(bad.correct);
  CHECK(bad.trials == 1);
  CHECK(bad.measured_speedup == 0);
  CHECK(bad.reason ==
        "trial result: no_artifacts (RuntimeError: parascope kernel: bytes 40 is not a positive multiple of 16 x nranks)");
}

TEST_CASE("pkb: a task's command and environment per launcher, --one-gpu through record --world") {
  RunOptions o;
  o.checkout.root = "/pkb";
  o.cli = "/bin/parascope-cli";
  o.hook_dir = "/hook";
  const PkbTask t{12, "12_tp_mlp", "/pkb/reference/12_tp_mlp.py"};
  const std::vector<std::string> worker = {"python3", "-u", "/pkb/scripts/worker.py", "--backend", "reference",
                                           "--problem_py", "/pkb/reference/12_tp_mlp.py", "--logs_dir",
                                           "/s/t/pkb_logs/problem_12_tp_mlp/reference", "--rows", "1024", "--cols",
                                           "1024", "--dtype", "bfloat16", "--problem_id", "12", "--measure_perf",
                                           "--measure-warmup-iters", "500", "--measure-profiling-iters", "100",
                                           "--trial", "0"};
  const auto has = [](const std::vector<std::string>& env, const std::string& kv) {
    return std::find(env.begin(), env.end(), kv) != env.end();
  };
  SECTION("run_local: run_local.py under record") {
    const auto cmd = task_command(o, t, "/s/t");
    REQUIRE(cmd.size() > 8);
    CHECK(std::vector<std::string>(cmd.begin(), cmd.begin() + 7) ==
          std::vector<std::string>{"/bin/parascope-cli", "record", "-q", "-o", "/s/t/record", "--", "python3"});
    CHECK(cmd[7] == "/pkb/run_local.py");
    CHECK(!has(task_environment(o, t, 29500), "RANK=0"));
  }
  SECTION("direct: the worker with torchrun's environment") {
    o.launcher = Launcher::kDirect;
    auto cmd = task_command(o, t, "/s/t");
    CHECK(std::vector<std::string>(cmd.begin() + 6, cmd.end()) == worker);
    const auto env = task_environment(o, t, 29517);
    CHECK(has(env, "RANK=0"));
    CHECK(has(env, "WORLD_SIZE=1"));
    CHECK(has(env, "MASTER_PORT=29517"));
    CHECK(std::any_of(env.begin(), env.end(), [](const std::string& kv) { return kv.rfind("PYTHONPATH=/hook", 0) == 0; }));
  }
  SECTION("--one-gpu --world 8: rank 0 of 8 under record --world, which sets RANK and WORLD_SIZE itself") {
    o.one_gpu = true;
    o.world = 8;
    const auto cmd = task_command(o, t, "/s/t");
    CHECK(std::vector<std::string>(cmd.begin(), cmd.begin() + 10) ==
          std::vector<std::string>{"/bin/parascope-cli", "record", "-q", "-o", "/s/t/record", "--world", "8", "--rank",
                                   "0", "--"});
    CHECK(std::vector<std::string>(cmd.begin() + 10, cmd.end()) == worker);
    const auto env = task_environment(o, t, 29517);
    CHECK(!has(env, "RANK=0"));
    CHECK(!has(env, "WORLD_SIZE=1"));
    CHECK(has(env, "OMP_NUM_THREADS=1"));
    CHECK(has(env, "PARASCOPE_PKB_SHAPES=1"));
  }
}
