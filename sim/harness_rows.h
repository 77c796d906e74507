// Measured rows of parascope-bench's result files (collectives, nccl, all_reduce_small, ...: rows of
// op, variant, mechanism, dtype, bytes, nranks, sms, threads, timing, median_ns ...; docs/kernels.md)
// and, for each, the simulator workload that runs the same algorithm with the same SMs, threads and
// mechanism (docs/accuracy.md lists the mapping). A row the simulator does not model says why.
#pragma once

#include <string>
#include <vector>

#include "sim/collectives.h"
#include "trace/core/topology.h"

namespace parascope::sim {

struct HarnessRow {
  std::string file;        // where it came from
  std::string op;          // all_reduce, all_gather, reduce_scatter, all_to_all, sendrecv, graph_floor, p2p, ...
  std::string variant;     // nccl, oneshot_push, twoshot_ldst, ...
  std::string mechanism;   // ldst_push, ldst_pull, tma, ce, nccl, ...
  std::string dtype;       // bf16, fp32
  double bytes = 0;        // as the file gives it (nccl-tests convention: all-gather = the gathered output)
  int32_t nranks = 0;
  int32_t sms = 0, threads = 0;
  std::string timing;      // graphs | stream
  std::string protocol;    // NCCL rows run with NCCL_PROTO forced (simple | ll | ll128); empty: NCCL's choice
  double median_ns = 0, p10_ns = 0, p90_ns = 0;
};

// Passing rows only (ok = true); InputError with the JSON path on a bad file.
std::vector<HarnessRow> load_harness_rows(const std::string& path);

struct HarnessWorkload {
  bool modelled = false;
  std::string why;         // when not modelled
  std::string spec;        // the workload, as `simulate -w` takes it
};
HarnessWorkload harness_workload(const HarnessRow& row);

// The simulated time of a modelled row on `topo` (ns); `overrides` as `simulate --set`.
double simulate_harness_row(const Topology& topo, const HarnessRow& row, const KnobSettings& overrides = {});

// The launch floor of one kernel in a CUDA graph: the median of the graph_floor rows without
// programmatic dependent launch (0 when the rows have none).
double graph_floor_ns(const std::vector<HarnessRow>& rows);

}  // namespace parascope::sim
