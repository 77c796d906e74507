// Golden whole simulations. The small ones use 2 GPUs behind a switch with 1 GB/s per link
// direction and 100 ns per link (a GPU-to-GPU message pays 200 ns of latency, then 1 ns per byte
// alone on its links); expected timelines are worked out in the comments. The ring ones reproduce
// ../shared/anchors/simgrid_ring exactly.
#include <catch2/catch.hpp>

#include "sim/collectives.h"
#include "sim/simulator.h"
#include "sim/topology_builders.h"
#include "sim/workload_spec.h"
#include "trace/core/json.h"
#include "trace/core/topology_json.h"

using namespace parascope;
using namespace parascope::sim;

namespace {

GpuSpec small_gpu() {
  GpuSpec g;
  g.model = "test GPU";
  g.sm_count = 4;
  g.bf16_flops = 1e12;
  g.comm_interference = 0.5;
  return g;
}

// protocol=simple: these timelines are about the engine, so messages carry their payload only.
SimResult simulate(const Topology& t, const std::string& spec) {
  const Platform p = Platform::seal(t);
  std::vector<WorkloadStep> steps = parse_workload_spec(spec);
  for (WorkloadStep& s : steps) s.knobs.set("protocol", "simple");
  const Workload w = build_workload(p, steps);
  Simulator sim(p, w);
  return sim.run();
}

constexpr TimePs kNs = 1000;

// The NCCL golden cases: the 2-GPU star (1 GB/s per link direction, 100 ns per hop) with an NCCL
// profile of fixed costs 1000 ns (collectives) and 500 ns (send/recv), one channel, one curve of
// `rate` bytes/s per channel.
NcclProfile golden_nccl(double rate) {
  NcclProfile n;
  n.collective_latency_ns = 1000;
  n.p2p_latency_ns = 500;
  n.channels = 1;
  n.channel_rate = {{1.0, rate}};
  return n;
}

// The makespan of `spec` on the golden star with profile `n`, NCCL's own protocol choice.
TimePs nccl_makespan(const NcclProfile& n, const std::string& spec) {
  Topology t = star_topology("two", 2, 1e9, 100, small_gpu());
  t.nccl = n;
  const Platform p = Platform::seal(t);
  const Workload w = build_workload(p, parse_workload_spec(spec));
  Simulator sim(p, w);
  return sim.run().makespan;
}

}  // namespace

TEST_CASE("Simulator: send/recv between 2 GPUs is latency then bytes", "[sim][golden]") {
  const Topology t = star_topology("two", 2, 1e9, 100, small_gpu());
  const SimResult r = simulate(t, "sendrecv:bytes=1000,channels=1");
  // each direction: 200 ns of latency + 1000 B at 1 GB/s = 1200 ns; the two directions use
  // different link directions, so they do not share.
  REQUIRE(r.makespan == 1200 * kNs);
  REQUIRE(r.messages == 2);
}

TEST_CASE("Simulator: ring all-reduce on 2 GPUs, one chunk", "[sim][golden]") {
  const Topology t = star_topology("two", 2, 1e9, 100, small_gpu());
  const SimResult r = simulate(t, "allreduce:bytes=2000,channels=1");
  // slice = 2000 / 2 ranks = 1000 B; 2 steps: send at 0, arrives 1200 ns; forward at 1200,
  // arrives 2400 ns.
  REQUIRE(r.makespan == 2400 * kNs);
  REQUIRE(r.messages == 4);
}

TEST_CASE("Simulator: ring all-reduce chunk by chunk waits chunk-major", "[sim][golden]") {
  const Topology t = star_topology("two", 2, 1e9, 100, small_gpu());
  const SimResult r = simulate(t, "allreduce:bytes=2000,channels=1,chunk_bytes=500");
  // 2 chunks of 500 B (700 ns each hop). Chunk 0: step 0 sent at 0, in at 700; step 1 out at 700, in
  // at 1400. Only then chunk 1 (NCCL/SimGrid order): 1400 -> 2100 -> 2800.
  REQUIRE(r.makespan == 2800 * kNs);
  REQUIRE(r.messages == 8);
}

