// The pkb library's per-task analyses on the hand-built PKB loop (pkb_loop_trace.h): the timed
// loop, the cut, the operations and shapes, where the time goes, the bound and the design space.
#include <catch2/catch.hpp>

#include "pkb/report/task_report.h"
#include "pkb/task/design_space.h"
#include "pkb/task/sim_adapter.h"
#include "pkb/task/task_bound.h"
#include "pkb/task/task_breakdown.h"
#include "pkb/task/task_ops.h"
#include "pkb/task/task_window.h"
#include "pkb_loop_trace.h"
#include "test_paths.h"
#include "trace/core/trace_cut.h"

using namespace parascope;
using namespace parascope::pkb;

namespace {
const std::string kPresets = test::source_path("resources/topologies");

// The fixture's timed loop as found whatever other events sit in it: event 0's create at 50000, its
// record ending at 50200, the last nccl ending at 170500, 4 iterations
void require_fixture_loop(const TaskWindow& w) {
  REQUIRE(w.found);
  CHECK(w.loop_host_start == 50000);
  CHECK(w.gpu_start == 50200);
  CHECK(w.gpu_end == 170500);
  REQUIRE(w.iterations.size() == 4);
}
}  // namespace

TEST_CASE("pkb: the timed loop of PKB's worker is found from its CUDA events") {
  const auto ex = test::make_pkb_loop_trace();
  const std::vector<TaskWindow> ws = find_task_windows(ex.trace, 100);
  REQUIRE(ws.size() == 1);
  // 5 elapsed-time calls where PKB's perf file said 100 iterations: the trace's count is used
  const TaskWindow& wrong = ws[0];
  CHECK(wrong.found);
  CHECK(wrong.iterations.size() == 4);
  CHECK(wrong.note == "5 elapsed-time calls, expected 101 (PKB's iterations + 1): the trace's count is used");

  const TaskWindow w = find_task_windows(ex.trace, 4).at(0);
  REQUIRE(w.found);
  CHECK(w.note.empty());
  CHECK(w.thread_track == ex.thread);
  CHECK(w.first_sync_end == 32000);     // the first after a launch: [4000, 32000), not the hook's [500, 600)
  CHECK(w.first_call_ops.size() == 2);  // gemm and nccl of the first call
  CHECK(w.loop_host_start == 50000);    // cudaEventCreateWithFlags of event 0
  CHECK(w.loop_end == 175500);          // the 5th cudaEventElapsedTime ends at 171200 + 4000 + 300
  CHECK(w.gpu_start == 50200);          // event 0's cudaEventRecord ends
  CHECK(w.gpu_end == 170500);           // iteration 3's nccl: 50500 + 90000 + 30000
  REQUIRE(w.iterations.size() == 4);
  CHECK(w.iterations[1].host_start == 70100);  // record 1 at h_1 + 100
  CHECK(w.iterations[1].host_end == 90100);
  CHECK(w.iterations[1].gpu_start == 80500);   // g_1 = 50500 + 30000
  CHECK(w.iterations[1].gpu_end == 110500);
  CHECK(w.iterations[1].gpu_ops.size() == 2);
  // without a count, the elapsed-time calls give it (5 - 1)
  CHECK(find_task_windows(ex.trace, 0).at(0).iterations.size() == 4);
}

TEST_CASE("pkb: c10d's own create/record/destroy events inside the loop are not PKB's iterations") {
  // without the destroy rule the last 5 create->record pairs before the elapsed-time calls would be
  // PKB's events 2-4 and c10d's of iterations 2 and 3: the window would start at h_2 = 90000
  const auto ex = test::make_pkb_loop_trace(true);
  const TaskWindow w = find_task_windows(ex.trace, 4).at(0);
  CHECK(w.note.empty());
  require_fixture_loop(w);  // event 0's create starts it, as without c10d's events
  CHECK(w.iterations[1].host_start == 70100);
  CHECK(w.iterations[1].host_end == 90100);
  CHECK(w.iterations[1].gpu_ops.size() == 2);
}

