// docs/accuracy.md's what-if tables as ctest (scripts/whatif/accuracy.sh prints the same numbers
// through the CLI): the replay of the unchanged graph of the 10 real traces on the h200x2 preset with
// every knob at its default, comm_slowdown the machine's a-priori 0.03 (target within 5 % of the
// measured step), and the 13 prediction pairs, each a transform of one capture against the no-profiler
// median of the capture where that change was made for real (target within 10 %). Each error is also
// pinned to the value the docs report, within 1 percentage point, so a model change that moves one
// fails here until the docs are re-run. These are validation sets, not blind ones: the captures
// predate the model and shaped some of its choices (docs/accuracy.md, the opening table).
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "sim/whatif/what_if.h"
#include "test_paths.h"
#include "trace/core/json.h"
#include "trace/core/topology_presets.h"
#include "trace/io/load_trace.h"

using namespace parascope;
using namespace parascope::whatif;

namespace {

constexpr double kPin = 0.01;  // 1 percentage point around the documented error

std::string capture(const std::string& variant) {
  return variant == "sample" ? test::sample_path("allreduce_matmul_2xh200")
                             : test::source_path("resources/captures/h200x2_2026-11-30/" + variant);
}

struct Loaded {
  Trace trace;
  DepGraph graph;
  Topology topology = find_topology("h200x2", test::source_path("resources/topologies"));
  explicit Loaded(const std::string& variant) : trace(load_trace({capture(variant)})), graph(build_dep_graph(trace)) {}
  WhatIfOutput run(const std::vector<std::pair<std::string, std::string>>& set = {}) const {
    WhatIfInput in;
    in.measured = &trace;
    in.graph = &graph;
    in.topology = topology;
    for (const auto& [k, v] : set) in.knobs.set(k, v);
    return run_whatif(in);
  }
};

// The no-profiler median step time (CUDA events, 5 steps x 12 repetitions) of every variant the
// capture script timed, rank 0 (the files the docs' "measured 'to'" column reads).
const std::map<std::string, double>& no_profiler_median_ns() {
  static const std::map<std::string, double> m = [] {
    std::map<std::string, double> out;
    for (const char* f : {"tp_steps_rank0.json", "tp_steps_nch4_rank0.json"}) {
      const std::string path = test::source_path(std::string("resources/captures/h200x2_2026-11-30/") + f);
      const JsonValue doc = load_json_file(path);
      const JsonField rows = JsonField(doc, path).at("rows");
      for (size_t i = 0; i < rows.size(); ++i) out[rows.at(i).at("variant").as_string()] = rows.at(i).at("median_ns").as_double();
    }
    return out;
  }();
  return m;
}

// One trace of the replay table: its documented errors (docs/accuracy.md, "Replay of the unchanged
// graph", a-priori columns), host-range step and GPU step, as fractions.
struct ReplayRow {
  const char* trace;
  double step_error, gpu_error;
};

void check_replay(const ReplayRow& row) {
  const WhatIfOutput o = Loaded(row.trace).run();
  const WhatIfSummary& s = o.summary;
  const double step = s.step_ns / s.measured_step_ns - 1, gpu = s.gpu_step_ns / s.measured_gpu_step_ns - 1;
  INFO(row.trace << ": step " << s.step_ns << " ns against " << s.measured_step_ns << " measured (" << 100 * step
                 << " %), GPU step " << s.gpu_step_ns << " against " << s.measured_gpu_step_ns << " (" << 100 * gpu << " %)");
  REQUIRE(s.measured_step_ns > 0);
  REQUIRE(s.measured_gpu_step_ns > 0);
  CHECK_FALSE(s.comm_slowdown_fitted);  // the a-priori default, not a fit on the trace
  CHECK(s.changes.empty());
  CHECK(o.replay.warnings.empty());
  CHECK(std::abs(step - row.step_error) <= kPin);
  CHECK(std::abs(gpu - row.gpu_error) <= kPin);
  CHECK(std::abs(step) <= 0.05);
  CHECK(std::abs(gpu) <= 0.05);
}

// One prediction pair: `from` with the knobs of the change, against `to`'s no-profiler median.
struct Pair {
  const char* to;
  std::vector<std::pair<std::string, std::string>> set;
  double error;  // documented (docs/accuracy.md, "Predictions against a second real run")
};

void check_pairs(const char* from, const std::vector<Pair>& pairs) {
  const Loaded l(from);
  for (const Pair& p : pairs) {
    const WhatIfSummary s = l.run(p.set).summary;
    REQUIRE(no_profiler_median_ns().count(p.to) == 1);
    const double measured = no_profiler_median_ns().at(p.to), error = s.gpu_step_ns / measured - 1;
    INFO(from << " -> " << p.to << ": predicted GPU step " << s.gpu_step_ns << " ns, measured " << measured << " ("
              << 100 * error << " %, documented " << 100 * p.error << " %)");
    CHECK_FALSE(s.comm_slowdown_fitted);
    CHECK(std::abs(error - p.error) <= kPin);
    CHECK(std::abs(error) <= 0.10);
  }
}

const std::vector<std::pair<std::string, std::string>> kSide = {{"comm_select", "allreduce"}, {"comm_stream", "side"}};
const std::vector<std::pair<std::string, std::string>> kSerial = {{"comm_select", "allreduce"}, {"comm_stream", "serial"}};
const std::vector<std::pair<std::string, std::string>> kSplit4 = {{"comm_select", "allreduce"}, {"comm_split", "4"}};
const std::vector<std::pair<std::string, std::string>> kMerge4 = {{"comm_select", "allreduce"}, {"comm_merge", "4"}};
const std::vector<std::pair<std::string, std::string>> kChannels4 = {{"channels", "4"}};

}  // namespace

