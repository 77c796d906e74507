// Benchmark: a 1024-GPU (128 nodes x 8, rail-optimised, 400 Gb/s NICs) ring all-reduce of 1 GiB,
// 16 channels, one chunk per step (granularity=step): about 33.5 M messages through the general
// engine and flow model. Prints a table and writes bench_sim_scale.json (or --json FILE).
//   bench_sim_scale [--nodes 128] [--json FILE]
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>

#include "sim/collectives.h"
#include "sim/simulator.h"
#include "sim/topology_builders.h"
#include "sim/workload_spec.h"

using namespace parascope;
using namespace parascope::sim;

namespace {
double cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}
}  // namespace

int main(int argc, char** argv) {
  int nodes = 128;
  std::string json_path = "bench_sim_scale.json";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--nodes") nodes = std::atoi(argv[i + 1]);
    else if (a == "--json") json_path = argv[i + 1];
    else {
      std::fprintf(stderr, "usage: %s [--nodes N] [--json FILE]\n", argv[0]);
      return 2;
    }
  }
  const auto w0 = std::chrono::steady_clock::now();
  const double c0 = cpu_seconds();
  ClusterOptions o;
  o.nodes = nodes;
  o.gpus_per_node = 8;
  o.gpu.model = "NVIDIA H100";
  o.gpu.sm_count = 132;
  const Platform p = Platform::seal(cluster_topology("h100_cluster", o));
  const Workload w = build_workload(p, parse_workload_spec("allreduce:algo=ring,bytes=1GiB,channels=16,granularity=step,protocol=simple"));
  Simulator sim(p, w);
  const double setup_wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  const SimResult r = sim.run();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  const double cpu = cpu_seconds() - c0;
  const double busbw = static_cast<double>(int64_t{1} << 30) / (static_cast<double>(r.makespan) * 1e-12) * 2.0 * (p.gpu_count() - 1) / p.gpu_count();
  std::printf("ring all-reduce 1 GiB, %zu GPUs (%d nodes x 8, rail-optimised 400 Gb/s), 16 channels, one chunk per step\n", p.gpu_count(), nodes);
  std::printf("  messages %llu  simulated %.6f ms  busbw %.1f GB/s\n", static_cast<unsigned long long>(r.messages),
              static_cast<double>(r.makespan) * 1e-9, busbw / 1e9);
  std::printf("  wall %.3f s (setup %.3f s)  cpu %.3f s  %.3e messages per wall second  %llu timestamps\n", wall, setup_wall, cpu,
              static_cast<double>(r.messages) / wall, static_cast<unsigned long long>(r.batches));
  std::ofstream j(json_path);
  j << "{\n  \"schema_version\": 1,\n  \"gpus\": " << p.gpu_count() << ",\n  \"messages\": " << r.messages
    << ",\n  \"sim_time_s\": " << static_cast<double>(r.makespan) * 1e-12 << ",\n  \"wall_s\": " << wall << ",\n  \"setup_wall_s\": " << setup_wall
    << ",\n  \"cpu_s\": " << cpu << ",\n  \"batches\": " << r.batches << "\n}\n";
  std::printf("wrote %s\n", json_path.c_str());
  return 0;
}