TEST_CASE("pkb: events a call keeps inside the loop are not PKB's iterations: every k-th record is") {
  // 9 kept records between the warm-up's synchronise and the loop's: PKB's 5 and one per call (4).
  // Taking the last 5 before the elapsed-time calls (the old rule) started the window at h_2:
  // 1/2 of the loop, as on 26 of PKB's tasks at world 1 on the H200
  for (const bool c10d : {false, true}) {
    const auto ex = test::make_pkb_loop_trace(c10d, 1);
    const TaskWindow w = find_task_windows(ex.trace, 4).at(0);
    CHECK(w.note == "2 kept event records per iteration between the loop's synchronises: every 2th is PKB's");
    require_fixture_loop(w);
    CHECK(w.iterations[1].host_start == 70100);
    CHECK(w.iterations[1].host_end == 90100);
    CHECK(w.iterations[1].gpu_ops.size() == 2);
  }
}

TEST_CASE("pkb: kept records that are not a fixed number per call: the whole loop, split by host time") {
  // 7 kept records between the synchronises (PKB's 5, iterations 0 and 2 one more each): not
  // 1 + a multiple of 4, so the loop runs from event 0 to event 4 and the boundaries are the
  // records nearest to h_0 + 100 + 20000 j - PKB's own, here. The last 5 records (the rule before)
  // started at iteration 1's record
  const auto ex = test::make_pkb_loop_trace(false, 2);
  const TaskWindow w = find_task_windows(ex.trace, 4).at(0);
  CHECK(w.note ==
        "7 kept event records between the loop's synchronises, not 1 + a multiple of 4: the loop from the first to the last, "
        "its iterations split by host time");
  require_fixture_loop(w);
  for (int k = 0; k < 4; ++k) {
    CHECK(w.iterations[k].host_start == 50100 + 20000 * k);
    CHECK(w.iterations[k].gpu_ops.size() == 2);
  }
}

TEST_CASE("pkb: a trace cut to the first call and the timed loop keeps both and drops the warm-up") {
  auto ex = test::make_pkb_loop_trace();
  const std::vector<TaskWindow> ws = find_task_windows(ex.trace, 4);
  const auto ranges = kept_ranges(ex.trace, ws);
  REQUIRE(ranges.size() == 2);
  CHECK(ranges[0] == std::pair<TimeNs, TimeNs>{500, 32000});     // first slice .. end of the first call's sync
  CHECK(ranges[1] == std::pair<TimeNs, TimeNs>{50000, 175500});  // event 0's create .. the last elapsed call
  const size_t flows = ex.trace.flows.size(), collectives = ex.trace.collectives.size();
  const Trace cut = cut_trace(std::move(ex.trace), ranges);
  // the warm-up's launch [32500, 32600), its gemm [33000, 43000) and sync [40000, 41000) are gone
  CHECK(cut.flows.size() == flows - 1);
  CHECK(cut.collectives.size() == collectives);
  CHECK(cut.tracks[1].slices.size() == 2 + 8);
  CHECK(cut.notes.back() == "cut to 2 time ranges: 50 slices kept, 3 left out");  // a note: no problem
  const TaskWindow w = find_task_windows(cut, 4).at(0);
  REQUIRE(w.found);
  CHECK(w.gpu_start == 50200);
  CHECK(w.gpu_end == 170500);
  CHECK(w.first_sync_end == 32000);
}

