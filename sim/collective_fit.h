// The collective model against measured collective timings (resources/captures/.../nccl_collectives.json:
// rows of op all_reduce|all_gather|reduce_scatter|sendrecv, dtype, bytes, world, median_ns...). Two
// fitted numbers per GPU: the aggregate SM copy throughput (sm_copy_GBps, which every NCCL primitive
// charges by its loads/stores) and the kernel's fixed latency (kernel_latency_ns); everything else
// comes from the topology and the P2P calibration. Rows whose time is within 2x the op's launch floor
// (the median of its <= 1 MiB rows) measure the launch path, not the GPU: they are flagged and never
// fitted. A fit set is chosen by dtype and sizes; every other row is held out. Also the compute /
// communication interference from the captures' interference.json. Deterministic grid searches.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "trace/core/topology.h"

namespace parascope::sim {

struct CollectiveTiming {
  std::string op;        // workload op: allreduce, allgather, reducescatter, sendrecv
  std::string dtype;
  double file_bytes = 0; // as the file gives it (all_gather: the gathered output)
  double bytes = 0;      // per-rank input, the `bytes` knob
  int32_t world = 0;
  double median_ns = 0, p10_ns = 0, p90_ns = 0;
  double launch_floor_ns = 0;
  bool launch_bound = false;
};

std::vector<CollectiveTiming> load_collective_timings(const std::string& path);

struct CollectiveFitOptions {
  std::string fit_dtype = "bfloat16";
  std::vector<double> fit_bytes = {64.0 * (1 << 20), 256.0 * (1 << 20)};  // per-rank sizes in the fit set
  std::vector<std::pair<std::string, std::string>> knobs = {{"channels", "24"}};  // what NCCL ran with
};

struct CollectivePrediction {
  CollectiveTiming timing;
  double predicted_ns = 0;
  double error = 0;      // predicted / measured - 1
  bool in_fit = false;
};

struct ErrorStats {
  size_t count = 0;
  double median_abs = 0, max_abs = 0;
};
ErrorStats error_stats(const std::vector<double>& errors);

struct CollectiveFit {
  double sm_copy_GBps = 0;
  double kernel_latency_ns = 0;
  std::vector<CollectivePrediction> rows;  // every row, fitted ones marked
  ErrorStats fit, held_out;                // launch-bound rows excluded from both
};

bool in_fit_set(const CollectiveTiming& t, const CollectiveFitOptions& opt);
// Simulated time of one measured collective on `topo` with `knobs` (ns).
double simulate_timing(const Topology& topo, const CollectiveTiming& t, const std::vector<std::pair<std::string, std::string>>& knobs);
CollectiveFit fit_collectives(const Topology& topo, const std::vector<CollectiveTiming>& rows, const CollectiveFitOptions& opt);
void apply_collective_fit(Topology& topo, const CollectiveFit& fit);

struct InterferenceTiming {
  double gemm_alone_ns = 0;
  double allreduce_bytes = 0;
  double allreduce_alone_ns = 0;
  double concurrent_ns = 0;    // 4 GEMMs on one stream + the all-reduce on another
  double serial_ns = 0;
};
std::vector<InterferenceTiming> load_interference(const std::string& path);

struct InterferenceFit {
  double bf16_TFLOPs = 0;       // achieved by the 8192^3 GEMM (median of the rows)
  double comm_interference = 0;
  std::vector<double> predicted_concurrent_ns;
  std::vector<double> errors;   // concurrent time, predicted / measured - 1
};
InterferenceFit fit_interference(const Topology& topo, const std::vector<InterferenceTiming>& rows,
                                 const std::vector<std::pair<std::string, std::string>>& knobs);
void apply_interference_fit(Topology& topo, const InterferenceFit& fit);

}  // namespace parascope::sim
