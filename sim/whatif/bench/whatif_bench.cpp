// parascope-bench-whatif: how long a what-if sweep takes. It builds a trace shaped like an 8-GPU
// tensor-parallel run (per rank and step: all-gather, GEMM, GELU, GEMM, reduce-scatter on the
// compute stream, a data-parallel all-reduce on a side stream behind an event wait, two more
// GEMMs, launch calls with flows, a device synchronize and a ProfilerStep range; NCCL kernels with
// collective annotations and sequence numbers, GEMMs with one-wave launch configs), builds its
// dependency graph once, replays it, then runs a 100-variant grid (channels x comm_stream x
// comm_split x link_bandwidth_scale) on all cores and, as the baseline, on one core. Prints a table,
// writes JSON (--json PATH). Options: --events N (default 10000), --topology NAME|PATH, --jobs N,
// --write-trace PATH.pstrace (the generated trace, for `parascope-cli whatif`).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include "trace/core/topology_presets.h"
#include "sim/whatif/sweep.h"
#include "trace/core/json.h"
#include "trace/core/trace_builder.h"
#include "trace/io/pstrace/pstrace_writer.h"

#ifndef PARASCOPE_RESOURCE_DIR
#define PARASCOPE_RESOURCE_DIR "resources"
#endif

using namespace parascope;

