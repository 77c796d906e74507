// The dependency graph of a traced run: which operation waited for which, rebuilt from any
// importer's Trace so the run can be replayed and changed. Nodes are host API calls and GPU
// operations; lanes (CPU threads, GPU streams) keep their order implicitly; every other
// dependency is an explicit typed edge; collectives and P2P transfers are cross-rank groups that
// rendezvous. What the trace does not say exactly is inferred and marked so, then checked against
// the measured times; cycles, unmatched collectives and clock skew are reported in `diagnostics`,
// never hidden. Measured times stay in the nodes, so a replay can be compared with them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "trace/core/trace.h"

namespace parascope::whatif {

enum class NodeType : uint8_t {
  kHostCall,    // a CUDA runtime/driver call on a CPU thread
  kCompute,     // a GPU kernel that is not communication
  kCollective,  // a communication kernel, member of a cross-rank group
  kCopy,        // a host<->device or device-local copy (measured duration kept)
  kPeerCopy,    // a copy between two GPUs (timed by the interconnect model)
  kMemset,
  kFused,       // a GEMM fused with its collective (made by the fuse transform)
};
std::string_view to_string(NodeType k);
inline bool is_gpu(NodeType k) { return k != NodeType::kHostCall; }

enum class LaneKind : uint8_t { kThread, kStream };

enum class EdgeKind : uint8_t {
  kLaunch,       // host launch call -> the GPU operation it enqueued (flow or correlation id)
  kGraphLaunch,  // cudaGraphLaunch -> each GPU operation of the graph
  kEventWait,    // op captured by an event record -> first op after the stream wait on that event (also
                 // a dependency flow between two GPU operations, as the stand-in recording writes)
  kHostSync,     // GPU op -> the blocking host call that waited for it (device/stream/event sync, sync copy,
                 // a dependency flow into a host call)
  kCollective,   // member -> member of one cross-rank collective (first member to each other)
  kSendRecv,     // send -> receive of a P2P transfer
  kJoin,         // added by a transform: a moved collective -> the op that must wait for it
  kDispatch,     // inferred: a kernel that started only when another stream's kernel, holding
                 // the SMs, ended (the block scheduler served that one first)
  kCount
};
std::string_view to_string(EdgeKind k);

// When the successor may run, relative to the predecessor.
enum class EdgeTiming : uint8_t {
  kFinishToStart,   // successor starts >= predecessor end + lag
  kStartToStart,    // successor starts >= predecessor start + lag (a launch)
  kFinishToFinish,  // successor ends >= predecessor end + lag (a blocking host call)
};

struct Edge {
  uint32_t from = 0, to = 0;
  EdgeKind kind = EdgeKind::kLaunch;
  EdgeTiming timing = EdgeTiming::kFinishToStart;
  TimeNs lag = 0;
  bool inferred = false;  // found by a heuristic (e.g. event ids missing), not read from the trace
};

// What a communication node moves, in the simulator's terms (collectives.h: `bytes` per rank).
struct CommSpec {
  CollectiveOp op = CollectiveOp::kUnknown;
  double bytes = 0;              // 0: unknown size (the measured duration is kept)
  std::vector<int32_t> gpus;     // topology GPU indexes, in group-rank order
  uint32_t channels = 0;         // 0: the knob's value
  std::string algorithm;         // "": the knob's value
  std::string protocol;          // "": the knob's value
  Mechanism mechanism = Mechanism::kUnknown;  // kUnknown: the knob's value
  // kFused: the GEMM the collective is fused with (collectives.h fused model)
  bool fused_allgather_first = false;
  int64_t gemm_m = 0, gemm_n = 0, gemm_k = 0;
  double gemm_efficiency = 1.0;
};

struct CommGroup {
  CommSpec spec;
  std::vector<uint32_t> members;  // nodes, one per rank
  int64_t sequence = -1;          // from the trace when matched by sequence number
  bool complete = true;           // every rank of the group is present
  bool measured_only = false;     // no size known: replay keeps the measured duration
};

struct Node {
  NodeType kind = NodeType::kCompute;
  uint32_t lane = 0;
  int32_t device = -1;            // index into DepGraph::devices, -1 for host calls
  uint32_t process = 0;           // index into DepGraph::processes
  uint32_t name = 0;              // index into DepGraph::names
  EventRef source;                // the trace slice it came from (invalid for made-up nodes)
  TimeNs start = 0, dur = 0;      // measured, on the trace clock
  TimeNs work = 0;                // replay: run time at full speed (compute: de-interfered by replay)
  TimeNs gap = 0;                 // replay: lag after the lane predecessor's end
  TimeNs comm_overlap = 0;        // measured time this compute op shared its GPU with communication
  TimeNs compute_overlap = 0;     // measured time this communication op shared its GPU with compute
  int32_t group = -1;             // CommGroup of kCollective / kPeerCopy / kFused nodes
  int32_t step = -1;              // index into DepGraph::steps, -1 outside every step
  bool blocking = false;          // host call that ends only when its kHostSync predecessors end
  bool from_graph = false;        // launched as part of a CUDA graph
  bool removed = false;           // taken out by a transform (fused, merged): in no lane, no edge
  // One resident wave on every SM (a persistent GEMM): a kernel of another stream that becomes
  // ready while it runs gets no SM until it ends (the block scheduler does not preempt).
  bool fills_gpu = false;
};

struct Lane {
  LaneKind kind = LaneKind::kStream;
  uint32_t process = 0;
  int32_t device = -1;            // DepGraph::devices index for streams
  int64_t id = 0;                 // thread id or stream id
  std::string name;               // "thread 12", "stream 7", "stand-in collectives (group 0)" (stream_label); empty: made by a transform
  std::vector<uint32_t> nodes;    // in execution order
};

struct GraphDevice {
  uint32_t trace_device = 0;
  uint32_t process = 0;
  int32_t gpu = 0;                // topology GPU index the replay runs it on
  uint32_t sm_count = 0;
};

struct GraphProcess {
  uint32_t trace_process = 0;
  int32_t rank = -1;
  std::string name;
};

struct StepRange {
  uint32_t process = 0;
  TimeNs start = 0, end = 0;      // measured host range of the step on that process
  int64_t thread = -1;            // the CPU thread (Lane::id) whose range it is; -1: several, or none
};

struct Step {
  std::string name;               // "ProfilerStep#3", a --step match, or "trace"
  std::vector<StepRange> ranges;  // one per process that has it
};

struct UnmatchedCollective {
  uint32_t node = 0;
  std::string reason;             // "rank 1 missing", "no size", ...
};

struct CycleReport {
  std::vector<uint32_t> nodes;    // the cycle, in order
  std::string broken_by;          // what was removed to break it
};

struct GraphDiagnostics {
  uint64_t edges_by_kind[static_cast<int>(EdgeKind::kCount)] = {};
  uint64_t inferred_edges = 0;
  uint64_t contradicted_edges = 0;  // inferred edges the measured times refute (dropped)
  std::vector<std::string> contradicted_examples;
  uint64_t groups = 0, complete_groups = 0, group_members = 0;
  uint64_t matched_by_sequence = 0, matched_by_order = 0, matched_by_name = 0;
  std::vector<UnmatchedCollective> unmatched;
  uint64_t unsized_comm = 0;        // communication kept at its measured duration
  std::vector<CycleReport> cycles;
  // Clock skew between ranks: members of one collective end together on a real clock, so the
  // median end difference estimates each process's offset from the first; a member that ended
  // before another began is a causality violation, i.e. at least that much clock error.
  std::vector<TimeNs> process_offset_ns;  // per process, relative to process 0 (0 when unknown)
  uint64_t causality_violations = 0;
  TimeNs max_violation_ns = 0;
  uint64_t kernels_before_launch = 0;  // GPU op started before its launch call: CPU/GPU clocks disagree
  TimeNs max_kernel_before_launch_ns = 0;
  // GPU ops that started later than every known dependency allows (by > 20 us): a dependency the
  // trace does not show (or a wait on another rank without a collective annotation). Those that
  // started as another stream's compute kernel ended get a kDispatch edge and are not counted.
  uint64_t unexplained_waits = 0;
  TimeNs unexplained_wait_ns = 0;
  std::vector<std::string> warnings;
};

struct DepGraph {
  std::vector<Node> nodes;
  std::vector<Lane> lanes;
  std::vector<Edge> edges;
  std::vector<CommGroup> groups;
  std::vector<GraphDevice> devices;
  std::vector<GraphProcess> processes;
  std::vector<Step> steps;
  std::vector<std::string> names;
  GraphDiagnostics diagnostics;
  TimeNs origin = 0;              // earliest measured node start

