// The dependency graph: edge counts on the real 2 x H200 traces against counts made independently
// from the raw JSON (Python, below), and hand-built traces for inference, cycles, unmatched
// collectives, clock skew and steps.
//
// Independent counts (per trace, both ranks), from the Kineto files with Python's json module:
//   launch     = GPU ops (kernel, gpu_memcpy, gpu_memset) whose correlation id has a
//                cuda_runtime/cuda_driver event
//   host sync  = for each cudaDeviceSynchronize, the streams with a GPU op launched before it
//                (the last one ending no later than the call)
//   groups     = annotated collective kernels / 2, SendRecv kernels / 2
//   sample:      48 GPU ops, 48 launch, 248 API calls, 16 host sync, 6 annotated, 6 SendRecv
//   tp_serial_b1: 96 GPU ops, 96 launch, 724 API calls, 10 host sync, 24 annotated
#include <catch2/catch.hpp>

#include "sim/whatif/dep_graph.h"
#include "sim/whatif/replay.h"
#include "test_paths.h"
#include "trace/core/trace_builder.h"
#include "trace/io/load_trace.h"

using namespace parascope;
using namespace parascope::whatif;

namespace {

uint64_t edges(const DepGraph& g, EdgeKind k) { return g.diagnostics.edges_by_kind[static_cast<int>(k)]; }

size_t count_nodes(const DepGraph& g, bool host) {
  size_t n = 0;
  for (const Node& node : g.nodes) n += (node.kind == NodeType::kHostCall) == host;
  return n;
}

// Two ranks, one GPU each; a CPU thread and streams 7 and 17 per rank. Times in microseconds.
struct HandTrace {
  TraceBuilder b;
  uint32_t proc[2] = {}, thread[2] = {}, s7[2] = {}, s17[2] = {};
  uint32_t corr = 1;
  explicit HandTrace(int ranks = 2) {
    for (int r = 0; r < ranks; ++r) {
      Process p;
      p.rank = r;
      p.name = "rank " + std::to_string(r);
      proc[r] = b.add_process(p);
      Device d;
      d.process = proc[r];
      d.ordinal = 0;
      d.sm_count = 132;
      const auto dev = static_cast<int32_t>(b.add_device(d));
      thread[r] = b.track({TrackKind::kCpuThread, proc[r], -1, 1}, "thread");
      s7[r] = b.track({TrackKind::kGpuStream, proc[r], dev, 7}, "stream 7");
      s17[r] = b.track({TrackKind::kGpuStream, proc[r], dev, 17}, "stream 17");
    }
  }
  EventRef api(int r, const std::string& name, double start, double dur) {
    return b.add_slice(thread[r], static_cast<TimeNs>(start * 1000), static_cast<TimeNs>(dur * 1000), b.intern(name),
                       b.add_api_call(ApiInfo{corr++, 0, 0}));
  }
  // A kernel launched by a cudaLaunchKernel call at `launch`.
  EventRef kernel(int r, uint32_t stream_track, const std::string& name, double launch, double start, double dur) {
    const EventRef a = api(r, "cudaLaunchKernel", launch, 1);
    KernelInfo k;
    k.correlation = corr - 1;
    const EventRef e = b.add_slice(stream_track, static_cast<TimeNs>(start * 1000), static_cast<TimeNs>(dur * 1000), b.intern(name),
                                   b.add_kernel(k));
    b.add_flow(a, e, FlowKind::kLaunch);
    return e;
  }
  void collective(int r, EventRef kernel, CollectiveOp op) {
    CollectiveInfo c;
    c.op = op;
    c.in_elements = c.out_elements = 1 << 20;
    c.dtype_bytes = 2;
    c.group_size = 2;
    c.group = b.intern("0");
    c.rank = r;
    c.kernel = kernel;
    b.add_collective(c);
  }
};

}  // namespace