namespace {

constexpr int kRanks = 8;

struct Op {
  const char* name;
  double us;
  int stream;           // 7 compute, 17 side
  CollectiveOp coll;    // kUnknown: compute
  double mib;
};

// One step of one rank, in launch order.
constexpr Op kStep[] = {
    {"ncclDevKernel_AllGather_RING_LL", 160, 7, CollectiveOp::kAllGather, 8},
    {"nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NNT", 190, 7, CollectiveOp::kUnknown, 0},
    {"void at::native::vectorized_elementwise_kernel<8, GeluCUDAKernelImpl>", 25, 7, CollectiveOp::kUnknown, 0},
    {"nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", 180, 7, CollectiveOp::kUnknown, 0},
    {"ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL", 170, 7, CollectiveOp::kReduceScatter, 64},
    {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 260, 17, CollectiveOp::kAllReduce, 16},
    {"nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT", 185, 7, CollectiveOp::kUnknown, 0},
    {"nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NNT", 190, 7, CollectiveOp::kUnknown, 0},
};
constexpr int kOps = sizeof(kStep) / sizeof(kStep[0]);
// Slices per rank and step: one launch call per op, a record + wait for the side stream, the
// synchronize, the ProfilerStep range.
constexpr int kSlicesPerStep = 2 * kOps + 2 + 1 + 1;

Trace make_trace(int64_t events, int& steps_out) {
  const int steps = static_cast<int>(std::max<int64_t>(1, (events + kRanks * kSlicesPerStep - 1) / (kRanks * kSlicesPerStep)));
  steps_out = steps;
  TraceBuilder b;
  LaunchConfig gemm_lc;  // 132 blocks of 384 threads, 188 KiB shared memory: one per SM
  gemm_lc.grid[0] = 2;
  gemm_lc.grid[1] = 66;
  gemm_lc.grid[2] = 1;
  gemm_lc.block[0] = 384;
  gemm_lc.block[1] = gemm_lc.block[2] = 1;
  gemm_lc.registers_per_thread = 168;
  gemm_lc.dynamic_smem = 188636;
  LaunchConfig nccl_lc;  // 24 channels
  nccl_lc.grid[0] = 24;
  nccl_lc.grid[1] = nccl_lc.grid[2] = 1;
  nccl_lc.block[0] = 544;
  nccl_lc.block[1] = nccl_lc.block[2] = 1;
  const uint32_t gemm_cfg = b.add_launch_config(gemm_lc), nccl_cfg = b.add_launch_config(nccl_lc);
  const StringId launch = b.intern("cudaLaunchKernel"), record = b.intern("cudaEventRecord"),
                 wait = b.intern("cudaStreamWaitEvent"), sync = b.intern("cudaDeviceSynchronize"), group = b.intern("0"),
                 bf16 = b.intern("BFloat16");
  for (int r = 0; r < kRanks; ++r) {
    Process p;
    p.rank = r;
    p.name = "rank " + std::to_string(r);
    const uint32_t proc = b.add_process(p);
    Device d;
    d.process = proc;
    d.ordinal = r;
    d.name = "NVIDIA H200";
    d.sm_count = 132;
    const auto dev = static_cast<int32_t>(b.add_device(d));
    const uint32_t thread = b.track({TrackKind::kCpuThread, proc, -1, 100 + r}, "main");
    const uint32_t s7 = b.track({TrackKind::kGpuStream, proc, dev, 7}, "stream 7");
    const uint32_t s17 = b.track({TrackKind::kGpuStream, proc, dev, 17}, "stream 17");
    uint32_t corr = 1;
    int64_t seq = 0;  // one sequence per process group, over all its collectives (Kineto's Seq)
    TimeNs cpu = 1000 * r, gpu7 = 0, gpu17 = 0;  // a little skew between ranks
    for (int s = 0; s < steps; ++s) {
      const TimeNs step_start = cpu;
      gpu7 = std::max(gpu7, cpu + 20'000);
      TimeNs producer_end = 0;
      for (int i = 0; i < kOps; ++i) {
        const Op& op = kStep[i];
        if (op.stream == 17) {
          b.add_slice(thread, cpu, 1000, record, b.add_api_call(ApiInfo{corr++, 0, 0}));
          b.add_slice(thread, cpu + 1500, 1000, wait, b.add_api_call(ApiInfo{corr++, 0, 0}));
          cpu += 3000;
        }
        const EventRef a = b.add_slice(thread, cpu, 5000, launch, b.add_api_call(ApiInfo{corr, 0, 0}));
        KernelInfo k;
        k.correlation = corr++;
        k.launch_config = op.coll == CollectiveOp::kUnknown ? (op.us > 100 ? gemm_cfg : kNone32) : nccl_cfg;
        const auto dur = static_cast<TimeNs>(op.us * 1000);
        TimeNs& at = op.stream == 7 ? gpu7 : gpu17;
        if (op.stream == 17) at = std::max(at, producer_end);
        at = std::max(at, cpu + 5000);
        const EventRef e = b.add_slice(op.stream == 7 ? s7 : s17, at, dur, b.intern(op.name), b.add_kernel(k));
        b.add_flow(a, e, FlowKind::kLaunch);
        if (op.coll != CollectiveOp::kUnknown) {
          CollectiveInfo c;
          c.op = op.coll;
          c.dtype = bf16;
          c.dtype_bytes = 2;
          const auto elems = static_cast<uint64_t>(op.mib * 1024 * 1024 / 2);
          c.in_elements = elems;
          c.out_elements = op.coll == CollectiveOp::kAllGather ? elems * kRanks : elems;
          c.group = group;
          c.group_size = kRanks;
          c.rank = r;
          c.sequence = seq++;
          c.kernel = e;
          b.add_collective(c);
        }
        if (op.stream == 7) producer_end = at + dur;
        at += dur + 1500;
        cpu += 8000;
      }
      const TimeNs done = std::max(gpu7, gpu17);
      b.add_slice(thread, cpu, done - cpu + 5000, sync, b.add_api_call(ApiInfo{corr++, 0, 0}));
      cpu = done + 10'000;
      b.add_slice(thread, step_start, cpu - step_start, b.intern("ProfilerStep#" + std::to_string(s)), SliceRef{});
    }
  }
  return b.finish();
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  int64_t events = 10'000;
  std::string topology = "hgx_h200x8", json_path, trace_path;
  size_t jobs = std::max(1u, std::thread::hardware_concurrency());
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--events") events = std::stoll(next());
    else if (a == "--topology") topology = next();
    else if (a == "--jobs") jobs = std::stoul(next());
    else if (a == "--json") json_path = next();
    else if (a == "--write-trace") trace_path = next();
    else {
      std::fprintf(stderr, "usage: parascope-bench-whatif [--events N] [--topology NAME|PATH] [--jobs N] [--json PATH] [--write-trace PATH]\n");
      return 2;
    }
  }
  int steps = 0;
  const Trace trace = make_trace(events, steps);
  const size_t slices = trace.slice_count();
  if (!trace_path.empty()) write_pstrace(trace, trace_path);

  auto t0 = std::chrono::steady_clock::now();
  const whatif::DepGraph graph = whatif::build_dep_graph(trace);
  const double graph_s = seconds_since(t0);

  whatif::WhatIfInput base;
  base.measured = &trace;
  base.graph = &graph;
  base.topology = find_topology(topology, std::string(PARASCOPE_RESOURCE_DIR) + "/topologies");
  base.cache = std::make_shared<whatif::CommCache>();
  t0 = std::chrono::steady_clock::now();
  const whatif::WhatIfOutput replay = whatif::run_whatif(base);
  const double replay_s = seconds_since(t0);

  const auto grid = whatif::sweep_grid({"channels=4,8,16,24,32", "comm_stream=trace,side", "comm_split=1,2,4,8,16",
                                        "link_bandwidth_scale=0.5,1"});
  auto sweep = [&](size_t j, double& wall, size_t& sims) {
    whatif::WhatIfInput in = base;
    in.cache = std::make_shared<whatif::CommCache>();  // each sweep starts cold
    const auto start = std::chrono::steady_clock::now();
    const auto rows = whatif::run_sweep(in, grid, j);
    wall = seconds_since(start);
    sims = in.cache->size();
    return rows;
  };
  double wall_all = 0, wall_one = 0;
  size_t sims_all = 0, sims_one = 0;
  const auto rows = sweep(jobs, wall_all, sims_all);
  const auto rows_one = sweep(1, wall_one, sims_one);
  size_t failed = 0;
  for (const auto& r : rows) failed += !r.error.empty();
  bool same = rows.size() == rows_one.size();
  for (size_t i = 0; same && i < rows.size(); ++i) same = rows[i].step_ns == rows_one[i].step_ns;

  std::printf("parascope-bench-whatif: %zu events (%d ranks x %d steps) on %s, graph %zu nodes / %zu edges\n", slices, kRanks,
              steps, base.topology.name.c_str(), graph.nodes.size(), graph.edges.size());
  std::printf("  %-44s %10s %12s\n", "phase", "wall s", "per variant");
  std::printf("  %-44s %10.3f %12s\n", "dependency graph (once)", graph_s, "-");
  std::printf("  %-44s %10.3f %12s\n", "replay of the unchanged graph (cold cache)", replay_s, "-");
  std::printf("  %-44s %10.3f %10.1f ms\n", ("sweep, 100 variants, " + std::to_string(jobs) + " threads").c_str(), wall_all,
              1000 * wall_all / static_cast<double>(grid.size()));
  std::printf("  %-44s %10.3f %10.1f ms   (baseline)\n", "sweep, 100 variants, 1 thread", wall_one,
              1000 * wall_one / static_cast<double>(grid.size()));
  std::printf("  collectives simulated per sweep: %zu distinct; failed variants: %zu; same results on 1 and %zu threads: %s\n",
              sims_all, failed, jobs, same ? "yes" : "NO");
  std::printf("  replay: step %.3f ms (trace %.3f ms); best variant %s step %.3f ms, worst %.3f ms\n", replay.summary.step_ns / 1e6,
              replay.summary.measured_step_ns / 1e6, rows.empty() ? "-" : ([&] {
                std::string s;
                for (const auto& [k, v] : rows.front().point) s += k + "=" + whatif::value_text(k, v) + " ";
                return s;
              }()).c_str(),
              rows.empty() ? 0.0 : rows.front().step_ns / 1e6, rows.empty() ? 0.0 : rows[rows.size() - 1 - failed].step_ns / 1e6);
  std::printf("  target: 100 variants of a 10 000-event trace in <= 10 s on 2 cores: %s\n", wall_all <= 10 ? "met" : "NOT met");
  if (!json_path.empty()) {
    const JsonValue doc = JsonValue::object({{"schema_version", JsonValue::number(int64_t{1})},
                                             {"events", JsonValue::number(static_cast<int64_t>(slices))},
                                             {"ranks", JsonValue::number(int64_t{kRanks})},
                                             {"steps", JsonValue::number(int64_t{steps})},
                                             {"topology", JsonValue::string(base.topology.name)},
                                             {"graph_nodes", JsonValue::number(static_cast<int64_t>(graph.nodes.size()))},
                                             {"graph_seconds", JsonValue::number(graph_s)},
                                             {"replay_seconds", JsonValue::number(replay_s)},
                                             {"variants", JsonValue::number(static_cast<int64_t>(grid.size()))},
                                             {"threads", JsonValue::number(static_cast<int64_t>(jobs))},
                                             {"sweep_seconds", JsonValue::number(wall_all)},
                                             {"sweep_one_thread_seconds", JsonValue::number(wall_one)},
                                             {"distinct_simulations", JsonValue::number(static_cast<int64_t>(sims_all))},
                                             {"failed_variants", JsonValue::number(static_cast<int64_t>(failed))},
                                             {"deterministic", JsonValue::boolean(same)}});
    std::ofstream(json_path) << to_json(doc, 1) << "\n";
  }
  return 0;
}