TEST_CASE("whatif accuracy: the replay of the default-channel TP captures is within 5 %", "[whatif][accuracy]") {
  for (const ReplayRow& r : {ReplayRow{"tp_serial_b1", 0.002, 0.002}, ReplayRow{"tp_overlap_b1", 0.003, 0.005},
                             ReplayRow{"tp_serial_b4", 0.001, 0.001}, ReplayRow{"tp_overlap_b4", 0.007, 0.007}})
    check_replay(r);
}

TEST_CASE("whatif accuracy: the replay of the 4-channel TP captures is within 5 %, one documented miss", "[whatif][accuracy]") {
  for (const ReplayRow& r : {ReplayRow{"tp_serial_b1_nch4", -0.026, -0.027}, ReplayRow{"tp_serial_b4_nch4", -0.026, -0.027},
                             ReplayRow{"tp_overlap_b4_nch4", -0.030, -0.030}})
    check_replay(r);
  // The documented miss (docs/accuracy.md, "Where tp_overlap_b1_nch4's 454 us went"): its side-stream
  // 64 MiB all-reduce at 4 channels lost the dispatch race and ran beside the next NNT GEMM x1.58
  // slower than alone; the machine's a-priori slow-down is x1.03 (measured at NCCL's 24 channels,
  // scripts/gpu/comm_beside_gemm.sh), and the model's 4-channel collectives are fast alone (all-gather
  // -22 %, all-reduce -8.5 %). Pinned where it is, outside the target: when the model learns why, this
  // fails and the docs' headline changes with it.
  const WhatIfSummary s = Loaded("tp_overlap_b1_nch4").run().summary;
  const double step = s.step_ns / s.measured_step_ns - 1, gpu = s.gpu_step_ns / s.measured_gpu_step_ns - 1;
  INFO("tp_overlap_b1_nch4: step " << 100 * step << " %, GPU step " << 100 * gpu << " %");
  CHECK_FALSE(s.comm_slowdown_fitted);
  CHECK(std::abs(step - -0.094) <= kPin);
  CHECK(std::abs(gpu - -0.097) <= kPin);
  CHECK(gpu < -0.05);  // missed, as documented
}

TEST_CASE("whatif accuracy: the replay of the DP step and the bundled sample is within 5 %", "[whatif][accuracy]") {
  for (const ReplayRow& r : {ReplayRow{"dp_step", -0.004, -0.005}, ReplayRow{"sample", 0.000, -0.002}}) check_replay(r);
}

TEST_CASE("whatif accuracy: predictions from the default-channel serial captures are within 10 %", "[whatif][accuracy][predict]") {
  check_pairs("tp_serial_b1", {{"tp_overlap_b1", kSide, -0.054}, {"tp_serial_b4", kSplit4, -0.024}, {"tp_serial_b1_nch4", kChannels4, -0.005}});
  check_pairs("tp_serial_b4", {{"tp_serial_b1", kMerge4, 0.009}, {"tp_serial_b4_nch4", kChannels4, -0.015}});
}

TEST_CASE("whatif accuracy: predictions from the default-channel overlap captures are within 10 %", "[whatif][accuracy][predict]") {
  check_pairs("tp_overlap_b1", {{"tp_serial_b1", kSerial, 0.007}, {"tp_overlap_b4", kSplit4, 0.032}, {"tp_overlap_b1_nch4", kChannels4, -0.010}});
  check_pairs("tp_overlap_b4", {{"tp_overlap_b4_nch4", kChannels4, 0.027}});
}

TEST_CASE("whatif accuracy: predictions within the 4-channel captures are within 10 %", "[whatif][accuracy][predict]") {
  check_pairs("tp_serial_b1_nch4", {{"tp_overlap_b1_nch4", kSide, -0.064}});
  check_pairs("tp_overlap_b1_nch4", {{"tp_serial_b1_nch4", kSerial, -0.065}, {"tp_overlap_b4_nch4", kSplit4, -0.051}});
  check_pairs("tp_overlap_b4_nch4", {{"tp_overlap_b1_nch4", kMerge4, 0.046}});
}
