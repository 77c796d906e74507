// The engine: runs a Workload on a sealed Platform. Actors execute their programs at zero cost
// between waits; messages become transfers in the BandwidthModel when both a send and a receive
// credit exist (latency first, then shared bandwidth); compute ops hold SMs and are stretched by the
// SMs left to them and by the GPU's measured interference while communication runs there. Time
// advances in timestamp batches: everything due at t runs, then rates are re-solved once. No wall
// clock, no randomness: the same inputs give the same result bit for bit.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/event_queue.h"
#include "sim/flow_model.h"
#include "sim/platform.h"
#include "sim/workload.h"

namespace parascope::sim {

struct SimOptions {
  bool record_link_samples = false;  // per-resource load history (counter tracks in the trace)
  bool record_compute_spans = true;  // one span per compute op
};

struct ActorTimes {
  TimePs start = -1;                 // first op ran
  TimePs end = -1;                   // program done and every transfer it posted complete
};

struct ComputeSpan {
  uint32_t actor = 0;
  TimePs start = 0, end = 0;
};

struct SimResult {
  TimePs makespan = 0;
  std::vector<ActorTimes> actors;
  std::vector<ComputeSpan> compute_spans;
  uint64_t messages = 0;             // transfers started (messages + puts)
  uint64_t batches = 0;              // distinct timestamps processed
  FlowModelStats flow_stats;
  std::vector<std::string> warnings;
};

class Simulator {
 public:
  // Throws std::invalid_argument when the workload does not fit the platform (unknown GPU, a
  // connection between GPUs without a route, NVLS without a switch...).
  Simulator(const Platform& platform, const Workload& workload, SimOptions opt = {});
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  SimResult run();

  const FlowModel& flows() const { return flows_; }
  // Platform resources keep their index in the model; each SM-limited actor adds one after them.
  int32_t agent_resource(uint32_t actor) const { return agent_res_[actor]; }

 private:
  struct ConnState;
  struct ActorState;
  struct ActorCold;
  struct GpuState;
  enum class Block : uint8_t { kNone, kReady, kAck, kRecv, kPutSlot, kAll, kCompute, kCounter, kDelay, kDone };

  void build_paths();
  void start_actor(uint32_t a, TimePs now);
  void run_actor(uint32_t a, TimePs now);
  void make_ready(uint32_t a);
  void try_match(uint32_t c, TimePs now);
  void on_transfer_done(uint64_t tag, TimePs now);
  void finish_actor(uint32_t a, TimePs now);
  void start_compute(uint32_t a, int64_t work_ps, TimePs now);
  void rerate_computes(int32_t gpu, TimePs now);
  double compute_rate(uint32_t a) const;
  bool all_done(uint32_t a) const;

  const Platform& platform_;
  const Workload& w_;
  SimOptions opt_;
  FlowModel flows_;
  EventQueue queue_;
  std::vector<int32_t> agent_res_;
  std::vector<ConnState> conns_;
  std::vector<ActorState> actors_;
  std::vector<ActorCold> cold_;
  std::vector<uint64_t> done_bits_;
  std::vector<double> pending_bytes_;
  std::vector<GpuState> gpus_;
  std::vector<uint32_t> put_path_;
  std::vector<TimePs> path_latency_;  // per flow-model path
  std::vector<int64_t> counters_;
  std::vector<std::vector<uint32_t>> counter_waiters_;
  std::vector<uint32_t> ready_;
  size_t ready_head_ = 0;
  std::vector<uint64_t> completed_;
  SimResult result_;
};

}  // namespace parascope::sim