TEST_CASE("Simulator: steps on one stream run in order", "[sim][golden]") {
  const Topology t = star_topology("two", 2, 1e9, 100, small_gpu());
  const SimResult r = simulate(t, "allreduce:bytes=2000,channels=1;allreduce:bytes=2000,channels=1");
  // 2400 ns each, back to back
  REQUIRE(r.makespan == 4800 * kNs);
  const SimResult two_streams = simulate(t, "allreduce:bytes=2000,channels=1;allreduce:bytes=2000,channels=1,stream=1");
  // on two streams they share every link direction: each hop's 1000 B now move at 0.5 GB/s
  // (2000 ns + 200 ns latency): 2 x 2200 = 4400 ns.
  REQUIRE(two_streams.makespan == 4400 * kNs);
}

TEST_CASE("Simulator: compute is stretched while communication holds SMs", "[sim][golden]") {
  const Topology t = star_topology("two", 2, 1e9, 100, small_gpu());
  // GEMM of 2 x 1000^3 = 2e9 FLOP at 1e12 FLOP/s: 2 000 000 ns alone.
  const SimResult alone = simulate(t, "gemm:gemm_m=1000,gemm_n=1000,gemm_k=1000");
  REQUIRE(alone.makespan == 2'000'000 * kNs);
  // With an all-reduce (1 channel = 1 SM of 4) on another stream for its 2400 ns: the GEMM runs on
  // 3/4 of the SMs and is slowed by the interference 0.5: rate 0.75 / 1.5 = 0.5. It does 1200 ns of
  // work in those 2400 ns, the remaining 1 998 800 ns at full rate: done at 2 001 200 ns.
  const SimResult both = simulate(t, "gemm:gemm_m=1000,gemm_n=1000,gemm_k=1000;allreduce:bytes=2000,channels=1,stream=1");
  REQUIRE(both.makespan == 2'001'200 * kNs);
  REQUIRE(both.compute_spans.size() == 2);
  REQUIRE(both.compute_spans[0].end == 2'001'200 * kNs);
}

TEST_CASE("Simulator: reproduces the SimGrid ring anchor", "[sim][golden][simgrid]") {
  // ../shared/anchors/simgrid_ring: 8 GPUs, 450 GB/s split-duplex links, 500 ns each, 16 channels,
  // window 8, 1 GiB. With one chunk per slice every step moves 8 MiB per channel, 16 channels per
  // link: 16 x 8 MiB / 450 GB/s = 298.261617 us, plus 1 us of latency, 14 steps: 4.189663 ms.
  // SimGrid 3.32 (CM02, crosstraffic 0) printed sim_time=4.189663e-03, 4.231663e-03 (4 chunks),
  // 4.399663e-03 (16 chunks).
  GpuSpec g;
  g.sm_count = 132;
  const Topology t = star_topology("simgrid_star", 8, 450e9, 500, g);
  auto run = [&](int chunks) {
    const int64_t chunk = (int64_t{1} << 30) / 8 / 16 / chunks;
    return simulate(t, "allreduce:bytes=1GiB,gpus=8,channels=16,window=8,chunk_bytes=" + std::to_string(chunk));
  };
  const SimResult one = run(1);
  REQUIRE(one.messages == 1792);
  REQUIRE(one.makespan * 1e-12 == Approx(4.189663e-03).epsilon(1e-6));
  REQUIRE(run(4).makespan * 1e-12 == Approx(4.231663e-03).epsilon(1e-6));
  REQUIRE(run(16).makespan * 1e-12 == Approx(4.399663e-03).epsilon(1e-6));
}

TEST_CASE("Simulator: the same workload gives the same result bit for bit", "[sim][golden]") {
  const Topology t = star_topology("four", 4, 100e9, 300, small_gpu());
  const std::string spec = "allreduce:algo=tree,bytes=3MiB,channels=3,chunk_bytes=96KiB;alltoall:bytes=1MiB,stream=1";
  const SimResult a = simulate(t, spec), b = simulate(t, spec);
  REQUIRE(a.makespan == b.makespan);
  REQUIRE(a.messages == b.messages);
  REQUIRE(a.batches == b.batches);
  for (size_t i = 0; i < a.actors.size(); ++i) REQUIRE(a.actors[i].end == b.actors[i].end);
}