TEST_CASE("pkb: operations of an iteration, with shapes from the first call's NVTX op ranges") {
  const auto ex = test::make_pkb_loop_trace();
  const TaskWindow w = find_task_windows(ex.trace, 4).at(0);
  const SliceClassifier classify(ex.trace);
  const TaskOps ops = task_ops(ex.trace, w, classify, "bfloat16");
  CHECK(ops.iterations == 4);
  CHECK(ops.by_position);
  REQUIRE(ops.ops.size() == 2);
  CHECK(ops.ops[0].category == Category::kCompute);
  CHECK(ops.ops[0].count == 4);
  CHECK(ops.ops[0].mean_ns == 10000);
  REQUIRE(ops.ops[0].shape);
  CHECK(ops.ops[0].shape->op == "aten::mm");
  CHECK(ops.ops[0].shape->sizes == "[[1024, 512], [512, 1024]]");
  // 2 M N K = 2 x 1024 x 1024 x 512; bf16 bytes: A 1 MiB + B 1 MiB + C 2 MiB
  CHECK(ops.ops[0].shape->flops == 1073741824.0);
  CHECK(ops.ops[0].shape->hbm_bytes == 4194304.0);
  CHECK(ops.ops[0].shape->gemm);
  CHECK(ops.ops[0].shape->m == 1024);
  CHECK(ops.ops[0].shape->n == 1024);
  CHECK(ops.ops[0].shape->k == 512);
  CHECK(ops.ops[1].category == Category::kCommunication);
  CHECK(ops.ops[1].mean_ns == 20000);
  CHECK(ops.ops[1].collective == 0);
  REQUIRE(ops.collectives.size() == 1);
  const CollectiveUse& c = ops.collectives[0];
  CHECK(c.op == CollectiveOp::kAllReduce);
  CHECK(c.position == 1);
  CHECK(c.bytes == 2097152);        // 1 Mi elements x 2 bytes
  CHECK(c.input_bytes == 2097152);
  CHECK(c.wire_bytes == 2097152);   // x 2 (n - 1) / n = 1 on 2 ranks
  CHECK(c.group_size == 2);
  CHECK(ops.world == 2);
  CHECK(ops.flops == 1073741824.0);  // the collective's NVTX range is communication: not counted
  CHECK(ops.hbm_bytes == 4194304.0);
  CHECK(ops.with_shapes == 1);
  CHECK(ops.without_shapes == 0);
}

TEST_CASE("pkb: where an iteration goes, and the host's time per iteration") {
  const auto ex = test::make_pkb_loop_trace();
  const TaskWindow w = find_task_windows(ex.trace, 4).at(0);
  const TaskBreakdown b = task_breakdown(ex.trace, w, SliceClassifier(ex.trace));
  CHECK(b.iterations == 4);
  CHECK(b.device == 0);
  CHECK(b.window_ns == 30075);        // 120300 / 4
  CHECK(b.compute_ns == 10000);
  CHECK(b.comm_exposed_ns == 20000);
  CHECK(b.comm_hidden_ns == 0);
  CHECK(b.host_gap_ns == 75);         // 300 ns between event 0 and the first gemm, / 4
  CHECK(b.memory_ns == 0);
  CHECK(b.host_ns == 20000);
  CHECK(b.busy_ns() == 30000);
}

TEST_CASE("pkb: the communication-aware bound on the 2 x H200") {
  const auto ex = test::make_pkb_loop_trace();
  const TaskWindow w = find_task_windows(ex.trace, 4).at(0);
  const TaskOps ops = task_ops(ex.trace, w, SliceClassifier(ex.trace), "bfloat16");
  const Topology h200x2 = load_machine("h200x2", kPresets);
  std::vector<Topology> presets;
  for (const auto& n : machine_presets(kPresets)) presets.push_back(load_machine(n, kPresets));
  const RooflineCeilings c = ceilings_with_datasheet(h200x2, presets);
  // h200x2.json: kernel_latency_ns 1023.2000052928925, signal_latency_ns 1571.3816334510502,
  // GPU-switch links 350 ns (route 700 ns < the signal): floor = 2594.58... ns
  const double floor = (1023.2000052928925 + 1571.3816334510502) * 1e-9;
  CHECK(collective_latency_floor_s(h200x2) == Approx(floor).epsilon(1e-12));
  const TaskBound b = task_bound(ops, 30.075e-6, h200x2, c, "bfloat16");
  CHECK(b.compute_s == Approx(1073741824.0 / c.bf16_flops));
  CHECK(b.hbm_s == Approx(4194304.0 / c.hbm_bytes_per_s));
  CHECK(b.link_latency_s == Approx(floor));
  CHECK(b.link_bytes_s == Approx(2097152.0 / c.link_bytes_per_s));
  // the datasheet H200 (hgx_h200x8) raises compute to 989 TFLOP/s; the measured NVLink is 478.1 GB/s:
  // compute 1.086 us, HBM 0.806 us, link 2.595 + 4.386 = 6.981 us: the link binds
  CHECK(c.bf16_flops == Approx(989e12));
  CHECK(c.link_bytes_per_s == Approx(478.1e9));
  CHECK(b.link_s == Approx(6.981e-6).epsilon(1e-3));
  CHECK(b.binds == Resource::kLink);
  CHECK(b.bound_s == b.link_s);
  CHECK(b.gap == Approx(30.075e-6 / b.link_s));
  CHECK(b.note.empty());
}

