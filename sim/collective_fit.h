// Fits the collective model through the simulator itself, on the harness rows a FitSplit names
// (sim/accuracy.h; the rest is validation, docs/accuracy.md): NCCL's profile (fixed costs, per-channel
// rate at knots of ring-step size), the direct kernels' shared GpuSpec parameters (signal latency,
// local copy per SM, reduce cost, HBM), and the compute/communication interference. Deterministic:
// squared log time ratios minimised by sim/minimize.h's Nelder-Mead.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sim/accuracy.h"
#include "sim/harness_rows.h"
#include "trace/core/topology.h"

namespace parascope::sim {

struct NcclFit {
  NcclProfile profile;
  double cost = 0;
  int evaluations = 0;
};
// One curve per operation (all-reduce, all-gather, reduce-scatter, send/recv) and protocol, knots every
// factor 4 of ring-step size from the fit rows' smallest step to their largest. `structure` gives what is
// not a timing: the channels NCCL ran with and, when set, its logged per-call choices (ll_max_bytes,
// ll_max_buffer_bytes: which rows ran LL; channel_min_bytes) with Simple's extra fixed cost
// (simple_extra_ns, simple_extra_per_step_ns: a-priori, NCCL's latency model; fitted from there when
// rows forced Simple where NCCL picks LL). Rows with a forced protocol (HarnessRow::protocol) go to
// that protocol's curve. Fitted: the three fixed costs by Nelder-Mead; inside each evaluation every
// row's rate solved through the simulator and each curve's knots by weighted least squares in log-log.
NcclFit fit_nccl_profile(const Topology& topo, const std::vector<HarnessRow>& rows, const FitSplit& split,
                         const NcclProfile& structure);

struct KernelFit {  // the direct kernels' 5 shared parameters
  double signal_latency_ns = 0;
  double local_copy_GBps_per_sm = 0;
  double reduce_cost = 1;
  double hbm_GBps = 0;
  double block_latency_ns = 0;  // per block beyond the first, on the kernel's fixed cost
  double cost = 0;
  int evaluations = 0;
};
KernelFit fit_kernel_params(const Topology& topo, const std::vector<HarnessRow>& rows, const FitSplit& split);
void apply_kernel_fit(Topology& topo, const KernelFit& fit);

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
  std::vector<double> errors;   // concurrent time, predicted / measured - 1 (per row)
  std::vector<bool> fitted;     // per row: used by the grid search (else scored only: the scored half, not blind)
};
// comm_interference is grid-searched on the rows whose all-reduce size is one of `fit_bytes`
// (FitSplit's NCCL fit sizes: on interference.json 16 and 256 MiB) and scored on every row; the
// others (64 MiB) are the scored half: not fitted, but not blind (the same file, measured before the
// model, the split chosen with it in view). No row at those sizes: every row fits.
InterferenceFit fit_interference(const Topology& topo, const std::vector<InterferenceTiming>& rows, const KnobSettings& knobs = {},
                                 const std::vector<double>& fit_bytes = FitSplit{}.fit_bytes);
void apply_interference_fit(Topology& topo, const InterferenceFit& fit);

}  // namespace parascope::sim
