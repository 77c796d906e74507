// The design-space exploration of a task's communication, with the simulator: for each collective
// of an iteration (on 2 or more ranks) every transfer mechanism (copy engine, TMA, LD/ST push and
// pull) of the direct one-kernel designs at several SM counts beside NCCL's ring as modelled; where
// a GEMM sits next to it (an all-gather before one, a reduce-scatter after one), the fused kernel
// with inter-SM overlap on k communication SMs or intra-SM overlap, at several chunk sizes (its
// granularity of overlap; the direct kernels move one message per block). Each design is
// predicted alone; the task's time with it is PKB's measured time minus the measured time of what
// it replaces plus its prediction (the rest of the iteration as measured), and never less than the
// host's own time per iteration: a host-bound loop gains nothing from a faster kernel. On a one-GPU
// recording (record --world) the collectives did not run; the reference is then PKB's time plus
// NCCL's collectives as modelled. The best design per
// target is combined into the task's best, named with its predicted time, speed-up and reason.
#pragma once

#include <string>
#include <vector>

#include "pkb/task/sim_adapter.h"
#include "pkb/task/task_ops.h"

namespace parascope::pkb {

struct Design {
  int target = 0;             // index into DesignSpace::targets
  std::string label;          // "one_shot ldst, 32 SMs, 64 KiB chunks"
  std::string algorithm;      // ring (NCCL), one_shot, two_shot, fused
  std::string mechanism;      // ce, tma, ldst, ldst_pull, tma_pull
  std::string overlap;        // unfused, inter_sm, intra_sm
  int sms = 0;                // channels / blocks, or communication SMs of a fused kernel
  int64_t chunk_bytes = 0;
  bool fused = false;
  bool nccl_model = false;    // the model of what the reference runs
  SimRequest request;
  bool ok = false;
  std::string error;
  double predicted_s = 0;     // the replaced ops' predicted time
  double task_s = 0;          // PKB's time with this design
  double speedup = 0;         // reference / task_s
};

struct DesignTarget {
  std::string label;          // "all-reduce #1, 2.10 MB on 2 ranks" / "all-gather #1 + GEMM 1024x1024x512"
  std::vector<int> positions; // the IterationOps it replaces
  double measured_s = 0;      // their measured time per iteration
  int best = -1;              // index into DesignSpace::designs
  int nccl = -1;              // the NCCL model's design
};

struct DesignSpace {
  std::vector<DesignTarget> targets;
  std::vector<Design> designs;
  // the reference the speed-ups are against: PKB's time, plus NCCL's modelled collectives on a
  // one-GPU recording (record --world: its stand-in collectives took no time)
  double reference_s = 0;
  // the task's best: each target's best design together
  double best_task_s = 0, best_speedup = 0;
  std::string best_label, reason, note;
};

// `host_s`: the host's time per iteration (task_breakdown.h); a design's task time never goes
// below it (the Python loop enqueues no faster), 0 when unknown.
DesignSpace explore_designs(const TaskOps& ops, double reference_s, double host_s, const Topology& machine,
                            double latency_floor_s);

}  // namespace parascope::pkb
