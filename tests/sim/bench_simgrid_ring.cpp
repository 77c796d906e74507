// Benchmark: the SimGrid anchor (../shared/anchors/simgrid_ring) against Parascope's simulator on the
// same scenario: ring all-reduce of 1 GiB on 8 GPUs behind one switch, 450 GB/s split-duplex links
// with 500 ns each, 16 channels, window 8, chunk-major. Parascope runs it through the general
// workload generator, engine and max-min flow model (the what-if path), nothing special-cased. When
// SimGrid was found at configure time its program runs in the same go; otherwise that column says so.
// The two runs alternate (SimGrid `reps` times, Parascope 3x as often: it is short, so one
// preemption on a shared machine shows); the ratio uses the best wall time of each (timeit's
// convention), the medians are printed too. Prints a table and writes bench_simgrid_ring.json.
//   bench_simgrid_ring [--chunks 1024] [--reps 3] [--json FILE]
#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

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

double children_cpu_seconds() {
  rusage u;
  getrusage(RUSAGE_CHILDREN, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

struct Run {
  double sim_time_s = 0;
  double wall_s = 0;
  double cpu_s = 0;
  uint64_t messages = 0;
  bool ok = false;
  std::string note;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

double best(const std::vector<double>& v) { return v.empty() ? 0 : *std::min_element(v.begin(), v.end()); }

Run run_parascope(int chunks) {
  const auto w0 = std::chrono::steady_clock::now();
  const double c0 = cpu_seconds();
  GpuSpec g;
  g.model = "anchor GPU";
  g.sm_count = 132;
  const Platform p = Platform::seal(star_topology("simgrid_star8", 8, 450e9, 500, g));
  const int64_t chunk = (int64_t{1} << 30) / 8 / 16 / chunks;
  const Workload w = build_workload(
      p, parse_workload_spec("allreduce:algo=ring,bytes=1GiB,gpus=8,channels=16,window=8,protocol=simple,chunk_bytes=" +
                             std::to_string(chunk)));
  Simulator sim(p, w);
  const SimResult r = sim.run();
  Run out;
  out.cpu_s = cpu_seconds() - c0;
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  out.sim_time_s = static_cast<double>(r.makespan) * 1e-12;
  out.messages = r.messages;
  out.ok = true;
  return out;
}

Run run_simgrid(int chunks) {
  Run out;
#ifdef PARASCOPE_SIMGRID_RING
  const std::string cmd = std::string(PARASCOPE_SIMGRID_RING) + " 8 1073741824 " + std::to_string(chunks) +
                          " 8 450e9 5e-7 16 --cfg=network/model:CM02 --cfg=network/crosstraffic:0 --log=root.thres:warning 2>&1";
  const double c0 = children_cpu_seconds();
  const auto w0 = std::chrono::steady_clock::now();
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) {
    out.note = "could not start " + std::string(PARASCOPE_SIMGRID_RING);
    return out;
  }
  std::array<char, 512> line;
  double wall_run = -1;
  while (fgets(line.data(), line.size(), p)) {
    double v = 0;
    long msgs = 0;
    if (const char* s = std::strstr(line.data(), "sim_time="); s && std::sscanf(s, "sim_time=%lf", &v) == 1) out.sim_time_s = v;
    if (const char* s = std::strstr(line.data(), "wall_run="); s && std::sscanf(s, "wall_run=%lf", &v) == 1) wall_run = v;
    if (const char* s = std::strstr(line.data(), "messages="); s && std::sscanf(s, "messages=%ld", &msgs) == 1) out.messages = static_cast<uint64_t>(msgs);
  }
  const int status = pclose(p);
  out.cpu_s = children_cpu_seconds() - c0;
  out.wall_s = wall_run >= 0 ? wall_run : std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  out.ok = status == 0 && out.sim_time_s > 0;
  if (!out.ok) out.note = "SimGrid run failed";
#else
  (void)chunks;
  out.note = "SimGrid not found at configure time (apt-get install libsimgrid-dev, then re-run cmake): skipped";
#endif
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int chunks = 1024, reps = 3;
  std::string json_path = "bench_simgrid_ring.json";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--chunks") chunks = std::atoi(argv[i + 1]);
    else if (a == "--reps") reps = std::max(1, std::atoi(argv[i + 1]));
    else if (a == "--json") json_path = argv[i + 1];
    else {
      std::fprintf(stderr, "usage: %s [--chunks N] [--reps N] [--json FILE]\n", argv[0]);
      return 2;
    }
  }
  // Alternate the two so both see the same machine load.
  std::vector<double> ps_wall, ps_cpu, sg_wall, sg_cpu;
  Run ps, sg;
  for (int r = 0; r < reps; ++r) {
    sg = run_simgrid(chunks);
    if (sg.ok) {
      sg_wall.push_back(sg.wall_s);
      sg_cpu.push_back(sg.cpu_s);
    }
    for (int k = 0; k < 3; ++k) {
      ps = run_parascope(chunks);
      ps_wall.push_back(ps.wall_s);
      ps_cpu.push_back(ps.cpu_s);
    }
  }
  const double psw = best(ps_wall), psc = best(ps_cpu);
  std::printf("ring all-reduce, 8 GPUs, 1 GiB, 16 channels x %d chunks, window 8, 450 GB/s, 500 ns\n", chunks);
  std::printf("  %-10s %12s %14s %10s %10s %10s %10s %14s\n", "simulator", "messages", "sim time", "best wall", "med wall", "best cpu",
              "med cpu", "msgs/wall s");
  std::printf("  %-10s %12llu %12.6e s %8.4f s %8.4f s %8.4f s %8.4f s %14.3e  (%zu runs)\n", "parascope",
              static_cast<unsigned long long>(ps.messages), ps.sim_time_s, psw, median(ps_wall), psc, median(ps_cpu),
              static_cast<double>(ps.messages) / psw, ps_wall.size());
  double speedup = 0, cpu_speedup = 0, diff = 0, med_speedup = 0;
  if (sg.ok) {
    const double sgw = best(sg_wall), sgc = best(sg_cpu);
    std::printf("  %-10s %12llu %12.6e s %8.4f s %8.4f s %8.4f s %8.4f s %14.3e  (%zu runs)\n", "simgrid",
                static_cast<unsigned long long>(sg.messages), sg.sim_time_s, sgw, median(sg_wall), sgc, median(sg_cpu),
                static_cast<double>(sg.messages) / sgw, sg_wall.size());
    speedup = sgw / psw;
    med_speedup = median(sg_wall) / median(ps_wall);
    cpu_speedup = sgc / psc;
    diff = ps.sim_time_s / sg.sim_time_s - 1;
    std::printf("  parascope is %.1fx faster in best wall time (%.1fx in median wall, %.1fx in CPU time); simulated times differ by %+.4f %%\n",
                speedup, med_speedup, cpu_speedup, 100 * diff);
  } else {
    std::printf("  %-10s %s\n", "simgrid", sg.note.c_str());
  }
  std::ofstream j(json_path);
  j << "{\n  \"schema_version\": 1,\n  \"scenario\": \"ring allreduce 8 GPUs 1GiB 16 channels window 8 450GB/s 500ns\",\n"
    << "  \"chunks\": " << chunks << ",\n  \"reps\": " << reps << ",\n  \"parascope\": {\"messages\": " << ps.messages
    << ", \"sim_time_s\": " << ps.sim_time_s << ", \"best_wall_s\": " << psw << ", \"median_wall_s\": " << median(ps_wall)
    << ", \"best_cpu_s\": " << psc << "},\n"
    << "  \"simgrid\": " << (sg.ok ? "{\"messages\": " + std::to_string(sg.messages) + ", \"sim_time_s\": " + std::to_string(sg.sim_time_s) +
                                          ", \"best_wall_s\": " + std::to_string(best(sg_wall)) + ", \"median_wall_s\": " +
                                          std::to_string(median(sg_wall)) + ", \"best_cpu_s\": " + std::to_string(best(sg_cpu)) + "}"
                                    : std::string("null"))
    << ",\n  \"wall_speedup_best\": " << speedup << ",\n  \"wall_speedup_median\": " << med_speedup << ",\n  \"cpu_speedup\": " << cpu_speedup << ",\n  \"sim_time_relative_difference\": " << diff
    << "\n}\n";
  std::printf("wrote %s\n", json_path.c_str());
  return 0;
}
