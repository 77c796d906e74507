// Each transform on a hand-made 2-rank graph whose timelines are worked out in the comments
// (microseconds). The graph, per rank: a host thread launching C1 (GEMM, 100 us), A (all-reduce,
// 50 000 bytes = 50 us in the fixture's 1 GB/s stand-in model, holding 20 of 100 SMs), C2 (GEMM,
// 100 us), C3 (elementwise, 100 us), each 5 us after its launch call (at 0, 2, 4, 6), then a
// device synchronize that returns 2 us after C3. Interference 0.25: compute beside the
// all-reduce runs at 80/100 / 1.25 = 0.64.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "sim/platform.h"
#include "sim/simulation.h"
#include "sim/whatif/comm_model.h"
#include "sim/whatif/machine.h"
#include "sim/whatif/transforms.h"
#include "test_paths.h"
#include "trace/core/topology_presets.h"
#include "whatif/graph_fixture.h"

using namespace parascope;
using namespace parascope::whatif;
using parascope::test::GraphFixture;
using parascope::test::us;

namespace {

struct Tp {
  GraphFixture f{2};
  std::vector<uint32_t> c1, a, c2, c3, sync, stream;
  Tp() {
    std::vector<uint32_t> members;
    for (int r = 0; r < 2; ++r) {
      const uint32_t h = f.thread(r, 100 + r), s = f.stream(r, 7);
      stream.push_back(s);
      uint32_t l[4];
      for (int i = 0; i < 4; ++i) l[i] = f.node(h, NodeType::kHostCall, "launch", 2 * i, 1);
      for (int i = 1; i < 4; ++i) f.g.nodes[l[i]].gap = 1000;
      const uint32_t sy = f.node(h, NodeType::kHostCall, "cudaDeviceSynchronize", 8, 400);
      f.g.nodes[sy].gap = 1000;
      f.g.nodes[sy].work = 1000;
      f.g.nodes[sy].blocking = true;
      c1.push_back(f.node(s, NodeType::kCompute, "nvjet_gemm_a", 10, 100));
      a.push_back(f.node(s, NodeType::kCollective, "ncclDevKernel_AllReduce", 110, 50));
      c2.push_back(f.node(s, NodeType::kCompute, "nvjet_gemm_b", 160, 100));
      c3.push_back(f.node(s, NodeType::kCompute, "vectorized_elementwise_kernel", 260, 100));
      const uint32_t gpu[4] = {c1.back(), a.back(), c2.back(), c3.back()};
      for (int i = 0; i < 4; ++i) f.edge(l[i], gpu[i], EdgeKind::kLaunch, EdgeTiming::kStartToStart, 5);
      f.edge(c3.back(), sy, EdgeKind::kHostSync, EdgeTiming::kFinishToFinish, 2);
      sync.push_back(sy);
      members.push_back(a.back());
    }
    f.group(CollectiveOp::kAllReduce, 50'000, members);
  }
  ReplayResult run() {
    ReplayConfig cfg;
    cfg.comm_interference = 0.25;
    return replay(f.g, f.work_by_bytes(20), cfg);
  }
};

const CommSelector kAllReduce = CommSelector::from_knob("allreduce");

}  // namespace

TEST_CASE("transforms: the unchanged graph replays serially", "[whatif][transforms]") {
  Tp tp;
  const ReplayResult r = tp.run();
  // C1 5..105, A 105..155, C2 155..255, C3 255..355; sync: 8 .. 355 + 2
  for (int rank = 0; rank < 2; ++rank) {
    CHECK(us(r.end[tp.c1[rank]]) == 105);
    CHECK(us(r.end[tp.a[rank]]) == 155);
    CHECK(us(r.end[tp.c3[rank]]) == 355);
    CHECK(us(r.end[tp.sync[rank]]) == 357);
  }
}

TEST_CASE("transforms: move a collective to a side stream", "[whatif][transforms]") {
  Tp tp;
  CHECK(move_collectives_to_side_stream(tp.f.g, kAllReduce) == "moved 2 collective members to a side stream");
  CHECK(tp.f.g.nodes[tp.a[0]].lane != tp.stream[0]);
  const ReplayResult r = tp.run();
  // A waits for C1 (event): 105..155 on the side stream. C2 starts at 105 beside it: 50 us at 0.64
  // = 32 us done by 155, 68 left: ends 223. C3 223..323. The sync waits for C3 and A: 323 + 2.
  for (int rank = 0; rank < 2; ++rank) {
    CHECK(us(r.start[tp.a[rank]]) == 105);
    CHECK(us(r.end[tp.a[rank]]) == 155);
    CHECK(us(r.start[tp.c2[rank]]) == 105);
    CHECK(us(r.end[tp.c2[rank]]) == Approx(223).margin(0.002));
    CHECK(us(r.end[tp.c3[rank]]) == Approx(323).margin(0.002));
    CHECK(us(r.end[tp.sync[rank]]) == Approx(325).margin(0.002));
  }
  SECTION("and back: serialised in launch order it replays as before") {
    CHECK(serialize_collectives(tp.f.g, kAllReduce) == "serialised 2 collective members on the compute stream");
    const auto& lane = tp.f.g.lanes[tp.stream[0]].nodes;
    REQUIRE(lane.size() == 4);
    CHECK(lane[1] == tp.a[0]);  // launched at 2, between C1 (0) and C2 (4)
    const ReplayResult s = tp.run();
    CHECK(us(s.end[tp.c3[0]]) == 355);
    CHECK(us(s.end[tp.sync[1]]) == 357);
  }
  SECTION("an all-gather selector moves nothing") {
    Tp other;
    CHECK(move_collectives_to_side_stream(other.f.g, CommSelector::from_knob("allgather")).empty());
  }
}

TEST_CASE("transforms: split a collective into buckets, merge them back", "[whatif][transforms]") {
  Tp tp;
  CHECK(split_collectives(tp.f.g, kAllReduce, 2) == "split 1 collective into 2 buckets each");
  REQUIRE(tp.f.g.groups.size() == 2);
  CHECK(tp.f.g.groups[0].spec.bytes == 25'000);
  CHECK(tp.f.g.groups[1].spec.bytes == 25'000);
  const auto& lane = tp.f.g.lanes[tp.stream[0]].nodes;
  REQUIRE(lane.size() == 5);
  CHECK(tp.f.g.name_of(tp.f.g.nodes[lane[2]]) == "ncclDevKernel_AllReduce [2/2]");
  const ReplayResult r = tp.run();
  // buckets 105..130 and 130..155 back to back: C2 155..255, C3 255..355 as before
  CHECK(us(r.end[lane[1]]) == 130);
  CHECK(us(r.end[lane[2]]) == 155);
  CHECK(us(r.end[tp.c3[0]]) == 355);
  SECTION("merged again: one 50 000-byte collective") {
    CHECK(merge_collectives(tp.f.g, kAllReduce, 4) == "merged 2 collectives into 1 bucket");
    CHECK(tp.f.g.lanes[tp.stream[0]].nodes.size() == 4);
    size_t live = 0;
    for (const CommGroup& g : tp.f.g.groups) live += !g.members.empty();
    CHECK(live == 1);
    CHECK(tp.f.g.nodes[tp.a[0]].removed);  // the first bucket went into the last one
    const ReplayResult m = tp.run();
    CHECK(us(m.end[tp.c3[1]]) == 355);
    CHECK(m.warnings.empty());
  }
}

TEST_CASE("transforms: speed up a class of kernels", "[whatif][transforms]") {
  Tp tp;
  CHECK(kernel_class_of("nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NNT") == KernelClass::kGemm);
  CHECK(kernel_class_of("void at::native::vectorized_elementwise_kernel<8, GeluCUDAKernelImpl>") == KernelClass::kElementwise);
  CHECK(kernel_class_of("flash_fwd_kernel") == KernelClass::kAttention);
  CHECK(scale_kernels(tp.f.g, KernelClass::kGemm, 0.5) == "scaled 4 kernels by 0.5");
  const ReplayResult r = tp.run();
  // C1 5..55, A 55..105, C2 105..155, C3 (not a GEMM) 155..255, sync 257
  CHECK(us(r.end[tp.c1[0]]) == 55);
  CHECK(us(r.end[tp.c2[0]]) == 155);
  CHECK(us(r.end[tp.c3[0]]) == 255);
  CHECK(us(r.end[tp.sync[0]]) == 257);
}

TEST_CASE("transforms: scale 2 -> 8 GPUs by data- and tensor-parallel rules", "[whatif][transforms][scale]") {
  SECTION("data-parallel: same work, the all-reduce spans all 8") {
    Tp tp;
    const size_t nodes = tp.f.g.nodes.size();
    CHECK(scale_out(tp.f.g, 8, Parallelism::kData) == "scaled 2 -> 8 GPUs (data-parallel)");
    CHECK(tp.f.g.nodes.size() == 4 * nodes);
    CHECK(tp.f.g.devices.size() == 8);
    REQUIRE(tp.f.g.groups.size() == 1);
    CHECK(tp.f.g.groups[0].members.size() == 8);
    CHECK(tp.f.g.groups[0].spec.gpus == std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7});
    CHECK(tp.f.g.groups[0].spec.bytes == 50'000);
    const ReplayResult r = tp.run();
    // every copy replays like the original (the stand-in model does not depend on group size)
    for (uint32_t s : tp.f.g.lanes.back().nodes) CHECK(r.end[s] >= 0);
    CHECK(us(r.last - r.first) == 357);
    CHECK(r.warnings.empty());
  }
  SECTION("tensor-parallel: compute shrinks by 2/8") {
    Tp tp;
    scale_out(tp.f.g, 8, Parallelism::kTensor);
    CHECK(us(tp.f.g.nodes[tp.c1[0]].work) == 25);
    CHECK(tp.f.g.groups[0].members.size() == 8);
  }
  SECTION("not a multiple of the traced GPUs") {
    Tp tp;
    CHECK_THROWS_AS(scale_out(tp.f.g, 3, Parallelism::kData), std::invalid_argument);
  }
}

TEST_CASE("transforms: fuse an all-gather with its GEMM", "[whatif][transforms][fuse]") {
  GraphFixture f(2);
  std::vector<uint32_t> ag, gemm;
  for (int r = 0; r < 2; ++r) {
    const uint32_t s = f.stream(r, 7);
    ag.push_back(f.node(s, NodeType::kCollective, "ncclDevKernel_AllGather", 0, 40));
    gemm.push_back(f.node(s, NodeType::kCompute, "nvjet_sm90_gemm", 40, 100));
  }
  f.group(CollectiveOp::kAllGather, 8 * 1024 * 1024, ag);
  // shard (m / 2) k x 2 bytes = 8 MiB with k = 4096: m = 2048; 100 us at 1e15 FLOP/s = 1e11 FLOP
  // = 2 m n k: n = 1e11 / (2 x 2048 x 4096) = 5960.5 -> 5960
  CHECK(fuse_gemm_collectives(f.g, true, false, 1e15, 2) == "fused 1 collective with their GEMMs");
  const CommSpec& s = f.g.groups[0].spec;
  CHECK(s.fused_allgather_first);
  CHECK(s.gemm_m == 2048);
  CHECK(s.gemm_k == 4096);
  CHECK(s.gemm_n == 5960);
  CHECK(f.g.nodes[ag[0]].kind == NodeType::kFused);
  CHECK(f.g.nodes[gemm[1]].removed);
  CHECK(f.g.lanes[0].nodes.size() == 1);
  const sim::KnobSettings defaults;
  const sim::WorkloadStep step = workload_step_for(s, defaults, nullptr);
  CHECK(step.op == "allgather_gemm");

  SECTION("timed by the simulator's fused model on the measured 2 x H200") {
    // Re-fuse at the preset's 695 TFLOP/s so the model's unfused GEMM lasts the measured 100 us.
    GraphFixture h(2);
    std::vector<uint32_t> ag2;
    for (int r = 0; r < 2; ++r) {
      const uint32_t st = h.stream(r, 7);
      ag2.push_back(h.node(st, NodeType::kCollective, "ncclDevKernel_AllGather", 0, 40));
      h.node(st, NodeType::kCompute, "nvjet_sm90_gemm", 40, 100);
    }
    h.group(CollectiveOp::kAllGather, 8 * 1024 * 1024, ag2);
    fuse_gemm_collectives(h.g, true, false, 695e12, 2);
    const Topology topo = find_topology("h200x2", test::source_path("resources/topologies"));
    const sim::Platform platform = sim::Platform::seal(topo);
    CommModel model(platform, "h200x2", defaults, nullptr);
    const auto t = model.timing(h.g.groups[0].spec);
    REQUIRE(t->error.empty());
    // The GEMM runs on the 132 - 16 SMs the 16 communication SMs leave (100 x 132/116 = 113.8 us,
    // and the GPU's 5 % interference while they run); the 8 MiB all-gather hides under it, so the
    // fused kernel lasts more than the GEMM alone and less than GEMM + all-gather back to back.
    CHECK(us(t->duration) > 113.8);
    CHECK(us(t->duration) < 140);
  }
}

TEST_CASE("comm model: the simulator's step for a traced collective", "[whatif][comm]") {
  CommSpec s;
  s.op = CollectiveOp::kAllReduce;
  s.bytes = 64.0 * 1024 * 1024;
  s.gpus = {0, 1};
  sim::KnobSettings k;
  std::string why;
  SECTION("NCCL at its default channel count runs at the simulator's calibrated default") {
    s.channels = 24;
    const sim::WorkloadStep st = workload_step_for(s, k, &why);
    CHECK(st.op == "allreduce");
    CHECK_FALSE(st.knobs.is_set("channels"));
  }
  SECTION("a limited NCCL (NCCL_MAX_NCHANNELS=4) keeps its count; the knob wins over both") {
    s.channels = 4;
    sim::WorkloadStep st = workload_step_for(s, k, &why);
    CHECK((st.knobs.is_set("channels") && st.knobs.get_int("channels") == 4));
    k.set("channels", "8");
    st = workload_step_for(s, k, &why);
    CHECK((st.knobs.is_set("channels") && st.knobs.get_int("channels") == 8));
  }
  SECTION("an algorithm the op does not have is left out, with the reason") {
    s.op = CollectiveOp::kAllGather;
    k.set("algorithm", "tree");
    const sim::WorkloadStep st = workload_step_for(s, k, &why);
    CHECK(st.op == "allgather");
    CHECK(why == "algorithm=tree does not apply to allgather: ring used");
  }
  SECTION("no size: not simulated") {
    s.bytes = 0;
    CHECK(workload_step_for(s, k, &why).op.empty());
    CHECK(why == "no size");
  }
}

TEST_CASE("comm model: the same numbers as `simulate`, computed once", "[whatif][comm]") {
  const Topology topo = find_topology("h200x2", test::source_path("resources/topologies"));
  const sim::Platform platform = sim::Platform::seal(topo);
  const sim::KnobSettings k;
  CommModel model(platform, "h200x2", k, nullptr);
  CommSpec s;
  s.op = CollectiveOp::kAllReduce;
  s.bytes = 64.0 * 1024 * 1024;
  s.gpus = {0, 1};
  const auto t = model.timing(s);
  sim::SimulationInput in;
  in.topology = topo;
  sim::WorkloadStep step;
  step.op = "allreduce";
  step.knobs.set("bytes", "64MiB");
  step.knobs.set("gpus", "2");
  in.steps = {step};
  const sim::SimulationOutput out = sim::run_simulation(in);
  CHECK(t->duration == ps_to_ns(out.summary.makespan));
  CHECK(t->sms == 24);  // one SM per channel: the preset's NCCL profile runs NCCL's measured 24 channels
  CHECK(!t->resource_bytes.empty());
  CHECK(model.timing(s) == t);  // cached: the same object, no second simulation
  CHECK(model.simulations() == 1);
}

TEST_CASE("machine: the same GPUs on another fabric, or more of them", "[whatif][machine]") {
  const Topology base = find_topology("h200x2", test::source_path("resources/topologies"));
  SECTION("enough GPUs and fabric=trace: the given topology") {
    CHECK(machine_for(base, 2, Fabric::kTrace, 8).name == "h200x2");
  }
  SECTION("8 GPUs on one NVSwitch with the measured GPU spec") {
    const Topology t = machine_for(base, 8, Fabric::kTrace, 8);
    CHECK(t.gpu_count() == 8);
    CHECK(t.calibration == Calibration::kDatasheet);
    CHECK(t.nodes[static_cast<size_t>(t.gpu_node(5))].gpu->sm_count == 132);
    CHECK(gpu_nvlink_bandwidth(t, 5) == Approx(478.1e9));
  }
  SECTION("16 GPUs: two nodes joined by InfiniBand") {
    const Topology t = machine_for(base, 16, Fabric::kTrace, 8);
    CHECK(t.gpu_count() == 16);
    int ib = 0;
    for (const TopoLink& l : t.links) ib += l.medium == Medium::kInfiniBand;
    CHECK(ib == 32);  // a rail link per NIC (2 nodes x 8) + each of the 8 rails to 2 spines
  }
  SECTION("PCIe instead of NVLink") {
    const Topology t = machine_for(base, 2, Fabric::kPcie, 8);
    for (const TopoLink& l : t.links) CHECK(l.medium == Medium::kPcie);
  }
  SECTION("GPUs that do not fill nodes") {
    CHECK_THROWS_AS(machine_for(base, 12, Fabric::kCluster, 8), std::invalid_argument);
  }
}

TEST_CASE("transforms: pipeline scale-out copies each rank's groups", "[whatif][transforms][scale]") {
  Tp tp;
  CHECK(scale_out(tp.f.g, 8, Parallelism::kPipeline) == "scaled 2 -> 8 GPUs (pipeline-parallel)");
  // a pipeline stage's collectives stay inside its copy: 4 groups of 2, on GPUs 0-1, 2-3, 4-5, 6-7
  REQUIRE(tp.f.g.groups.size() == 4);
  for (size_t i = 0; i < 4; ++i)
    CHECK(tp.f.g.groups[i].spec.gpus == std::vector<int32_t>{static_cast<int32_t>(2 * i), static_cast<int32_t>(2 * i + 1)});
  CHECK(us(tp.f.g.nodes[tp.c1[0]].work) == 25);  // a quarter of the layers per stage
  const ReplayResult r = tp.run();
  CHECK(r.warnings.empty());
}

TEST_CASE("transforms: the backend's host time for each communication launch call", "[whatif][transforms]") {
  Tp tp;
  // each rank's second launch call (at 2 us, 1 us long) launches the all-reduce; at 30 us it ends
  // at 32, the next calls follow 1 us after it: C2's launch at 33..34 (C2 ready at 39, still after
  // the all-reduce's end at 105), so the GPU timeline is unchanged and the host's is 29 us later
  CHECK(set_comm_call_time(tp.f.g, CommSelector{}, 30'000) == "set the host time of 2 communication launch calls to 30 us");
  uint32_t launch = 0;
  for (const Edge& e : tp.f.g.edges)
    if (e.kind == EdgeKind::kLaunch && e.to == tp.a[0]) launch = e.from;
  CHECK(tp.f.g.nodes[launch].work == 30'000);
  const ReplayResult r = tp.run();
  CHECK(us(r.end[launch]) == 32);
  CHECK(us(r.end[tp.c3[0]]) == 355);
  // a selector that picks no collective changes nothing
  Tp other;
  CommSelector ag;
  ag.op = CollectiveOp::kAllGather;
  CHECK(set_comm_call_time(other.f.g, ag, 30'000).empty());
}