  uint32_t intern(std::string_view name);
  std::string_view name_of(const Node& n) const { return names[n.name]; }
  uint32_t add_node(Node n);      // appends; the caller places it in a lane
  int32_t gpu_count() const;      // 1 + the largest topology GPU index

 private:
  std::unordered_map<std::string, uint32_t> name_index_;
};

struct GraphOptions {
  // Step ranges: slices named ProfilerStep#N; else ranges whose name matches this regex (NVTX,
  // annotations, CPU ops); else the whole trace.
  std::string step_regex;
  // Used when the trace shows no launch-bound kernel to measure it from.
  TimeNs default_launch_latency_ns = 5'000;
  // A stream gap longer than this is a wait, not the GPU's own cost between kernels.
  TimeNs max_stream_gap_ns = 10'000;
};

// Never throws on odd traces: what it cannot use is counted in diagnostics.
DepGraph build_dep_graph(const Trace& trace, const GraphOptions& options = {});

// Checks for cycles (through lanes, edges and group rendezvous) and breaks each by removing an
// inferred edge, else dissolving a collective group, else a host-sync edge; reports each in
// diagnostics.cycles. build_dep_graph calls it; transforms that add edges call it again.
void break_cycles(DepGraph& g);

// Rebuilds diagnostics.edges_by_kind from the edge list (after transforms).
void count_edges(DepGraph& g);

// What the simulator moves for a collective annotation (collectives.h `bytes` per rank: all-gather
// the per-rank input, reduce-scatter and the others the larger of input and output); 0 unknown.
double collective_bytes(const CollectiveInfo& c);

}  // namespace parascope::whatif
