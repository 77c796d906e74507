// The pkb library on the real ParallelKernelBench checkout beside the project
// (../shared/external/ParallelKernelBench, commit 3cc0f9b): its 87 tasks, and the solutions
// folder written for it. Exits 77 (ctest: skipped) when the checkout is absent.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "pkb/solutions/solution_set.h"
#include "pkb/suite/pkb_checkout.h"
#include "pkb/task/sim_adapter.h"
#include "test_paths.h"
#include "trace/core/json.h"

using namespace parascope;
using namespace parascope::pkb;
namespace fs = std::filesystem;

namespace {
std::string pkb_dir() { return test::shared_path("external/ParallelKernelBench"); }
}

TEST_CASE("pkb: the real checkout's 87 tasks, in PKB's order") {
  const PkbCheckout c = open_pkb_checkout(pkb_dir());
  REQUIRE(c.tasks.size() == 87);
  CHECK(c.tasks.front().stem == "1_allreduce");
  CHECK(c.tasks[1].stem == "2_allgather");
  CHECK(c.tasks.back().stem == "87_conv2d_boundary_exchange");
  REQUIRE(c.find(12));
  CHECK(c.find(12)->stem == "12_allgather_gemm");
  CHECK(fs::equivalent(c.find(12)->reference, pkb_dir() + "/reference/12_allgather_gemm.py"));  // the checkout keeps the path as given
  CHECK(select_tasks(c, parse_problem_range("1-8")).size() == 8);
  CHECK_THROWS_WITH(open_pkb_checkout(pkb_dir() + "/reference"),
                    pkb_dir() + "/reference (run_local.py): not a ParallelKernelBench checkout (no run_local.py)");
}

TEST_CASE("pkb: a solutions folder for the real checkout, with predictions written before any run") {
  const PkbCheckout c = open_pkb_checkout(pkb_dir());
  const std::string presets = test::source_path("resources/topologies");
  const Topology h200x2 = load_machine("h200x2", presets);
  std::vector<Topology> all;
  for (const auto& n : machine_presets(presets)) all.push_back(load_machine(n, presets));
  const RooflineCeilings ceil = ceilings_with_datasheet(h200x2, all);
  std::vector<SolutionPrediction> predictions;
  for (const SolutionSpec& s : parascope_solutions())
    predictions.push_back(predict_solution(s, c.find(s.id)->stem, nullptr, h200x2, ceil, 1));
  // world 1, no measured reference: 1_allreduce's pull kernel is one HBM pass of 2 MiB (in + out)
  // plus the kernel's fixed cost, and so is its copy into the symmetric buffer:
  // 1023.2 ns + 2 x 2097152 B / 5202.744 GB/s = 1.8294 us each
  const double pass = 1023.2000052928925e-9 + 2 * 2097152.0 / ceil.hbm_bytes_per_s;
  CHECK(ceil.hbm_bytes_per_s == Approx(5202.744086928921e9));
  CHECK(predictions[0].kernel_s == Approx(pass));
  CHECK(predictions[0].copies_s == Approx(pass));
  CHECK(predictions[0].task_s == Approx(2 * pass));
  CHECK(predictions[0].speedup == 0);  // no measured reference: no speed-up
  // world 2: the kernel comes from the simulator
  const SolutionPrediction p2 = predict_solution(parascope_solutions()[0], "1_allreduce", nullptr, h200x2, ceil, 2);
  CHECK(p2.basis == "simulated: allreduce:gpus=2,bytes=2097152,algorithm=one_shot,mechanism=ldst_pull,channels=132");
  CHECK(p2.kernel_s > 1023.2000052928925e-9);  // at least a kernel's fixed cost

  const fs::path dir = test::temp_dir("pkb-solutions");
  const WrittenSolutions w = write_solutions(dir.string(), c, test::source_path("resources/pkb/solutions"),
                                             "/opt/parascope/libparascope_pkb_kernels.so", predictions);
  CHECK(w.files == std::vector<std::string>{"1_allreduce", "2_allgather", "7_reducescatter", "8_alltoall",
                                            "12_allgather_gemm", "13_gemm_allreduce", "14_gemm_allgather",
                                            "16_gemm_reducescatter"});
  CHECK(w.skipped.empty());
  for (const auto& stem : w.files) CHECK(fs::exists(dir / (stem + "_cuda.py")));
  std::ifstream rt(dir / "parascope_pkb_runtime.py");
  std::stringstream ss;
  ss << rt.rdbuf();
  CHECK(ss.str().find("\"/opt/parascope/libparascope_pkb_kernels.so\"") != std::string::npos);
  const JsonValue pred = load_json_file((dir / "predictions.json").string());
  CHECK(pred.find("kind")->text() == "parascope-pkb-predictions");
  CHECK(pred.find("predictions")->items().size() == 8);
  const auto back = read_predictions(dir.string());
  REQUIRE(back.size() == 8);
  CHECK(back[0].stem == "1_allreduce");
  CHECK(back[0].task_s == Approx(2 * pass));
  fs::remove_all(dir);

  // a relative kernels path is written absolute: PKB's workers run in PKB's folder (a world-1
  // eval failed 6 of 6 with ".carry/pkb-bin/libparascope_pkb_kernels.so: cannot open shared object file")
  write_solutions(dir.string(), c, test::source_path("resources/pkb/solutions"), "bin/libparascope_pkb_kernels.so",
                  predictions);
  std::ifstream rt2(dir / "parascope_pkb_runtime.py");
  std::stringstream ss2;
  ss2 << rt2.rdbuf();
  const std::string want = "\"" + (fs::current_path() / "bin/libparascope_pkb_kernels.so").string() + "\"";
  CHECK(ss2.str().find(want) != std::string::npos);
  CHECK(ss2.str().find("\"bin/libparascope_pkb_kernels.so\"") == std::string::npos);
  fs::remove_all(dir);
}

int main(int argc, char** argv) {
  if (!fs::exists(pkb_dir() + "/run_local.py")) {
    std::printf("SKIPPED: no ParallelKernelBench checkout at %s\n", pkb_dir().c_str());
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