TEST_CASE("Simulator: every algorithm finishes and moves the bytes it should", "[sim][golden]") {
  SwitchSpec sw;
  sw.multicast = true;
  sw.in_switch_reduction = true;
  GpuSpec g = small_gpu();
  g.multimem.per_sm_bytes_per_s = 10e9;
  const Topology t = nvswitch_box("box", 4, g, 100e9, 500, sw);
  const Platform p = Platform::seal(t);
  struct Case {
    const char* spec;
    double link_bytes;  // bytes over all GPU->switch link directions together, worked out by hand
  };
  // 4 MiB per rank, 4 ranks:
  //  ring all-reduce: every rank sends 2(n-1)/n x 4 MiB = 6 MiB         -> 24 MiB up
  //  one-shot: every rank sends its 4 MiB to 3 peers                    -> 48 MiB
  //  two-shot: 2 phases x 3 peers x 1 MiB                               -> 24 MiB
  //  NVLS: each rank's reduce pulls 1 MiB from each of 4 GPUs, then multicasts 1 MiB once -> 20 MiB
  //  ring all-gather of 4 MiB inputs: 3 x 4 MiB per rank                -> 48 MiB
  //  all-to-all: 3 peers x 1 MiB per rank                               -> 12 MiB
  const Case cases[] = {{"allreduce:bytes=4MiB", 24.0 * (1 << 20)},          {"allreduce:algo=one_shot,bytes=4MiB", 48.0 * (1 << 20)},
                        {"allreduce:algo=two_shot,bytes=4MiB", 24.0 * (1 << 20)}, {"allreduce:algo=nvls,bytes=4MiB", 20.0 * (1 << 20)},
                        {"allgather:bytes=4MiB", 48.0 * (1 << 20)},          {"alltoall:bytes=4MiB", 12.0 * (1 << 20)}};
  for (const Case& c : cases) {
    INFO(c.spec);
    std::vector<WorkloadStep> steps = parse_workload_spec(c.spec);
    steps[0].knobs.set("protocol", "simple");
    const Workload w = build_workload(p, steps);
    Simulator sim(p, w);
    const SimResult r = sim.run();
    REQUIRE(r.makespan > 0);
    double up = 0;
    for (size_t i = 0; i < p.resources().size(); ++i) {
      const PlatformResource& res = p.resources()[i];
      if (res.kind == ResourceKind::kLink && res.forward) up += sim.flows().usage(static_cast<uint32_t>(i)).bytes;
    }
    REQUIRE(up == Approx(c.link_bytes));
  }
}

TEST_CASE("Simulator: workloads that cannot run say why", "[sim][golden]") {
  const Topology t = star_topology("two", 2, 1e9, 100, small_gpu());
  const Platform p = Platform::seal(t);
  REQUIRE_THROWS_WITH(build_workload(p, parse_workload_spec("allreduce:gpus=8")),
                      "workload step 0 (allreduce): gpus=8 but topology two has 2");
  REQUIRE_THROWS_WITH(build_workload(p, parse_workload_spec("alltoall:algo=tree")),
                      "workload step 0 (alltoall): algorithm=tree is not available for alltoall (ring or one_shot)");
  const Topology pcie = pcie_box("pcie", 2, small_gpu(), 2, 32e9, 32e9, 500);
  REQUIRE_THROWS_WITH(build_workload(Platform::seal(pcie), parse_workload_spec("allreduce:algo=nvls")),
                      Catch::Contains("algorithm=nvls needs GPUs on an NVSwitch"));
  GpuSpec no_flops = small_gpu();
  no_flops.bf16_flops = 0;
  REQUIRE_THROWS_WITH(build_workload(Platform::seal(star_topology("x", 2, 1e9, 0, no_flops)), parse_workload_spec("gemm")),
                      Catch::Contains("has no bf16_TFLOPs"));
}

TEST_CASE("Simulator: LL128 moves 128/120 of the payload, the summary reports the payload", "[sim][golden]") {
  const Topology t = star_topology("two", 2, 1e9, 100, small_gpu());
  const Platform p = Platform::seal(t);
  auto run = [&](const char* spec) {
    const Workload w = build_workload(p, parse_workload_spec(spec));
    Simulator sim(p, w);
    return sim.run();
  };
  // 1200 B payload as LL128: 1280 B on the wire: 200 ns + 1280 ns = 1480 ns
  REQUIRE(run("sendrecv:bytes=1200,channels=1,protocol=ll128").makespan == 1480 * kNs);
  // auto with ll128_max_bytes below the size: simple, 200 + 1200 ns
  REQUIRE(run("sendrecv:bytes=1200,channels=1,ll128_max_bytes=1000").makespan == 1400 * kNs);
  // auto with ll_max_bytes above the size: LL costs 4 bytes of link per payload byte (8 of 16 bytes
  // per line, half-efficient 16-byte stores), 200 + 4800 ns
  REQUIRE(run("sendrecv:bytes=1200,channels=1,ll_max_bytes=4096").makespan == 5000 * kNs);
}