TEST_CASE("graph of the bundled sample: counts made independently from its JSON", "[whatif][graph][sample]") {
  const Trace t = load_trace({test::sample_path("allreduce_matmul_2xh200")});
  const DepGraph g = build_dep_graph(t);
  CHECK(count_nodes(g, false) == 48);
  CHECK(count_nodes(g, true) == 248);
  CHECK(edges(g, EdgeKind::kLaunch) == 48);
  CHECK(edges(g, EdgeKind::kHostSync) == 16);
  CHECK(edges(g, EdgeKind::kCollective) == 3);  // 3 all-reduces matched by order
  CHECK(edges(g, EdgeKind::kSendRecv) == 3);    // 3 SendRecv kernels matched by name
  CHECK(g.diagnostics.groups == 6);
  CHECK(g.diagnostics.complete_groups == 6);
  CHECK(g.diagnostics.matched_by_order == 3);
  CHECK(g.diagnostics.matched_by_name == 3);
  CHECK(g.diagnostics.unmatched.empty());
  CHECK(g.diagnostics.unsized_comm == 0);
  CHECK(g.diagnostics.cycles.empty());
  // the send/recv size comes from PyTorch's record_param_comms: 1 048 576 floats = 4 MiB
  size_t sendrecv = 0;
  for (const CommGroup& grp : g.groups)
    if (grp.spec.op == CollectiveOp::kSendRecv) {
      ++sendrecv;
      CHECK(grp.spec.bytes == 4.0 * 1024 * 1024);
    }
  CHECK(sendrecv == 3);
  REQUIRE(g.steps.size() == 3);
  CHECK(g.steps[0].name == "ProfilerStep#2");
  CHECK(g.steps[2].name == "ProfilerStep#4");
  // every inferred edge agrees with the measured times (refuted ones are dropped and counted)
  for (const Edge& e : g.edges)
    if (e.inferred && e.timing == EdgeTiming::kFinishToStart)
      CHECK(g.nodes[e.to].start + 1000 >= g.nodes[e.from].start + g.nodes[e.from].dur);
}

TEST_CASE("graph of a captured tensor-parallel step: counts, channels, one-wave GEMMs", "[whatif][graph][captures]") {
  const Trace t = load_trace({test::source_path("resources/captures/h200x2_2026-11-30/tp_serial_b1")});
  const DepGraph g = build_dep_graph(t);
  CHECK(count_nodes(g, false) == 96);
  CHECK(count_nodes(g, true) == 724);
  CHECK(edges(g, EdgeKind::kLaunch) == 96);
  CHECK(edges(g, EdgeKind::kHostSync) == 10);
  CHECK(edges(g, EdgeKind::kCollective) == 12);  // all-gather, reduce-scatter, all-reduce x 4 steps
  CHECK(edges(g, EdgeKind::kEventWait) == 0);    // one stream per rank: nothing to wait for
  REQUIRE(g.steps.size() == 4);
  CHECK(g.steps[0].name == "ProfilerStep#3");
  size_t one_wave = 0;
  for (const Node& n : g.nodes) one_wave += n.fills_gpu;
  CHECK(one_wave == 32);  // the nvjet GEMMs: grid 2 x 66 = 132 blocks of 384 threads, 1 per SM
  for (const CommGroup& grp : g.groups) {
    CHECK(grp.spec.channels == 24);  // NCCL's grid: one block per channel
    if (grp.spec.op == CollectiveOp::kAllGather) CHECK(grp.spec.bytes == 32.0 * 1024 * 1024);  // per-rank input
    if (grp.spec.op == CollectiveOp::kAllReduce) CHECK(grp.spec.bytes == 64.0 * 1024 * 1024);
  }
}

TEST_CASE("graph: an event wait is inferred from the call order, and refuted by the times", "[whatif][graph][events]") {
  for (const bool consistent : {true, false}) {
    HandTrace h(1);
    h.kernel(0, h.s7[0], "producer", 0, 10, 100);
    h.api(0, "cudaEventRecord", 2, 0.5);
    h.api(0, "cudaStreamWaitEvent", 3, 0.5);
    h.kernel(0, h.s17[0], "consumer", 4, consistent ? 110 : 50, 40);
    const Trace t = h.b.finish();
    const DepGraph g = build_dep_graph(t);
    if (consistent) {
      REQUIRE(edges(g, EdgeKind::kEventWait) == 1);
      for (const Edge& e : g.edges)
        if (e.kind == EdgeKind::kEventWait) {
          CHECK(g.name_of(g.nodes[e.from]) == "producer");
          CHECK(g.name_of(g.nodes[e.to]) == "consumer");
          CHECK(e.inferred);
        }
      CHECK(g.diagnostics.contradicted_edges == 0);
    } else {
      // the consumer started at 50, before the producer ended at 110: no such dependency
      CHECK(edges(g, EdgeKind::kEventWait) == 0);
      CHECK(g.diagnostics.contradicted_edges == 1);
    }
  }
}