TEST_CASE("pkb: the design space of the all-reduce, floored by the host") {
  const auto ex = test::make_pkb_loop_trace();
  const TaskWindow w = find_task_windows(ex.trace, 4).at(0);
  const TaskOps ops = task_ops(ex.trace, w, SliceClassifier(ex.trace), "bfloat16");
  const Topology h200x2 = load_machine("h200x2", kPresets);
  const double ref = 30.075e-6, host = 20e-6;
  const DesignSpace ds = explore_designs(ops, ref, host, h200x2, collective_latency_floor_s(h200x2));
  REQUIRE(ds.targets.size() == 1);  // an all-reduce has no fused model: no second target
  CHECK(ds.targets[0].label == "all-reduce #1, 2.10 MB on 2 ranks");
  CHECK(ds.targets[0].measured_s == Approx(20e-6));
  CHECK(ds.note == "all-reduce #1, 2.10 MB on 2 ranks: no fused GEMM + all-reduce model (overlap not explored)");
  // NCCL ring, then one_shot and two_shot x (4 SM mechanisms x 3 SM counts + the copy engine)
  CHECK(ds.designs.size() == 1 + 2 * (4 * 3 + 1));
  const DesignTarget& t = ds.targets[0];
  REQUIRE(t.nccl >= 0);
  REQUIRE(t.best >= 0);
  const Design& nccl = ds.designs[static_cast<size_t>(t.nccl)];
  CHECK(nccl.ok);
  CHECK(nccl.request.spec() == "allreduce:gpus=2,bytes=2097152,dtype_bytes=2,algorithm=ring");
  const Design& best = ds.designs[static_cast<size_t>(t.best)];
  int ok = 0;
  for (const Design& d : ds.designs) {
    if (!d.ok) continue;
    ++ok;
    CHECK(best.task_s <= d.task_s);
    // PKB's time - the measured all-reduce + the prediction, never below the host's 20 us
    CHECK(d.task_s == Approx(std::max(host, ref - 20e-6 + d.predicted_s)));
  }
  CHECK(ok > 10);
  CHECK(ds.best_task_s == Approx(std::max(host, ref - 20e-6 + std::min(best.predicted_s, 20e-6))));
  CHECK(ds.best_speedup == Approx(ref / ds.best_task_s));
  // one rank: nothing to design
  TaskOps one = ops;
  one.collectives[0].group_size = 1;
  one.world = 1;
  const DesignSpace none = explore_designs(one, ref, host, h200x2, 0);
  CHECK(none.designs.empty());
  CHECK(none.note == "one rank: nothing crosses a link, no communication to design");
  CHECK(none.best_speedup == 1);
}