TEST_CASE("Simulator: fused all-gather + GEMM, communication on dedicated SMs or on warps", "[sim][golden]") {
  // 2 GPUs of 4 SMs, 1e12 FLOP/s, interference 0.5; GEMM 1000^3 (2e9 FLOP = 2 ms on the whole GPU),
  // A row-sharded: each rank gathers 500 x 1000 x 2 B = 1e6 B, one message of 200 ns + 1 ms.
  const Topology t = star_topology("two", 2, 1e9, 100, small_gpu());
  const std::string gemm = "gemm_m=1000,gemm_n=1000,gemm_k=1000,num_comm_sms=1,channels=1";
  // inter_sm: the GEMM has 3 of 4 SMs. Local half (1 ms of whole-GPU work) starts at 0 at
  // 0.75 / 1.5 = 0.5 while the gather runs (to 1000.2 us): 500.1 us done; the other 499.9 us at 0.75
  // take 666.533 us (1666.733 us); the gathered half (1 ms) at 0.75: 1333.333 us -> 3000.067 us.
  const SimResult inter = simulate(t, "allgather_gemm:" + gemm + ",overlap=inter_sm");
  REQUIRE(static_cast<double>(inter.makespan) / kNs == Approx(3000066.7).margin(1));
  // intra_sm: all 4 SMs compute, slowed by 1.5 while the gather runs: 666.8 us done by 1000.2 us,
  // 333.2 us more at full rate (1333.4 us), then the gathered half at full rate: 2333.4 us.
  const SimResult intra = simulate(t, "allgather_gemm:" + gemm + ",overlap=intra_sm");
  REQUIRE(static_cast<double>(intra.makespan) / kNs == Approx(2333400).margin(1));
}

TEST_CASE("Simulator: GEMM + reduce-scatter sends each tile once it is computed", "[sim][golden]") {
  const Topology t = star_topology("two", 2, 1e9, 100, small_gpu());
  // C partial 1000 x 1000 x 2 B = 2e6 B per rank, two tiles of 1 ms of whole-GPU work each. The
  // communication actor (1 SM) runs for the whole fused kernel, so the GEMM runs at 0.75 / 1.5 = 0.5
  // throughout: tile 1 0 -> 2000 us; its half (1e6 B) goes out at 2000 us and lands at 3000.2 us;
  // tile 2 2000 -> 4000 us; the final receive-reduce needs tile 2, so everything ends at 4000 us.
  const SimResult r = simulate(t, "gemm_reducescatter:gemm_m=1000,gemm_n=1000,gemm_k=1000,num_comm_sms=1,channels=1");
  REQUIRE(r.makespan == 4'000'000 * kNs);
  REQUIRE(r.messages == 2);
}

TEST_CASE("Simulator: an NCCL profile charges Simple its extra fixed cost over LL, per ring step", "[sim][golden]") {
  // The 2-GPU star (1 GB/s per link direction) with an NCCL profile whose LL and Simple curves are the
  // same (1e12 B/s per channel: the link sets the pace) on one channel: collective fixed cost 1000 ns,
  // send/recv 500 ns, per message 0 ns (with a profile a message pays the profile's step latency, not
  // the route's 200 ns). Simple adds NCCL's latency-model difference (2.28 on NVLink: base 8.4 - 6.6 =
  // 1.8 us, 3.4 - 0.6 = 2.8 us per ring step).
  NcclProfile n = golden_nccl(1e12);
  n.ll_channel_rate = {{1.0, 1e12}};
  n.simple_extra_ns = 1800;
  n.simple_extra_per_step_ns = 2800;
  auto run = [&](double ll_max, const char* spec) {
    n.ll_max_bytes = ll_max;
    return nccl_makespan(n, spec);
  };
  // collective_cost_ns: LL or no split -> the fitted cost; Simple -> + 1800 + steps x 2800.
  n.ll_max_bytes = 1024;
  CHECK(n.collective_cost_ns(true, 2) == 1000);
  CHECK(n.collective_cost_ns(false, 2) == 1000 + 1800 + 2 * 2800);
  CHECK(n.collective_cost_ns(false, 1) == 1000 + 1800 + 2800);
  n.ll_max_bytes = 0;
  CHECK(n.collective_cost_ns(false, 2) == 1000);
  // All-reduce of 2000 B (count 2000): slice 1000 B, 2 ring steps of 1000 ns after the 1000 ns fixed
  // cost: 3000 ns as LL (ll_max_bytes 4096). As Simple (ll_max_bytes 1024): + 1800 + 2 x 2800 =
  // 10400 ns. Without the split (ll_max_bytes 0) one fixed cost: 3000 ns.
  CHECK(run(4096, "allreduce:bytes=2000") == 3000 * kNs);
  CHECK(run(1024, "allreduce:bytes=2000") == 10400 * kNs);
  CHECK(run(0, "allreduce:bytes=2000") == 3000 * kNs);
  // All-gather of 1000 B per rank: one ring step, 1000 + 1000 = 2000 ns as LL; Simple + 1800 + 2800.
  CHECK(run(4096, "allgather:bytes=1000") == 2000 * kNs);
  CHECK(run(512, "allgather:bytes=1000") == 6600 * kNs);
  // Send/recv keeps its own fixed cost whatever the split: 500 + 1000 ns.
  CHECK(run(512, "sendrecv:bytes=1000") == 1500 * kNs);
}

