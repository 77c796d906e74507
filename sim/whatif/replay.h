// The replay engine: runs a DepGraph forward in time. A node starts when its lane predecessor has
// ended (plus the lane gap) and every start dependency is met; a blocking host call ends when its
// own work is done and the GPU work it waits for has ended. A collective's members rendezvous:
// each occupies its stream (and holds its SMs) from its arrival, and the transfer runs, on every
// member at once, from the last arrival for the duration the interconnect model gave it.
// Interference follows the simulator's rule (simulator.h): while communication runs on a GPU,
// compute there runs on the SMs left, slowed further by comm_interference; communication slows by
// comm_slowdown while compute runs, and concurrent transfers on a GPU share it equally. Compute
// durations are the measured ones with the measured interference taken out first, so the
// unchanged graph replays its own measurement; comm_slowdown, unless set, is the one the
// measurement shows (measured_comm_slowdown). A kernel that becomes ready while another stream's
// kernel occupies every SM in one wave (Node::fills_gpu) starts only when that kernel ends. Deterministic: integer ns, ordered event queue.
#pragma once

#include <string>
#include <vector>

#include "sim/whatif/dep_graph.h"

namespace parascope::whatif {

struct ReplayConfig {
  double comm_interference = 0;  // compute slow-down while communication runs (beyond the SMs it holds)
  double comm_slowdown = 0;      // communication slow-down while compute runs
  double cpu_scale = 1.0;        // host call work and host gaps are multiplied by this
  std::vector<uint32_t> gpu_sms; // per topology GPU: SM count (0: the trace's device value, else 132)
};

// What each group's transfer takes, from the interconnect model (or the measurement).
struct GroupWork {
  TimeNs duration = -1;          // -1: the members' measured durations (the shortest when they rendezvous)
  uint32_t sms = 0;              // SMs each member holds from its arrival to its end
};

enum class Cause : uint8_t {
  kNone,       // started at its measured time (nothing before it)
  kLane,       // its lane predecessor ended
  kEdge,       // an explicit edge (launch, event wait, join...)
  kOwnWork,    // ran for its own duration
  kRendezvous, // a collective waited for its last member to arrive
  kHostWait,   // a blocking call waited for GPU work
  kDispatch,   // ready while another stream's kernel held every SM: started when that one ended
};

struct ReplayResult {
  std::vector<TimeNs> start, end;       // per node, on the trace clock; -1 for removed nodes
  std::vector<int32_t> start_by;        // per node: the node whose end/start released it, -1
  std::vector<Cause> start_cause;
  std::vector<int32_t> end_by;          // per node: node that decided its end (rendezvous, host wait), -1: own work
  std::vector<Cause> end_cause;
  std::vector<TimeNs> group_start;      // per group: transfer start (last arrival), -1 when not run
  std::vector<TimeNs> group_end;
  TimeNs first = 0, last = 0;           // earliest start, latest end
  uint64_t events = 0;
  std::vector<std::string> warnings;    // deadlocks (nodes that never ran)
};

// The compute work at full speed implied by a measured duration: time overlapped with
// communication ran at `rate` (the interference model's compute rate on that GPU).
TimeNs deinterfered_work(TimeNs measured, TimeNs overlap, double rate);

// The slow-down of communication beside compute that the measurement shows. Per complete group
// whose last-arriving member m (the shortest: it waited least for its peers) ran beside compute for
// at least half its measured time d, with o = m.compute_overlap and a = alone[group] (the model's
// duration for it alone): d - o ran alone at full rate, so o covered a - (d - o) of work and the
// factor is o / (a - (d - o)); groups where d - o >= a (the member waited for SMs or peers, not
// for bandwidth) say nothing. Result: the median factor over the groups minus 1, at least 0; 0
// when no group qualifies. alone[g] <= 0: group g is skipped.
double measured_comm_slowdown(const DepGraph& g, const std::vector<TimeNs>& alone);

ReplayResult replay(const DepGraph& g, const std::vector<GroupWork>& group_work, const ReplayConfig& config);

}  // namespace parascope::whatif