TEST_CASE("pkb: a fused all-gather + GEMM design when a GEMM follows the all-gather") {
  TaskOps ops;
  ops.iterations = 1;
  IterationOp ag;
  ag.name = "ncclDevKernel_AllGather_RING_LL";
  ag.category = Category::kCommunication;
  ag.mean_ns = 15000;
  ag.collective = 0;
  IterationOp gemm;
  gemm.name = "nvjet_gemm";
  gemm.category = Category::kCompute;
  gemm.mean_ns = 12000;
  OpShape sh;
  sh.op = "aten::mm";
  sh.sizes = "[[1024, 512], [512, 1024]]";
  compute_op_work(sh, "bfloat16");
  gemm.shape = sh;
  ops.ops = {ag, gemm};
  CollectiveUse u;
  u.op = CollectiveOp::kAllGather;
  u.position = 0;
  u.dtype_bytes = 2;
  u.in_elements = 1024 * 256;
  u.out_elements = 1024 * 512;
  u.input_bytes = 1024 * 256 * 2;  // A_local of PKB task 12 on 2 ranks: [1024, 256] bf16
  u.bytes = 1024 * 512 * 2;
  u.group_size = 2;
  u.mean_ns = 15000;
  ops.collectives = {u};
  ops.world = 2;
  const Topology h200x2 = load_machine("h200x2", kPresets);
  const DesignSpace ds = explore_designs(ops, 40e-6, 0, h200x2, collective_latency_floor_s(h200x2));
  REQUIRE(ds.targets.size() == 2);
  CHECK(ds.targets[1].label == "all-gather #1 + GEMM 1024x1024x512");
  CHECK(ds.targets[1].positions == std::vector<int>{0, 1});
  CHECK(ds.targets[1].measured_s == Approx(27e-6));
  int fused = 0;
  for (const Design& d : ds.designs)
    if (d.fused) {
      ++fused;
      // every rank multiplies the gathered [1024, 512] A by B [512, 1024]: the model's n is 2 x 1024
      CHECK(d.request.op == "allgather_gemm");
      CHECK(d.request.spec().find("gemm_m=1024,gemm_n=2048,gemm_k=512") != std::string::npos);
    }
  CHECK(fused == 3 * (3 + 1) * 3);  // ce, tma, ldst x (inter-SM on 8, 16, 32 SMs + intra-SM) x 3 chunk sizes
}

TEST_CASE("pkb: on a one-GPU recording the reference's collectives are NCCL's as modelled") {
  // record --world N: the stand-in's all-reduce is a zero-length kernel; PKB's time is compute only
  const auto ex = test::make_pkb_loop_trace();
  const TaskWindow w = find_task_windows(ex.trace, 4).at(0);
  TaskOps ops = task_ops(ex.trace, w, SliceClassifier(ex.trace), "bfloat16");
  ops.ops[1].name = "stand-in all_reduce bf16";
  ops.ops[1].mean_ns = 0;
  ops.collectives[0].mean_ns = 0;
  const Topology h200x2 = load_machine("h200x2", kPresets);
  const double ref = 10.075e-6, host = 60e-6;  // the stand-in's Python calls: a host time no real run has
  const DesignSpace ds = explore_designs(ops, ref, host, h200x2, collective_latency_floor_s(h200x2));
  const DesignTarget& t = ds.targets.at(0);
  const Design& nccl = ds.designs[static_cast<size_t>(t.nccl)];
  REQUIRE(nccl.ok);
  CHECK(t.measured_s == Approx(nccl.predicted_s));
  CHECK(ds.reference_s == Approx(ref + nccl.predicted_s));
  const Design& best = ds.designs[static_cast<size_t>(t.best)];
  // no host floor: the best is the measured compute plus the best design's prediction
  CHECK(best.task_s == Approx(ref + best.predicted_s));
  CHECK(ds.best_task_s == Approx(ref + std::min(best.predicted_s, nccl.predicted_s)));
  CHECK(ds.best_speedup == Approx(ds.reference_s / ds.best_task_s));
  CHECK(ds.note.find("one-GPU recording: collectives not run") != std::string::npos);
}