TEST_CASE("Simulator: send/recv runs the NCCL curve times p2p_rate_scale", "[sim][golden]") {
  // As above, but a channel moves 0.5 GB/s. Send/recv: each rank's channel sends one flow and receives
  // one, each costing one unit of its capacity: 0.25 GB/s per flow, 1000 B in 4000 ns + 500 ns fixed =
  // 4500 ns. p2p_rate_scale 2: 1 GB/s shared by the two flows (the links, 1 GB/s per direction, do not
  // bind): 2000 + 500 = 2500 ns. A ring all-gather keeps 0.5 GB/s whatever the scale: its sender pays
  // ring_weight(all-gather, 2) = (3n - 1) / (n - 1) / 2 = 2.5 units per byte, the receiver none:
  // 0.2 GB/s, 1000 B in 5000 ns + 1000 ns fixed = 6000 ns.
  NcclProfile n = golden_nccl(0.5e9);
  auto run = [&](double scale, const char* spec) {
    n.p2p_rate_scale = scale;
    return nccl_makespan(n, spec);
  };
  CHECK(run(1, "sendrecv:bytes=1000") == 4500 * kNs);
  CHECK(run(2, "sendrecv:bytes=1000") == 2500 * kNs);
  CHECK(run(1, "allgather:bytes=1000") == 6000 * kNs);
  CHECK(run(2, "allgather:bytes=1000") == 6000 * kNs);
}

TEST_CASE("Simulator: an operation's own NCCL curve replaces the shared one; protocol=simple / ll force a curve", "[sim][golden]") {
  // The two-GPU star of the tests above (1 GB/s links, 100 ns per hop; NCCL's fixed costs 1000 ns, 500
  // ns for send/recv; 1 channel). The shared curve: 0.5 GB/s per channel; all-gather's own: Simple 1
  // GB/s, LL 0.25 GB/s; LL up to 4096 B. All-gather of 1000 B: one ring step, its sender paying 2.5
  // units of capacity per byte (the test above): LL 0.1 GB/s -> 10000 ns + 1000 = 11000 ns; forced
  // Simple 0.4 GB/s -> 2500 + 1000 + Simple's 1800 + 2800 = 8100 ns. Send/recv has no curve of its
  // own: the shared 0.5 GB/s x p2p_rate_scale 2, as above: 2500 ns.
  NcclProfile n = golden_nccl(0.5e9);
  n.p2p_rate_scale = 2;
  n.ll_max_bytes = 4096;
  n.simple_extra_ns = 1800;
  n.simple_extra_per_step_ns = 2800;
  n.op_channel_rate["allgather"] = {{{1.0, 1e9}}, {{1.0, 0.25e9}}};
  auto run = [&](const char* spec) { return nccl_makespan(n, spec); };
  CHECK(run("allgather:bytes=1000") == 11000 * kNs);
  CHECK(run("allgather:bytes=1000,protocol=ll") == 11000 * kNs);
  CHECK(run("allgather:bytes=1000,protocol=simple") == 8100 * kNs);
  CHECK(run("sendrecv:bytes=1000") == 2500 * kNs);
  CHECK(n.rate_for("alltoall", 1000, false) == 1e9);  // the shared 0.5 GB/s x 2: no send/recv curve
  CHECK(n.rate_for("allgather", 1000, true) == 0.25e9);
  CHECK(n.rate_for("reducescatter", 1000, true) == 0.5e9);  // no own curve, no LL knots: channel_rate
}