TEST_CASE("graph: a device synchronize waits for the last op of every stream", "[whatif][graph][host]") {
  HandTrace h(1);
  h.kernel(0, h.s7[0], "a", 0, 10, 100);
  h.kernel(0, h.s17[0], "b", 1, 10, 150);
  h.api(0, "cudaDeviceSynchronize", 5, 160);
  h.kernel(0, h.s7[0], "after", 200, 205, 10);  // launched after the call: not waited for
  const Trace t = h.b.finish();
  const DepGraph g = build_dep_graph(t);
  CHECK(edges(g, EdgeKind::kHostSync) == 2);
  for (const Node& n : g.nodes)
    if (g.name_of(n) == "cudaDeviceSynchronize") {
      CHECK(n.blocking);
      CHECK(n.work == 1000);  // it waited: only the call's own cost is work
    }
  // the wake-up: the call returned at 165, the last op (b) ended at 160: 5 us
  for (const Edge& e : g.edges)
    if (e.kind == EdgeKind::kHostSync) CHECK(e.lag == 5000);
}

TEST_CASE("graph: a collective missing on one rank is reported unmatched", "[whatif][graph][collectives]") {
  HandTrace h;
  h.collective(0, h.kernel(0, h.s7[0], "ncclDevKernel_AllReduce", 0, 10, 50), CollectiveOp::kAllReduce);
  h.collective(0, h.kernel(0, h.s7[0], "ncclDevKernel_AllReduce", 1, 100, 50), CollectiveOp::kAllReduce);
  h.collective(1, h.kernel(1, h.s7[1], "ncclDevKernel_AllReduce", 0, 10, 50), CollectiveOp::kAllReduce);
  const Trace t = h.b.finish();
  const DepGraph g = build_dep_graph(t);
  CHECK(g.diagnostics.groups == 2);
  CHECK(g.diagnostics.complete_groups == 1);
  REQUIRE(g.diagnostics.unmatched.size() == 1);
  CHECK(g.diagnostics.unmatched[0].reason == "rank 1 missing");
  CHECK(g.nodes[g.diagnostics.unmatched[0].node].start == 100'000);
  bool warned = false;
  for (const std::string& w : g.diagnostics.warnings) warned |= w.find("1 communication kernels could not be matched") == 0;
  CHECK(warned);
}

TEST_CASE("graph: clock skew between ranks is measured on collective ends", "[whatif][graph][skew]") {
  HandTrace h;
  // rank 1's member begins at 3000 us, 1.9 ms after rank 0's ended at 1100: impossible on one clock
  h.collective(0, h.kernel(0, h.s7[0], "ncclDevKernel_AllReduce", 990, 1000, 100), CollectiveOp::kAllReduce);
  h.collective(1, h.kernel(1, h.s7[1], "ncclDevKernel_AllReduce", 2990, 3000, 100), CollectiveOp::kAllReduce);
  const Trace t = h.b.finish();
  const DepGraph g = build_dep_graph(t);
  CHECK(g.diagnostics.causality_violations == 1);
  CHECK(g.diagnostics.max_violation_ns == 1'900'000);
  REQUIRE(g.diagnostics.process_offset_ns.size() == 2);
  CHECK(g.diagnostics.process_offset_ns[1] == 2'000'000);  // ends 3100 vs 1100
  bool warned = false;
  for (const std::string& w : g.diagnostics.warnings) warned |= w.find("clocks disagree by at least that much") != std::string::npos;
  CHECK(warned);
}

TEST_CASE("graph: collectives matched out of order make a cycle; it is broken and reported", "[whatif][graph][cycles]") {
  HandTrace h;
  // rank 0 runs all-reduce then all-gather, rank 1 the other way round: each waits for the other
  h.collective(0, h.kernel(0, h.s7[0], "ncclDevKernel_AllReduce", 0, 10, 10), CollectiveOp::kAllReduce);
  h.collective(0, h.kernel(0, h.s7[0], "ncclDevKernel_AllGather", 1, 30, 10), CollectiveOp::kAllGather);
  h.collective(1, h.kernel(1, h.s7[1], "ncclDevKernel_AllGather", 0, 10, 10), CollectiveOp::kAllGather);
  h.collective(1, h.kernel(1, h.s7[1], "ncclDevKernel_AllReduce", 1, 30, 10), CollectiveOp::kAllReduce);
  const Trace t = h.b.finish();
  const DepGraph g = build_dep_graph(t);
  REQUIRE(g.diagnostics.cycles.size() == 1);
  CHECK_THAT(g.diagnostics.cycles[0].broken_by, Catch::StartsWith("collective group of ncclDevKernel_"));
  CHECK(g.diagnostics.cycles[0].nodes.size() == 4);
  CHECK(g.diagnostics.unmatched.size() == 2);  // the dissolved group's members
  // the broken graph replays to the end
  std::vector<GroupWork> work(g.groups.size());
  const ReplayResult r = replay(g, work, ReplayConfig{});
  CHECK(r.warnings.empty());
  for (size_t n = 0; n < g.nodes.size(); ++n) CHECK(r.end[n] >= 0);
}

TEST_CASE("graph: steps from ProfilerStep#N, else --step ranges, else the whole trace", "[whatif][graph][steps]") {
  auto make = [](bool profiler_step) {
    HandTrace h(1);
    h.kernel(0, h.s7[0], "k", 0, 10, 50);
    h.kernel(0, h.s7[0], "k", 100, 110, 50);
    h.b.add_slice(h.thread[0], 0, 100'000, h.b.intern("iter 0"), SliceRef{});
    h.b.add_slice(h.thread[0], 100'000, 100'000, h.b.intern("iter 1"), SliceRef{});
    if (profiler_step) h.b.add_slice(h.thread[0], 0, 200'000, h.b.intern("ProfilerStep#7"), SliceRef{});
    return h.b.finish();
  };
  const Trace plain = make(false);
  GraphOptions o;
  o.step_regex = "^iter";
  const DepGraph by_regex = build_dep_graph(plain, o);
  REQUIRE(by_regex.steps.size() == 2);
  CHECK(by_regex.steps[1].name == "iter 1");
  for (const Node& n : by_regex.nodes)
    if (n.kind == NodeType::kCompute) CHECK(n.step == (n.start < 100'000 ? 0 : 1));  // by its launch
  const DepGraph whole = build_dep_graph(plain);
  REQUIRE(whole.steps.size() == 1);
  CHECK(whole.steps[0].name == "trace");
  const DepGraph profiled = build_dep_graph(make(true), o);
  REQUIRE(profiled.steps.size() == 1);
  CHECK(profiled.steps[0].name == "ProfilerStep#7");
  o.step_regex = "([";
  const DepGraph bad = build_dep_graph(plain, o);
  CHECK(bad.steps[0].name == "trace");
  CHECK_THAT(bad.diagnostics.warnings.front(), Catch::StartsWith("--step '([' is not a valid regular expression"));
}

TEST_CASE("graph: annotated sends and receives pair per peer, in order", "[whatif][graph][p2p]") {
  HandTrace h;
  auto p2p = [&](int r, CollectiveOp op, int32_t peer, double launch, double start) {
    CollectiveInfo c;
    c.op = op;
    c.in_elements = c.out_elements = 1 << 20;
    c.dtype_bytes = 4;
    c.rank = r;
    c.peer = peer;
    c.kernel = h.kernel(r, h.s17[r], op == CollectiveOp::kSend ? "ncclDevKernel_Send" : "ncclDevKernel_Recv", launch, start, 20);
    h.b.add_collective(c);
  };
  p2p(0, CollectiveOp::kSend, 1, 0, 10);   // first 0 -> 1
  p2p(0, CollectiveOp::kSend, 1, 1, 40);   // second 0 -> 1
  p2p(1, CollectiveOp::kRecv, 0, 0, 12);
  p2p(1, CollectiveOp::kRecv, 0, 1, 41);
  p2p(1, CollectiveOp::kSend, 0, 2, 80);   // 1 -> 0 with no receive on rank 0
  const Trace t = h.b.finish();
  const DepGraph g = build_dep_graph(t);
  CHECK(edges(g, EdgeKind::kSendRecv) == 2);
  for (const Edge& e : g.edges)
    if (e.kind == EdgeKind::kSendRecv) {
      // the k-th send pairs with the k-th receive: starts 10 -> 12 and 40 -> 41
      CHECK(g.nodes[e.to].start - g.nodes[e.from].start <= 2000);
      CHECK(g.groups[static_cast<size_t>(g.nodes[e.from].group)].spec.bytes == 4.0 * 1024 * 1024);
    }
  REQUIRE(g.diagnostics.unmatched.size() == 1);
  CHECK(g.diagnostics.unmatched[0].reason == "send without a matching receive");
}