TEST_CASE("NCCL profile: an operation's curve extrapolates one knot interval below its first knot", "[sim][nccl]") {
  // Knots 4 MiB: 16 GB/s, 16 MiB: 32 GB/s (x2 per factor 4 of step). Below 4 MiB the first segment's
  // slope carries on for one interval: 2 MiB (half an interval) -> 16 / sqrt(2) = 11.31 GB/s, 1 MiB
  // (a whole one) -> 8 GB/s, and below that it stays 8. Between knots log-log: 8 MiB -> 22.63; above the
  // last, flat. The shared curve (rate_at) stays flat below its first knot.
  NcclProfile n;
  n.channel_rate = {{4194304.0, 16e9}, {16777216.0, 32e9}};
  n.op_channel_rate["reducescatter"].simple = n.channel_rate;
  CHECK(n.rate_for("reducescatter", 2097152, false) / 1e9 == Approx(11.3137).epsilon(1e-4));
  CHECK(n.rate_for("reducescatter", 1048576, false) / 1e9 == Approx(8.0).epsilon(1e-9));
  CHECK(n.rate_for("reducescatter", 65536, false) / 1e9 == Approx(8.0).epsilon(1e-9));
  CHECK(n.rate_for("reducescatter", 8388608, false) / 1e9 == Approx(22.627).epsilon(1e-4));
  CHECK(n.rate_for("reducescatter", 1e9, false) / 1e9 == Approx(32.0).epsilon(1e-9));
  CHECK(n.rate_at(1048576) / 1e9 == Approx(16.0).epsilon(1e-9));
  // The JSON keeps the curves; an unknown operation or an empty curve is refused with its path.
  Topology t = star_topology("two", 2, 1e9, 100, small_gpu());
  n.op_channel_rate["reducescatter"].ll = {{2048.0, 4e9}};
  t.nccl = n;
  const Topology back = topology_from_json(topology_to_json(t), "roundtrip");
  REQUIRE(back.nccl.has_value());
  REQUIRE(back.nccl->op_channel_rate.count("reducescatter") == 1);
  CHECK(back.nccl->op_channel_rate.at("reducescatter").simple.size() == 2);
  CHECK(back.nccl->op_channel_rate.at("reducescatter").ll.size() == 1);
  CHECK(back.nccl->rate_for("reducescatter", 2097152, false) == Approx(n.rate_for("reducescatter", 2097152, false)));
  JsonValue doc = topology_to_json(t);
  JsonValue& ops = const_cast<JsonValue&>(*doc.find("nccl")->find("op_channel_rate"));
  ops.set("broadcast", *ops.find("reducescatter"));
  CHECK_THROWS_WITH(topology_from_json(doc, "bad.json"),
                    Catch::Contains("bad.json") && Catch::Contains("op_channel_rate.broadcast") && Catch::Contains("unknown operation"));
}

TEST_CASE("Simulator: a direct kernel pays block_latency_ns for every block beyond the first", "[sim][golden]") {
  // Every communication actor of the kernel waits kernel_latency_ns + (blocks - 1) x block_latency_ns
  // before its first transfer, so with 4 blocks (channels) and 100 ns per block the whole one-shot
  // all-gather starts, and ends, 300 ns later; one block pays nothing more, and the ring (not a
  // direct kernel) does not move.
  auto run = [](double block_ns, const char* spec) {
    GpuSpec g = small_gpu();
    g.kernel_latency_ns = 1000;
    g.block_latency_ns = block_ns;
    const Platform p = Platform::seal(star_topology("two", 2, 1e9, 100, g));
    const Workload w = build_workload(p, parse_workload_spec(spec));
    Simulator sim(p, w);
    return sim.run().makespan;
  };
  const char* direct = "allgather:bytes=4000,algorithm=one_shot,channels=4";
  CHECK(run(100, direct) - run(0, direct) == 300 * kNs);
  CHECK(run(100, "allgather:bytes=4000,algorithm=one_shot,channels=1") == run(0, "allgather:bytes=4000,algorithm=one_shot,channels=1"));
  CHECK(run(100, "allgather:bytes=4000,channels=4") == run(0, "allgather:bytes=4000,channels=4"));
}
