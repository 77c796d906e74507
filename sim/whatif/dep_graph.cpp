#include "sim/whatif/dep_graph.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <regex>
#include <set>

#include "trace/core/analysis/collective_bandwidth.h"
#include "trace/core/analysis/collective_matcher.h"
#include "trace/core/analysis/device_activity.h"
#include "sim/whatif/world_graph.h"
#include "trace/core/classify.h"
#include "trace/core/step_name.h"

namespace parascope::whatif {

std::string_view to_string(NodeType k) {
  switch (k) {
    case NodeType::kHostCall: return "host call";
    case NodeType::kCompute: return "compute";
    case NodeType::kCollective: return "collective";
    case NodeType::kCopy: return "copy";
    case NodeType::kPeerCopy: return "peer copy";
    case NodeType::kMemset: return "memset";
    case NodeType::kFused: return "fused";
  }
  return "?";
}

std::string_view to_string(EdgeKind k) {
  switch (k) {
    case EdgeKind::kLaunch: return "launch";
    case EdgeKind::kGraphLaunch: return "graph launch";
    case EdgeKind::kEventWait: return "event wait";
    case EdgeKind::kHostSync: return "host sync";
    case EdgeKind::kCollective: return "collective";
    case EdgeKind::kSendRecv: return "send/recv";
    case EdgeKind::kJoin: return "join";
    case EdgeKind::kDispatch: return "dispatch";
    case EdgeKind::kCount: break;
  }
  return "?";
}

uint32_t DepGraph::intern(std::string_view name) {
  auto it = name_index_.find(std::string(name));
  if (it != name_index_.end()) return it->second;
  names.emplace_back(name);
  const auto id = static_cast<uint32_t>(names.size() - 1);
  name_index_.emplace(names.back(), id);
  return id;
}

uint32_t DepGraph::add_node(Node n) {
  nodes.push_back(std::move(n));
  return static_cast<uint32_t>(nodes.size() - 1);
}

int32_t DepGraph::gpu_count() const {
  int32_t n = 0;
  for (const GraphDevice& d : devices) n = std::max(n, d.gpu + 1);
  return n;
}

void count_edges(DepGraph& g) {
  std::fill(std::begin(g.diagnostics.edges_by_kind), std::end(g.diagnostics.edges_by_kind), 0);
  g.diagnostics.inferred_edges = 0;
  for (const Edge& e : g.edges) {
    ++g.diagnostics.edges_by_kind[static_cast<int>(e.kind)];
    g.diagnostics.inferred_edges += e.inferred;
  }
}

namespace {

constexpr TimeNs kWakeCapNs = 20'000;        // a blocking call returns this soon after its GPU work at most
constexpr TimeNs kBlockedCallCostNs = 1'000; // CPU cost of a sync call that had to wait
constexpr TimeNs kToleranceNs = 1'000;       // clock jitter allowed when checking inferred edges
constexpr TimeNs kUnexplainedNs = 20'000;

uint64_t key_of(EventRef r) { return (static_cast<uint64_t>(r.track) << 32) | r.index; }

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

bool is_device_sync(std::string_view n) {
  return n == "cudaDeviceSynchronize" || n == "cuCtxSynchronize" || n == "cudaThreadSynchronize";
}
bool is_stream_sync(std::string_view n) { return n == "cudaStreamSynchronize" || n == "cuStreamSynchronize"; }
bool is_event_sync(std::string_view n) { return n == "cudaEventSynchronize" || n == "cuEventSynchronize"; }
bool is_event_record(std::string_view n) { return contains(n, "EventRecord"); }
bool is_stream_wait(std::string_view n) { return contains(n, "StreamWaitEvent"); }
// A copy call that returns only when the copy is done (no Async in the name).
bool is_sync_copy(std::string_view n) {
  return (n.rfind("cudaMemcpy", 0) == 0 || n.rfind("cuMemcpy", 0) == 0) && !contains(n, "Async");
}

// Simulator bytes (collectives.h `bytes`: all-gather the per-rank input, reduce-scatter the whole
// input, all-reduce the buffer) from a Kineto-style annotation.
double sim_bytes(const CollectiveInfo& c) {
  if (c.dtype_bytes == 0) return 0;
  const double in = static_cast<double>(c.in_elements) * c.dtype_bytes;
  const double out = static_cast<double>(c.out_elements) * c.dtype_bytes;
  switch (c.op) {
    case CollectiveOp::kAllGather: return in > 0 ? in : 0;
    case CollectiveOp::kReduceScatter: return std::max(in, out);
    default: return std::max(in, out);
  }
}

// Per-SM limits of Hopper (sm_90): threads, registers, shared memory, resident blocks.
constexpr double kSmThreads = 2048, kSmRegisters = 65536, kSmSharedBytes = 233472, kSmBlocks = 32;

// Whether a launch is exactly one resident wave over every SM (persistent kernels): then no SM
// frees up for another stream's kernel until its blocks retire.
bool fills_gpu(const LaunchConfig& lc, uint32_t sm_count) {
  const double blocks = static_cast<double>(lc.grid[0]) * std::max(1u, lc.grid[1]) * std::max(1u, lc.grid[2]);
  const double threads = static_cast<double>(lc.block[0]) * std::max(1u, lc.block[1]) * std::max(1u, lc.block[2]);
  if (blocks <= 0 || threads <= 0 || sm_count == 0) return false;
  double per_sm = std::min(kSmBlocks, std::floor(kSmThreads / threads));
  if (lc.registers_per_thread) per_sm = std::min(per_sm, std::floor(kSmRegisters / (lc.registers_per_thread * threads)));
  const double smem = static_cast<double>(lc.static_smem) + lc.dynamic_smem;
  if (smem > 0) per_sm = std::min(per_sm, std::floor(kSmSharedBytes / smem));
  per_sm = std::max(1.0, per_sm);
  const double wave = per_sm * sm_count;
  return blocks >= 0.95 * wave && blocks <= wave;
}

// NCCL launches one block per channel.
uint32_t nccl_channels(const Trace& t, const Node& n) {
  const std::string_view name = t.str(t.tracks[n.source.track].slices.name[n.source.index]);
  if (name.rfind("ncclDevKernel", 0) != 0 && name.rfind("ncclKernel", 0) != 0) return 0;
  const SliceRef r = t.tracks[n.source.track].slices.ref[n.source.index];
  if (r.kind() != SliceKind::kKernel || !r.has_detail()) return 0;
  const LaunchConfig* lc = t.launch_config(t.kernel(r));
  return lc ? lc->grid[0] : 0;
}

TimeNs median(std::vector<TimeNs> v, TimeNs fallback) {
  if (v.empty()) return fallback;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

TimeNs percentile(std::vector<TimeNs> v, double q, TimeNs fallback) {
  if (v.empty()) return fallback;
  std::sort(v.begin(), v.end());
  const size_t i = std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())));
  return v[i];
}

class Builder {
 public:
  Builder(const Trace& t, const GraphOptions& o) : t_(t), o_(o), classify_(t) {}
  DepGraph build();

 private:
  void add_processes_and_devices();
  void add_host_lanes();
  void add_gpu_lanes();
  void add_launch_edges();
  void set_gaps_and_lags();
  void add_sync_and_event_edges();
  void add_dependency_flows();
  void add_collectives();
  void add_point_to_point();
  void add_unannotated_comm();
  void add_steps();
  void measure_overlap();
  void check_skew();
  void check_unexplained();
  void add_edge(uint32_t from, uint32_t to, EdgeKind k, EdgeTiming timing, TimeNs lag, bool inferred);
  int32_t node_of(EventRef r) const {
    auto it = node_of_.find(key_of(r));
    return it == node_of_.end() ? -1 : static_cast<int32_t>(it->second);
  }
  TimeNs end_of(uint32_t n) const { return g_.nodes[n].start + g_.nodes[n].dur; }
  // The GPU op launched most recently before `time` by `process` (from host lane `thread` when
  // >= 0: an event records what its own thread enqueued), on a lane other than `skip_lane`.
  int32_t last_launched_before(uint32_t process, TimeNs time, int64_t skip_lane, int64_t thread = -1) const;
  int32_t first_launched_after(uint32_t process, TimeNs time, int64_t lane) const;

  const Trace& t_;
  const GraphOptions& o_;
  SliceClassifier classify_;
  DepGraph g_;
  std::unordered_map<uint64_t, uint32_t> node_of_;        // slice -> node (nested API calls -> outer)
  std::vector<int32_t> device_of_trace_device_;           // trace device -> graph device
  std::vector<uint32_t> process_of_trace_process_;
  std::vector<int32_t> launch_of_;                        // per node: its launch host call, -1
  std::map<int64_t, std::vector<uint32_t>> launched_;     // per process: GPU nodes by launch start
  std::set<std::tuple<uint32_t, uint32_t, int>> edge_set_;
};

void Builder::add_edge(uint32_t from, uint32_t to, EdgeKind k, EdgeTiming timing, TimeNs lag, bool inferred) {
  if (from == to) return;
  if (!edge_set_.insert({from, to, static_cast<int>(k)}).second) return;
  g_.edges.push_back(Edge{from, to, k, timing, lag, inferred});
}

void Builder::add_processes_and_devices() {
  process_of_trace_process_.resize(t_.processes.size());
  for (uint32_t p = 0; p < t_.processes.size(); ++p) {
    process_of_trace_process_[p] = static_cast<uint32_t>(g_.processes.size());
    g_.processes.push_back({p, t_.processes[p].rank, t_.processes[p].name});
  }
  // Devices with GPU work, ordered by (rank, process, ordinal): topology GPU i is the i-th.
  std::vector<uint32_t> used;
  std::vector<bool> has(t_.devices.size(), false);
  for (const Track& tr : t_.tracks)
    if (tr.key.kind == TrackKind::kGpuStream && tr.key.device >= 0 && static_cast<size_t>(tr.key.device) < has.size() &&
        !tr.slices.empty())
      has[static_cast<size_t>(tr.key.device)] = true;
  for (uint32_t d = 0; d < t_.devices.size(); ++d)
    if (has[d]) used.push_back(d);
  auto rank_key = [&](uint32_t d) {
    const Device& dev = t_.devices[d];
    const int32_t r = t_.processes[dev.process].rank;
    return std::make_tuple(r < 0 ? INT32_MAX : r, dev.process, dev.ordinal);
  };
  std::stable_sort(used.begin(), used.end(), [&](uint32_t a, uint32_t b) { return rank_key(a) < rank_key(b); });
  device_of_trace_device_.assign(t_.devices.size(), -1);
  std::set<int32_t> taken;
  for (uint32_t d : used)
    if (t_.devices[d].topology_gpu >= 0) taken.insert(t_.devices[d].topology_gpu);
  // One physical GPU seen by several processes (a rank's syncs on its peer's GPU, a launcher's
  // context) is one topology GPU: same host and PCI bus id (or UUID).
  auto physical_key = [&](uint32_t d) -> std::string {
    const Device& dev = t_.devices[d];
    const std::string& id = !dev.pci_bus_id.empty() ? dev.pci_bus_id : dev.uuid;
    return id.empty() ? std::string() : t_.processes[dev.process].host + '|' + id;
  };
  std::map<std::string, int32_t> gpu_of_physical;
  for (uint32_t d : used)
    if (t_.devices[d].topology_gpu >= 0 && !physical_key(d).empty())
      gpu_of_physical.emplace(physical_key(d), t_.devices[d].topology_gpu);
  int32_t next = 0;
  for (uint32_t d : used) {
    GraphDevice gd;
    gd.trace_device = d;
    gd.process = process_of_trace_process_[t_.devices[d].process];
    gd.sm_count = t_.devices[d].sm_count;
    const std::string key = physical_key(d);
    const auto seen = key.empty() ? gpu_of_physical.end() : gpu_of_physical.find(key);
    if (t_.devices[d].topology_gpu >= 0) {
      gd.gpu = t_.devices[d].topology_gpu;
    } else if (seen != gpu_of_physical.end()) {
      gd.gpu = seen->second;
    } else {
      while (taken.count(next)) ++next;
      gd.gpu = next++;
      taken.insert(gd.gpu);
      if (!key.empty()) gpu_of_physical.emplace(key, gd.gpu);
    }
    device_of_trace_device_[d] = static_cast<int32_t>(g_.devices.size());
    g_.devices.push_back(gd);
  }
}

void Builder::add_host_lanes() {
  for (uint32_t ti = 0; ti < t_.tracks.size(); ++ti) {
    const Track& tr = t_.tracks[ti];
    if (tr.key.kind != TrackKind::kCpuThread) continue;
    const auto& s = tr.slices;
    Lane lane;
    lane.kind = LaneKind::kThread;
    lane.process = process_of_trace_process_[tr.key.process];
    lane.id = tr.key.id;
    lane.name = "thread " + std::to_string(tr.key.id);
    const auto lane_id = static_cast<uint32_t>(g_.lanes.size());
    int32_t outer = -1;
    TimeNs outer_end = INT64_MIN;
    for (uint32_t i = 0; i < s.size(); ++i) {
      if (s.ref[i].kind() != SliceKind::kRuntimeApi) continue;
      const EventRef ref{ti, i};
      if (outer >= 0 && s.start[i] < outer_end) {  // a driver call made by the runtime call around it
        node_of_[key_of(ref)] = static_cast<uint32_t>(outer);
        continue;
      }
      Node n;
      n.kind = NodeType::kHostCall;
      n.lane = lane_id;
      n.process = lane.process;
      n.name = g_.intern(t_.str(s.name[i]));
      n.source = ref;
      n.start = s.start[i];
      n.dur = s.dur[i];
      n.work = s.dur[i];
      const uint32_t id = g_.add_node(std::move(n));
      node_of_[key_of(ref)] = id;
      lane.nodes.push_back(id);
      outer = static_cast<int32_t>(id);
      outer_end = s.end(i);
    }
    if (!lane.nodes.empty()) g_.lanes.push_back(std::move(lane));
  }
}

void Builder::add_gpu_lanes() {
  for (uint32_t ti = 0; ti < t_.tracks.size(); ++ti) {
    const Track& tr = t_.tracks[ti];
    if (tr.key.kind != TrackKind::kGpuStream || tr.key.device < 0) continue;
    const int32_t dev = device_of_trace_device_[static_cast<size_t>(tr.key.device)];
    if (dev < 0) continue;
    const auto& s = tr.slices;
    Lane lane;
    lane.kind = LaneKind::kStream;
    lane.process = process_of_trace_process_[tr.key.process];
    lane.device = dev;
    lane.id = tr.key.id;
    lane.name = stream_label(tr.key);
    const auto lane_id = static_cast<uint32_t>(g_.lanes.size());
    // Every operation of the stream, nested or not: clock jitter (and programmatic dependent
    // launch) can make consecutive kernels of one stream overlap by a little.
    for (uint32_t i = 0; i < s.size(); ++i) {
      const SliceKind k = s.ref[i].kind();
      Node n;
      if (k == SliceKind::kKernel) {
        n.kind = classify_.is_communication(ti, i) ? NodeType::kCollective : NodeType::kCompute;
        if (s.ref[i].has_detail()) {
          const KernelInfo& ki = t_.kernel(s.ref[i]);
          n.from_graph = ki.graph_id != 0;
          if (const LaunchConfig* lc = t_.launch_config(ki); lc && n.kind == NodeType::kCompute)
            n.fills_gpu = fills_gpu(*lc, g_.devices[static_cast<size_t>(dev)].sm_count);
        }
      } else if (k == SliceKind::kMemcpy) {
        const MemcpyInfo& m = t_.memcpy(s.ref[i]);
        const bool peer = m.src_device != kNoDevice && m.dst_device != kNoDevice && m.src_device != m.dst_device;
        n.kind = peer ? NodeType::kPeerCopy : NodeType::kCopy;
      } else if (k == SliceKind::kMemset) {
        n.kind = NodeType::kMemset;
      } else {
        continue;  // syncs, annotations: not work
      }
      n.lane = lane_id;
      n.device = dev;
      n.process = lane.process;
      n.name = g_.intern(t_.str(s.name[i]));
      n.source = EventRef{ti, i};
      n.start = s.start[i];
      n.dur = s.dur[i];
      n.work = s.dur[i];
      const uint32_t id = g_.add_node(std::move(n));
      node_of_[key_of(EventRef{ti, i})] = id;
      lane.nodes.push_back(id);
    }
    if (!lane.nodes.empty()) g_.lanes.push_back(std::move(lane));
  }
}

void Builder::add_launch_edges() {
  launch_of_.assign(g_.nodes.size(), -1);
  for (const Flow& f : t_.flows) {
    if (f.kind != FlowKind::kLaunch) continue;
    const int32_t a = node_of(f.from), k = node_of(f.to);
    if (a < 0 || k < 0 || g_.nodes[static_cast<size_t>(a)].kind != NodeType::kHostCall || !is_gpu(g_.nodes[static_cast<size_t>(k)].kind))
      continue;
    launch_of_[static_cast<size_t>(k)] = a;
  }
  // Correlation ids where no flow says it (per process: CUPTI ids are per process).
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> api_by_corr;
  for (uint32_t n = 0; n < g_.nodes.size(); ++n) {
    const Node& node = g_.nodes[n];
    if (node.kind != NodeType::kHostCall) continue;
    const SliceRef ref = t_.tracks[node.source.track].slices.ref[node.source.index];
    if (ref.has_detail() && t_.api_calls[ref.index()].correlation)
      api_by_corr.emplace(std::make_pair(node.process, t_.api_calls[ref.index()].correlation), n);
  }
  for (uint32_t n = 0; n < g_.nodes.size(); ++n) {
    const Node& node = g_.nodes[n];
    if (!is_gpu(node.kind) || launch_of_[n] >= 0) continue;
    const SliceRef ref = t_.tracks[node.source.track].slices.ref[node.source.index];
    if (!ref.has_detail()) continue;
    uint32_t corr = 0;
    if (ref.kind() == SliceKind::kKernel) corr = t_.kernels[ref.index()].correlation;
    else if (ref.kind() == SliceKind::kMemcpy) corr = t_.memcpys[ref.index()].correlation;
    else if (ref.kind() == SliceKind::kMemset) corr = t_.memsets[ref.index()].correlation;
    if (!corr) continue;
    auto it = api_by_corr.find({node.process, corr});
    if (it != api_by_corr.end()) launch_of_[n] = static_cast<int32_t>(it->second);
  }
  for (uint32_t n = 0; n < g_.nodes.size(); ++n) {
    if (launch_of_[n] < 0) continue;
    const Node& a = g_.nodes[static_cast<size_t>(launch_of_[n])];
    launched_[g_.nodes[n].process].push_back(n);
    const std::string_view api = g_.names[a.name];
    const EdgeKind k = (contains(api, "Graph") || g_.nodes[n].from_graph) ? EdgeKind::kGraphLaunch : EdgeKind::kLaunch;
    add_edge(static_cast<uint32_t>(launch_of_[n]), n, k, EdgeTiming::kStartToStart, 0, false);
  }
  for (auto& [p, list] : launched_)
    std::stable_sort(list.begin(), list.end(), [&](uint32_t a, uint32_t b) {
      return g_.nodes[static_cast<size_t>(launch_of_[a])].start < g_.nodes[static_cast<size_t>(launch_of_[b])].start;
    });
}

int32_t Builder::last_launched_before(uint32_t process, TimeNs time, int64_t skip_lane, int64_t thread) const {
  auto it = launched_.find(process);
  if (it == launched_.end()) return -1;
  const auto& list = it->second;
  auto pos = std::lower_bound(list.begin(), list.end(), time, [&](uint32_t n, TimeNs t) {
    return g_.nodes[static_cast<size_t>(launch_of_[n])].start < t;
  });
  for (int steps = 0; pos != list.begin() && steps < 256; ++steps) {
    --pos;
    if (static_cast<int64_t>(g_.nodes[*pos].lane) == skip_lane) continue;
    if (thread >= 0 && static_cast<int64_t>(g_.nodes[static_cast<size_t>(launch_of_[*pos])].lane) != thread) continue;
    return static_cast<int32_t>(*pos);
  }
  return -1;
}

int32_t Builder::first_launched_after(uint32_t process, TimeNs time, int64_t lane) const {
  auto it = launched_.find(process);
  if (it == launched_.end()) return -1;
  const auto& list = it->second;
  auto pos = std::upper_bound(list.begin(), list.end(), time, [&](TimeNs t, uint32_t n) {
    return t < g_.nodes[static_cast<size_t>(launch_of_[n])].start;
  });
  for (int steps = 0; pos != list.end() && steps < 4096; ++pos, ++steps)
    if (lane < 0 || static_cast<int64_t>(g_.nodes[*pos].lane) == lane) return static_cast<int32_t>(*pos);
  return -1;
}

void Builder::set_gaps_and_lags() {
  // Typical launch latency per process: launch -> start of ops that found their stream idle.
  std::map<uint32_t, std::vector<TimeNs>> latencies;
  std::map<int32_t, std::vector<TimeNs>> stream_gaps;  // per device
  for (const Lane& lane : g_.lanes) {
    if (lane.kind != LaneKind::kStream) continue;
    for (size_t i = 0; i < lane.nodes.size(); ++i) {
      const uint32_t n = lane.nodes[i];
      const TimeNs prev_end = i ? end_of(lane.nodes[i - 1]) : INT64_MIN;
      const TimeNs gap = i ? g_.nodes[n].start - prev_end : INT64_MAX;
      if (i && gap >= 0 && gap <= o_.max_stream_gap_ns) stream_gaps[lane.device].push_back(gap);
      if (launch_of_[n] >= 0 && gap > o_.max_stream_gap_ns) {
        const TimeNs d = g_.nodes[n].start - g_.nodes[static_cast<size_t>(launch_of_[n])].start;
        if (d >= 0) latencies[g_.nodes[n].process].push_back(d);
      }
    }
  }
  std::map<uint32_t, TimeNs> typical_latency;
  for (auto& [p, v] : latencies) typical_latency[p] = percentile(v, 0.25, o_.default_launch_latency_ns);
  std::map<int32_t, TimeNs> typical_gap;
  for (auto& [d, v] : stream_gaps) typical_gap[d] = median(v, 0);

  for (Edge& e : g_.edges) {
    if (e.kind != EdgeKind::kLaunch && e.kind != EdgeKind::kGraphLaunch) continue;
    const Node& a = g_.nodes[e.from];
    const Node& k = g_.nodes[e.to];
    const TimeNs typical =
        typical_latency.count(k.process) ? typical_latency[k.process] : o_.default_launch_latency_ns;
    const TimeNs d = k.start - a.start;
    if (d < 0) {
      ++g_.diagnostics.kernels_before_launch;
      g_.diagnostics.max_kernel_before_launch_ns = std::max(g_.diagnostics.max_kernel_before_launch_ns, -d);
      e.lag = 0;
      continue;
    }
    // Launch-bound (the stream was idle) and plausibly only the launch: keep its own latency.
    const Lane& lane = g_.lanes[k.lane];
    const auto pos = std::find(lane.nodes.begin(), lane.nodes.end(), e.to) - lane.nodes.begin();
    const bool idle = pos == 0 || k.start - end_of(lane.nodes[static_cast<size_t>(pos) - 1]) > o_.max_stream_gap_ns;
    e.lag = (idle && d <= 4 * typical + 10'000) ? d : std::min(d, typical);
  }
  for (const Lane& lane : g_.lanes) {
    for (size_t i = 0; i < lane.nodes.size(); ++i) {
      Node& n = g_.nodes[lane.nodes[i]];
      if (i == 0) {
        n.gap = 0;
        continue;
      }
      const TimeNs gap = n.start - end_of(lane.nodes[i - 1]);
      if (lane.kind == LaneKind::kThread) {
        n.gap = std::max<TimeNs>(0, gap);
      } else if (gap < 0) {
        n.gap = 0;
      } else if (gap <= o_.max_stream_gap_ns) {
        n.gap = gap;
      } else if (launch_of_[lane.nodes[i]] < 0) {
        n.gap = gap;  // no launch to explain the idle time: keep it
      } else {
        n.gap = typical_gap.count(lane.device) ? typical_gap[lane.device] : 0;
      }
    }
  }
}

void Builder::add_sync_and_event_edges() {
  // GPU-side sync records (Nsight, Kineto cuda_sync): which stream a wait/sync call was about.
  std::map<std::pair<uint32_t, uint32_t>, std::pair<int64_t, SyncKind>> sync_by_corr;  // (process, corr) -> (stream, kind)
  for (const Track& tr : t_.tracks) {
    if (tr.key.kind != TrackKind::kGpuStream) continue;
    for (size_t i = 0; i < tr.slices.size(); ++i) {
      const SliceRef r = tr.slices.ref[i];
      if (r.kind() != SliceKind::kSync || !r.has_detail()) continue;
      const SyncInfo& s = t_.syncs[r.index()];
      if (!s.correlation) continue;
      sync_by_corr[{process_of_trace_process_[tr.key.process], s.correlation}] = {tr.key.id, s.kind};
    }
  }
  auto corr_of = [&](const Node& n) -> uint32_t {
    const SliceRef r = t_.tracks[n.source.track].slices.ref[n.source.index];
    return r.has_detail() ? t_.api_calls[r.index()].correlation : 0;
  };
  auto lane_of_stream = [&](uint32_t process, int64_t stream) -> int64_t {
    for (uint32_t l = 0; l < g_.lanes.size(); ++l)
      if (g_.lanes[l].kind == LaneKind::kStream && g_.lanes[l].process == process && g_.lanes[l].id == stream) return l;
    return -1;
  };
  auto contradicted = [&](const std::string& what) {
    ++g_.diagnostics.contradicted_edges;
    if (g_.diagnostics.contradicted_examples.size() < 8) g_.diagnostics.contradicted_examples.push_back(what);
  };
  // A blocking host call H waits for `deps`: FF edges with the measured wake-up as lag.
  auto block_on = [&](uint32_t h, const std::vector<uint32_t>& deps, bool inferred) {
    Node& host = g_.nodes[h];
    const TimeNs h_end = host.start + host.dur;
    TimeNs latest = INT64_MIN;
    std::vector<uint32_t> kept;
    for (uint32_t d : deps) {
      if (end_of(d) > h_end + kToleranceNs) {
        if (inferred) contradicted(g_.names[host.name] + " returned before " + g_.names[g_.nodes[d].name] + " ended");
        continue;
      }
      kept.push_back(d);
      latest = std::max(latest, end_of(d));
    }
    if (kept.empty()) return;
    const TimeNs wake = std::clamp<TimeNs>(h_end - latest, 0, kWakeCapNs);
    for (uint32_t d : kept) add_edge(d, h, EdgeKind::kHostSync, EdgeTiming::kFinishToFinish, wake, inferred);
    host.blocking = true;
    if (latest > host.start) host.work = std::min(host.dur, kBlockedCallCostNs);
  };

  for (const Lane& lane : g_.lanes) {
    if (lane.kind != LaneKind::kThread) continue;
    int32_t last_record = -1;
    for (uint32_t h : lane.nodes) {
      const Node& host = g_.nodes[h];
      const std::string_view name = g_.names[host.name];
      const uint32_t p = host.process;
      if (is_event_record(name)) {
        last_record = static_cast<int32_t>(h);
      } else if (is_device_sync(name)) {
        // every stream of the process: its last op launched before the call
        std::vector<uint32_t> deps;
        for (uint32_t l = 0; l < g_.lanes.size(); ++l) {
          if (g_.lanes[l].kind != LaneKind::kStream || g_.lanes[l].process != p) continue;
          int32_t last = -1;
          for (uint32_t n : g_.lanes[l].nodes) {
            const bool before = launch_of_[n] >= 0 ? g_.nodes[static_cast<size_t>(launch_of_[n])].start < host.start
                                                   : g_.nodes[n].start < host.start + host.dur;
            if (before) last = static_cast<int32_t>(n);
          }
          if (last >= 0) deps.push_back(static_cast<uint32_t>(last));
        }
        block_on(h, deps, false);
      } else if (is_stream_sync(name)) {
        int64_t lane_id = -1;
        bool inferred = true;
        if (auto it = sync_by_corr.find({p, corr_of(host)}); it != sync_by_corr.end() && it->second.first >= 0) {
          lane_id = lane_of_stream(p, it->second.first);
          inferred = false;
        }
        int32_t dep = -1;
        if (lane_id >= 0) {
          for (uint32_t n : g_.lanes[static_cast<size_t>(lane_id)].nodes)
            if (launch_of_[n] >= 0 && g_.nodes[static_cast<size_t>(launch_of_[n])].start < host.start) dep = static_cast<int32_t>(n);
        } else {
          // the stream whose last op (launched before the call) ended last, no later than the call
          TimeNs best = INT64_MIN;
          for (uint32_t l = 0; l < g_.lanes.size(); ++l) {
            if (g_.lanes[l].kind != LaneKind::kStream || g_.lanes[l].process != p) continue;
            int32_t last = -1;
            for (uint32_t n : g_.lanes[l].nodes)
              if (launch_of_[n] >= 0 && g_.nodes[static_cast<size_t>(launch_of_[n])].start < host.start) last = static_cast<int32_t>(n);
            if (last >= 0 && end_of(static_cast<uint32_t>(last)) <= host.start + host.dur + kToleranceNs &&
                end_of(static_cast<uint32_t>(last)) > best) {
              best = end_of(static_cast<uint32_t>(last));
              dep = last;
            }
          }
        }
        if (dep >= 0) block_on(h, {static_cast<uint32_t>(dep)}, inferred);
      } else if (is_event_sync(name)) {
        if (last_record >= 0) {
          const int32_t j = last_launched_before(p, g_.nodes[static_cast<size_t>(last_record)].start, -1, host.lane);
          if (j >= 0) block_on(h, {static_cast<uint32_t>(j)}, true);
        }
      } else if (is_stream_wait(name)) {
        if (last_record < 0) continue;
        int64_t target = -1;
        bool inferred = true;
        if (auto it = sync_by_corr.find({p, corr_of(host)}); it != sync_by_corr.end() && it->second.first >= 0) {
          target = lane_of_stream(p, it->second.first);
        }
        int32_t k = -1;
        if (target >= 0) {
          k = first_launched_after(p, host.start, target);
        } else {
          k = first_launched_after(p, host.start, -1);
          if (k >= 0) target = g_.nodes[static_cast<size_t>(k)].lane;
        }
        if (k < 0) continue;
        const int32_t j = last_launched_before(p, g_.nodes[static_cast<size_t>(last_record)].start, target, host.lane);
        if (j < 0) continue;
        const Node& jn = g_.nodes[static_cast<size_t>(j)];
        const Node& kn = g_.nodes[static_cast<size_t>(k)];
        if (jn.device != kn.device) continue;  // cross-device event waits: not modelled
        if (kn.start + kToleranceNs < jn.start + jn.dur) {
          contradicted(g_.names[kn.name] + " started before " + g_.names[jn.name] + " ended (event wait)");
          continue;
        }
        add_edge(static_cast<uint32_t>(j), static_cast<uint32_t>(k), EdgeKind::kEventWait, EdgeTiming::kFinishToStart, 0,
                 inferred);
      } else if (is_sync_copy(name)) {
        std::vector<uint32_t> deps;
        for (const Edge& e : g_.edges)
          if (e.from == h && (e.kind == EdgeKind::kLaunch) && g_.nodes[e.to].kind != NodeType::kCompute) deps.push_back(e.to);
        if (!deps.empty()) block_on(h, deps, false);
      }
    }
  }
}

// Dependency flows the trace states (the stand-in recording's waits, a prediction read back):
// GPU -> GPU is an event wait; GPU -> host call makes the call block until that op ends.
void Builder::add_dependency_flows() {
  for (const Flow& f : t_.flows) {
    if (f.kind != FlowKind::kDependency) continue;
    const int32_t a = node_of(f.from), k = node_of(f.to);
    if (a < 0 || k < 0 || a == k || !is_gpu(g_.nodes[static_cast<size_t>(a)].kind)) continue;
    Node& to = g_.nodes[static_cast<size_t>(k)];
    if (is_gpu(to.kind)) {
      add_edge(static_cast<uint32_t>(a), static_cast<uint32_t>(k), EdgeKind::kEventWait, EdgeTiming::kFinishToStart, 0, false);
    } else {
      add_edge(static_cast<uint32_t>(a), static_cast<uint32_t>(k), EdgeKind::kHostSync, EdgeTiming::kFinishToFinish, 0, false);
      to.blocking = true;
      to.work = std::min(to.dur, kBlockedCallCostNs);
    }
  }
}

// Bytes of a P2P transfer from the CPU-side `record_param_comms` ops (Kineto) that preceded the
// launch on the launching thread: PyTorch records send/recv there, not on the SendRecv kernel.
struct P2PInfo {
  double bytes = 0;
  int32_t peer = -1;
};

void Builder::add_collectives() {
  const CollectiveMatch match = match_collectives(t_);
  add_point_to_point();
  for (const MatchedCollective& mc : match.collectives) {
    if (mc.op == CollectiveOp::kSend || mc.op == CollectiveOp::kRecv) continue;  // paired by add_point_to_point
    std::vector<uint32_t> members;
    std::vector<int32_t> gpus;
    for (const CollectiveMember& m : mc.members) {
      const CollectiveInfo& ci = t_.collectives[m.collective];
      if (!ci.kernel.valid()) continue;
      const int32_t n = node_of(ci.kernel);
      if (n < 0 || g_.nodes[static_cast<size_t>(n)].group >= 0) continue;
      members.push_back(static_cast<uint32_t>(n));
      gpus.push_back(g_.devices[static_cast<size_t>(g_.nodes[static_cast<size_t>(n)].device)].gpu);
    }
    if (members.empty()) continue;
    const CollectiveInfo& first = t_.collectives[mc.members.front().collective];
    CommGroup grp;
    grp.spec.op = mc.op;
    grp.spec.bytes = sim_bytes(first);
    grp.spec.gpus = gpus;
    grp.spec.channels = first.channels ? first.channels : nccl_channels(t_, g_.nodes[members[0]]);
    if (first.algorithm != kEmptyString) {
      std::string a(t_.str(first.algorithm));
      std::transform(a.begin(), a.end(), a.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (a == "ring" || a == "tree" || a == "nvls") grp.spec.algorithm = a;
    }
    grp.sequence = mc.sequence;
    grp.complete = mc.complete() && members.size() == mc.members.size();
    grp.measured_only = grp.spec.bytes <= 0;
    grp.members = members;
    const auto gi = static_cast<int32_t>(g_.groups.size());
    for (uint32_t n : members) {
      g_.nodes[n].group = gi;
      g_.nodes[n].kind = NodeType::kCollective;
    }
    if (grp.complete) {
      ++g_.diagnostics.complete_groups;
      if (mc.sequence >= 0) ++g_.diagnostics.matched_by_sequence;
      else ++g_.diagnostics.matched_by_order;
      for (size_t i = 1; i < members.size(); ++i)
        add_edge(members[0], members[i], EdgeKind::kCollective, EdgeTiming::kStartToStart, 0, false);
    } else {
      std::string why;
      for (int32_t r : mc.missing_ranks) why += (why.empty() ? "" : ", ") + std::string("rank ") + std::to_string(r) + " missing";
      for (int32_t r : mc.duplicate_ranks) why += (why.empty() ? "" : ", ") + std::string("rank ") + std::to_string(r) + " twice";
      if (why.empty()) why = "member without a kernel in the trace";
      for (uint32_t n : members) g_.diagnostics.unmatched.push_back({n, why});
    }
    if (grp.measured_only) g_.diagnostics.unsized_comm += members.size();
    g_.diagnostics.group_members += members.size();
    ++g_.diagnostics.groups;
    g_.groups.push_back(std::move(grp));
  }
}

// Annotated sends and receives: the k-th send from rank a to rank b with the k-th receive on b
// from a (NCCL orders P2P operations per peer pair).
void Builder::add_point_to_point() {
  std::map<std::pair<int32_t, int32_t>, std::vector<uint32_t>> sends, recvs;  // (from, to) -> nodes
  std::unordered_map<uint32_t, double> bytes_of;                                 // send node -> bytes
  // An operation without its other side runs alone for its measured time.
  auto alone = [&](uint32_t n, const char* why) {
    g_.diagnostics.unmatched.push_back({n, why});
    CommGroup grp;
    grp.spec.op = CollectiveOp::kSendRecv;
    grp.members = {n};
    grp.complete = false;
    grp.measured_only = true;
    g_.nodes[n].group = static_cast<int32_t>(g_.groups.size());
    g_.groups.push_back(std::move(grp));
    ++g_.diagnostics.unsized_comm;
  };
  for (const CollectiveInfo& c : t_.collectives) {
    if ((c.op != CollectiveOp::kSend && c.op != CollectiveOp::kRecv) || !c.kernel.valid()) continue;
    const int32_t n = node_of(c.kernel);
    if (n < 0) continue;
    const int32_t rank = c.rank >= 0 ? c.rank : g_.processes[g_.nodes[static_cast<size_t>(n)].process].rank;
    if (c.peer < 0 || rank < 0) {
      g_.nodes[static_cast<size_t>(n)].kind = NodeType::kCollective;
      alone(static_cast<uint32_t>(n), "send/recv without a peer rank");
      continue;
    }
    if (c.op == CollectiveOp::kSend) {
      sends[{rank, c.peer}].push_back(static_cast<uint32_t>(n));
      bytes_of[static_cast<uint32_t>(n)] = sim_bytes(c);
    }
    else recvs[{c.peer, rank}].push_back(static_cast<uint32_t>(n));
    g_.nodes[static_cast<size_t>(n)].kind = NodeType::kCollective;
  }
  auto by_start = [&](std::vector<uint32_t>& v) {
    std::sort(v.begin(), v.end(), [&](uint32_t a, uint32_t b) { return g_.nodes[a].start < g_.nodes[b].start; });
  };
  for (auto& [pair, s] : sends) {
    std::vector<uint32_t>& r = recvs[pair];
    by_start(s);
    by_start(r);
    const size_t k = std::min(s.size(), r.size());
    for (size_t i = 0; i < k; ++i) {
      CommGroup grp;
      grp.spec.op = CollectiveOp::kSendRecv;
      grp.spec.bytes = bytes_of[s[i]];
      grp.members = {s[i], r[i]};
      for (uint32_t m : grp.members) grp.spec.gpus.push_back(g_.devices[static_cast<size_t>(g_.nodes[m].device)].gpu);
      grp.measured_only = grp.spec.bytes <= 0;
      const auto gi = static_cast<int32_t>(g_.groups.size());
      for (uint32_t m : grp.members) g_.nodes[m].group = gi;
      add_edge(s[i], r[i], EdgeKind::kSendRecv, EdgeTiming::kStartToStart, 0, false);
      ++g_.diagnostics.groups;
      ++g_.diagnostics.complete_groups;
      ++g_.diagnostics.matched_by_order;
      g_.diagnostics.group_members += 2;
      if (grp.measured_only) g_.diagnostics.unsized_comm += 2;
      g_.groups.push_back(std::move(grp));
    }
    for (size_t i = k; i < s.size(); ++i) alone(s[i], "send without a matching receive");
    for (size_t i = k; i < r.size(); ++i) alone(r[i], "receive without a matching send");
    r.clear();
  }
  for (auto& [pair, r] : recvs)
    for (uint32_t n : r) alone(n, "receive without a matching send");
}

void Builder::add_unannotated_comm() {
  // Keys of record_param_comms args, looked up once.
  const StringId k_name = t_.strings.find("Collective name"), k_in = t_.strings.find("In msg nelems"),
                 k_dtype = t_.strings.find("dtype"), k_dst = t_.strings.find("Dst Rank"), k_src = t_.strings.find("Src Rank");
  const StringId rpc = t_.strings.find("record_param_comms");
  auto p2p_info = [&](uint32_t n, TimeNs since) {
    P2PInfo info;
    if (launch_of_[n] < 0 || rpc == kEmptyString || k_name == kEmptyString) return info;
    const Node& a = g_.nodes[static_cast<size_t>(launch_of_[n])];
    const Track& tr = t_.tracks[a.source.track];
    const auto& s = tr.slices;
    auto it = std::lower_bound(s.start.begin(), s.start.end(), since);
    for (size_t i = static_cast<size_t>(it - s.start.begin()); i < s.size() && s.start[i] <= a.start; ++i) {
      if (s.name[i] != rpc) continue;
      const uint32_t set = s.args_of(i);
      if (set == kNone32) continue;
      std::string_view coll;
      double elems = 0;
      int dtype = 0;
      int32_t peer = -1;
      for (const Arg& arg : t_.args.get(set)) {
        if (arg.key == k_name && arg.value.type == ArgValue::Type::kString) coll = t_.str(arg.value.s);
        else if (arg.key == k_in) elems = arg.value.type == ArgValue::Type::kDouble ? arg.value.d : static_cast<double>(arg.value.i);
        else if (arg.key == k_dtype && arg.value.type == ArgValue::Type::kString) {
          const std::string_view d = t_.str(arg.value.s);
          dtype = (d == "Float" || d == "Int") ? 4 : (d == "BFloat16" || d == "Half") ? 2 : (d == "Double" || d == "Long") ? 8 : 1;
        } else if ((arg.key == k_dst || arg.key == k_src) && arg.value.type != ArgValue::Type::kString)
          peer = static_cast<int32_t>(arg.value.i);
      }
      if (coll == "send" || coll == "recv") {
        info.bytes = std::max(info.bytes, elems * dtype);
        info.peer = peer;
      }
    }
    return info;
  };
  // Per process, per kernel name: ungrouped communication kernels in start order.
  std::map<uint32_t, std::map<uint32_t, std::vector<uint32_t>>> by_name;  // name -> process -> nodes
  for (const Lane& lane : g_.lanes)
    for (uint32_t n : lane.nodes)
      if ((g_.nodes[n].kind == NodeType::kCollective) && g_.nodes[n].group < 0) by_name[g_.nodes[n].name][g_.nodes[n].process].push_back(n);
  for (auto& [name, per_process] : by_name) {
    for (auto& [p, list] : per_process)
      std::sort(list.begin(), list.end(), [&](uint32_t a, uint32_t b) { return g_.nodes[a].start < g_.nodes[b].start; });
    size_t count = per_process.begin()->second.size();
    bool same = per_process.size() >= 2;
    for (auto& [p, list] : per_process) same = same && list.size() == count;
    const bool sendrecv = contains(g_.names[name], "SendRecv") || contains(g_.names[name], "sendrecv");
    if (!same) count = 0;
    for (size_t k = 0; k < count; ++k) {
      CommGroup grp;
      grp.spec.op = sendrecv ? CollectiveOp::kSendRecv : CollectiveOp::kUnknown;
      std::string_view nm = g_.names[name];
      if (!sendrecv) {
        for (auto [word, op] : {std::pair{"AllReduce", CollectiveOp::kAllReduce}, {"AllGather", CollectiveOp::kAllGather},
                                {"ReduceScatter", CollectiveOp::kReduceScatter}, {"Broadcast", CollectiveOp::kBroadcast},
                                {"AllToAll", CollectiveOp::kAllToAll}})
          if (contains(nm, word)) grp.spec.op = op;
      }
      for (auto& [p, list] : per_process) {
        const uint32_t n = list[k];
        grp.members.push_back(n);
        grp.spec.gpus.push_back(g_.devices[static_cast<size_t>(g_.nodes[n].device)].gpu);
        if (sendrecv) {
          const TimeNs since = k ? (launch_of_[list[k - 1]] >= 0 ? g_.nodes[static_cast<size_t>(launch_of_[list[k - 1]])].start : 0)
                                 : INT64_MIN;
          grp.spec.bytes = std::max(grp.spec.bytes, p2p_info(n, since).bytes);
        }
      }
      grp.measured_only = grp.spec.bytes <= 0;
      grp.spec.channels = nccl_channels(t_, g_.nodes[grp.members[0]]);
      const auto gi = static_cast<int32_t>(g_.groups.size());
      for (uint32_t n : grp.members) g_.nodes[n].group = gi;
      const EdgeKind ek = sendrecv ? EdgeKind::kSendRecv : EdgeKind::kCollective;
      for (size_t i = 1; i < grp.members.size(); ++i) add_edge(grp.members[0], grp.members[i], ek, EdgeTiming::kStartToStart, 0, false);
      ++g_.diagnostics.groups;
      ++g_.diagnostics.complete_groups;
      ++g_.diagnostics.matched_by_name;
      g_.diagnostics.group_members += grp.members.size();
      if (grp.measured_only) g_.diagnostics.unsized_comm += grp.members.size();
      g_.groups.push_back(std::move(grp));
    }
    if (!same)  // each becomes a group of its own below (and is counted as unsized there)
      for (auto& [p, list] : per_process)
        for (uint32_t n : list)
          g_.diagnostics.unmatched.push_back({n, "no collective annotation and unequal counts of " + g_.names[name] + " per rank"});
  }
  // Every remaining communication node or peer copy: a group of its own.
  for (uint32_t n = 0; n < g_.nodes.size(); ++n) {
    Node& node = g_.nodes[n];
    if (node.group >= 0 || (node.kind != NodeType::kCollective && node.kind != NodeType::kPeerCopy)) continue;
    CommGroup grp;
    grp.members = {n};
    grp.complete = node.kind == NodeType::kPeerCopy;
    if (node.kind == NodeType::kPeerCopy) {
      const MemcpyInfo& m = t_.memcpy(t_.tracks[node.source.track].slices.ref[node.source.index]);
      grp.spec.op = CollectiveOp::kSendRecv;
      grp.spec.mechanism = Mechanism::kCopyEngine;
      grp.spec.bytes = static_cast<double>(m.bytes.get());
      grp.spec.channels = 1;
      for (uint16_t d : {m.src_device, m.dst_device}) {
        const int32_t gd = d < device_of_trace_device_.size() ? device_of_trace_device_[d] : -1;
        grp.spec.gpus.push_back(gd >= 0 ? g_.devices[static_cast<size_t>(gd)].gpu : -1);
      }
      if (grp.spec.gpus[0] < 0 || grp.spec.gpus[1] < 0) grp.measured_only = true;
    } else {
      grp.measured_only = true;
    }
    if (grp.measured_only) ++g_.diagnostics.unsized_comm;
    node.group = static_cast<int32_t>(g_.groups.size());
    g_.groups.push_back(std::move(grp));
  }
}

void Builder::add_steps() {
  std::map<std::string, std::map<uint32_t, StepRange>> found;  // step -> process -> range
  auto scan = [&](const std::function<bool(std::string_view)>& match) {
    for (const Track& tr : t_.tracks) {
      if (tr.key.kind != TrackKind::kCpuThread && tr.key.kind != TrackKind::kNvtx) continue;
      const uint32_t p = process_of_trace_process_[tr.key.process];
      const int64_t thread = tr.key.kind == TrackKind::kCpuThread ? tr.key.id : -1;
      for (size_t i = 0; i < tr.slices.size(); ++i) {
        const std::string_view name = t_.str(tr.slices.name[i]);
        if (!match(name) || tr.slices.dur[i] <= 0) continue;
        auto [it, fresh] = found[std::string(name)].try_emplace(p, StepRange{p, tr.slices.start[i], tr.slices.end(i), thread});
        if (!fresh) {
          it->second.start = std::min(it->second.start, tr.slices.start[i]);
          it->second.end = std::max(it->second.end, tr.slices.end(i));
          if (it->second.thread != thread) it->second.thread = -1;
        }
      }
    }
  };
  scan(is_profiler_step_name);
  if (found.empty() && !o_.step_regex.empty()) {
    std::regex re;
    try {
      re = std::regex(o_.step_regex);
    } catch (const std::regex_error& e) {
      g_.diagnostics.warnings.push_back("--step '" + o_.step_regex + "' is not a valid regular expression: " + e.what());
    }
    scan([&](std::string_view n) { return std::regex_search(n.begin(), n.end(), re); });
    if (found.empty()) g_.diagnostics.warnings.push_back("no range matches --step '" + o_.step_regex + "': the whole trace is one step");
  }
  if (found.empty()) {
    auto& whole = found["trace"];
    for (const Node& n : g_.nodes) {
      auto [it, fresh] = whole.try_emplace(n.process, StepRange{n.process, n.start, n.start + n.dur});
      if (!fresh) {
        it->second.start = std::min(it->second.start, n.start);
        it->second.end = std::max(it->second.end, n.start + n.dur);
      }
    }
  }
  for (auto& [name, per_process] : found) {
    Step s;
    s.name = name;
    for (auto& [p, r] : per_process) s.ranges.push_back(r);
    g_.steps.push_back(std::move(s));
  }
  auto first_start = [](const Step& s) {
    TimeNs t = INT64_MAX;
    for (const StepRange& r : s.ranges) t = std::min(t, r.start);
    return t;
  };
  std::stable_sort(g_.steps.begin(), g_.steps.end(), [&](const Step& a, const Step& b) { return first_start(a) < first_start(b); });
  auto step_at = [&](uint32_t process, TimeNs t) {
    for (size_t s = 0; s < g_.steps.size(); ++s)
      for (const StepRange& r : g_.steps[s].ranges)
        if (r.process == process && t >= r.start && t < r.end) return static_cast<int32_t>(s);
    return -1;
  };
  for (uint32_t n = 0; n < g_.nodes.size(); ++n)
    if (g_.nodes[n].kind == NodeType::kHostCall) g_.nodes[n].step = step_at(g_.nodes[n].process, g_.nodes[n].start);
  for (uint32_t n = 0; n < g_.nodes.size(); ++n) {
    if (g_.nodes[n].kind == NodeType::kHostCall) continue;
    g_.nodes[n].step = launch_of_[n] >= 0 ? g_.nodes[static_cast<size_t>(launch_of_[n])].step : step_at(g_.nodes[n].process, g_.nodes[n].start);
  }
}

void Builder::measure_overlap() {
  const std::vector<DeviceActivity> activity = device_activity(t_, classify_);
  for (Node& n : g_.nodes) {
    const bool comm = n.kind == NodeType::kCollective || n.kind == NodeType::kPeerCopy;
    if (n.kind != NodeType::kCompute && !comm) continue;
    const uint32_t td = g_.devices[static_cast<size_t>(n.device)].trace_device;
    if (td >= activity.size()) continue;
    if (comm) n.compute_overlap = activity[td].sets.compute.overlap(n.start, n.start + n.dur);
    else n.comm_overlap = activity[td].sets.communication.overlap(n.start, n.start + n.dur);
  }
}

void Builder::check_skew() {
  GraphDiagnostics& d = g_.diagnostics;
  d.process_offset_ns.assign(g_.processes.size(), 0);
  std::map<uint32_t, std::vector<TimeNs>> diffs;  // process -> end difference to the reference
  uint32_t reference = UINT32_MAX;
  for (const CommGroup& grp : g_.groups)
    for (uint32_t m : grp.members) reference = std::min(reference, g_.nodes[m].process);
  for (const CommGroup& grp : g_.groups) {
    if (!grp.complete || grp.members.size() < 2) continue;
    int32_t ref_node = -1;
    for (uint32_t m : grp.members)
      if (g_.nodes[m].process == reference) ref_node = static_cast<int32_t>(m);
    for (uint32_t a : grp.members) {
      if (ref_node >= 0 && g_.nodes[a].process != reference)
        diffs[g_.nodes[a].process].push_back(end_of(a) - end_of(static_cast<uint32_t>(ref_node)));
      for (uint32_t b : grp.members) {
        if (a == b) continue;
        const TimeNs v = g_.nodes[b].start - end_of(a);
        if (v > kToleranceNs) {
          ++d.causality_violations;
          d.max_violation_ns = std::max(d.max_violation_ns, v);
        }
      }
    }
  }
  for (auto& [p, v] : diffs) d.process_offset_ns[p] = median(v, 0);
  if (d.causality_violations)
    d.warnings.push_back(std::to_string(d.causality_violations) + " collective members ended before another member began (up to " +
                         format_duration(d.max_violation_ns) + "): the ranks' clocks disagree by at least that much");
}

void Builder::check_unexplained() {
  // Lower bound of each GPU op's start from its known dependencies, on the measured times.
  std::vector<TimeNs> bound(g_.nodes.size(), INT64_MIN);
  for (const Lane& lane : g_.lanes)
    for (size_t i = 1; i < lane.nodes.size(); ++i)
      bound[lane.nodes[i]] = end_of(lane.nodes[i - 1]) + g_.nodes[lane.nodes[i]].gap;
  for (const Edge& e : g_.edges) {
    if (e.kind == EdgeKind::kCollective || e.kind == EdgeKind::kSendRecv || e.timing == EdgeTiming::kFinishToFinish) continue;
    const TimeNs t = (e.timing == EdgeTiming::kStartToStart ? g_.nodes[e.from].start : end_of(e.from)) + e.lag;
    bound[e.to] = std::max(bound[e.to], t);
  }
  // Compute kernels per device in start order, to find the one a late kernel waited behind.
  std::map<int32_t, std::vector<uint32_t>> computes;
  for (uint32_t n = 0; n < g_.nodes.size(); ++n)
    if (g_.nodes[n].kind == NodeType::kCompute) computes[g_.nodes[n].device].push_back(n);
  for (auto& [d, v] : computes) std::sort(v.begin(), v.end(), [&](uint32_t a, uint32_t b) { return g_.nodes[a].start < g_.nodes[b].start; });
  for (uint32_t n = 0; n < g_.nodes.size(); ++n) {
    const Node& node = g_.nodes[n];
    if (!is_gpu(node.kind) || bound[n] == INT64_MIN) continue;
    const TimeNs late = node.start - bound[n];
    if (late <= kUnexplainedNs) continue;
    // Another stream's compute kernel that was running when n could have started and ended
    // about when n did: n waited for its SMs.
    int32_t holder = -1;
    if (node.kind != NodeType::kCopy && node.kind != NodeType::kPeerCopy) {
      const auto& list = computes[node.device];
      for (uint32_t c : list) {
        const Node& cn = g_.nodes[c];
        if (cn.start >= node.start) break;
        if (cn.lane == node.lane || end_of(c) <= bound[n]) continue;
        if (node.start >= cn.start && node.start <= end_of(c) + kUnexplainedNs && node.start >= end_of(c) - cn.dur / 4)
          holder = static_cast<int32_t>(c);
      }
    }
    if (holder >= 0) {
      add_edge(static_cast<uint32_t>(holder), n, EdgeKind::kDispatch, EdgeTiming::kFinishToStart, 0, true);
      continue;
    }
    ++g_.diagnostics.unexplained_waits;
    g_.diagnostics.unexplained_wait_ns += late;
  }
}

DepGraph Builder::build() {
  add_processes_and_devices();
  add_host_lanes();
  add_gpu_lanes();
  add_launch_edges();
  set_gaps_and_lags();
  add_sync_and_event_edges();
  add_dependency_flows();
  add_collectives();
  add_unannotated_comm();
  add_steps();
  expand_world(g_, t_);
  measure_overlap();
  // a stand-in recording's ranks ran one after another: their times say nothing about clocks
  if (t_.worlds.empty()) check_skew();
  else g_.diagnostics.process_offset_ns.assign(g_.processes.size(), 0);
  check_unexplained();
  g_.origin = INT64_MAX;
  for (const Node& n : g_.nodes) g_.origin = std::min(g_.origin, n.start);
  if (g_.nodes.empty()) g_.origin = 0;
  if (!g_.diagnostics.unmatched.empty())
    g_.diagnostics.warnings.push_back(std::to_string(g_.diagnostics.unmatched.size()) +
                                      " communication kernels could not be matched across ranks: they replay without waiting for peers");
  if (g_.diagnostics.unsized_comm)
    g_.diagnostics.warnings.push_back(std::to_string(g_.diagnostics.unsized_comm) +
                                      " communication operations have no size: their measured durations are kept");
  break_cycles(g_);
  count_edges(g_);
  return std::move(g_);
}

}  // namespace

double collective_bytes(const CollectiveInfo& c) { return sim_bytes(c); }

DepGraph build_dep_graph(const Trace& trace, const GraphOptions& options) {
  Builder b(trace, options);
  return b.build();
}

void break_cycles(DepGraph& g) {
  const auto n_nodes = static_cast<uint32_t>(g.nodes.size());
  for (int round = 0; round < 1000; ++round) {
    // Vertices: start(n) = 2n, end(n) = 2n + 1, one per rendezvous group after them.
    const uint32_t base = 2 * n_nodes;
    const auto nv = static_cast<uint32_t>(base + g.groups.size());
    struct Arc {
      uint32_t to;
      int64_t tag;  // >= 0: edge index; -1: internal or lane; <= -2: group -2 - gi
    };
    // The arcs in compressed rows (adj[v] = arcs[first[v] .. first[v + 1]]), each vertex's in the
    // order they are found: a vector per vertex cost two allocations per node in every variant.
    std::vector<uint32_t> first(nv + 1, 0);
    std::vector<Arc> arcs;
    auto for_each_arc = [&](auto&& emit) {
      for (uint32_t n = 0; n < n_nodes; ++n) emit(2 * n, Arc{2 * n + 1, -1});
      for (const Lane& lane : g.lanes)
        for (size_t i = 1; i < lane.nodes.size(); ++i) emit(2 * lane.nodes[i - 1] + 1, Arc{2 * lane.nodes[i], -1});
      for (size_t ei = 0; ei < g.edges.size(); ++ei) {
        const Edge& e = g.edges[ei];
        if (e.kind == EdgeKind::kCollective || e.kind == EdgeKind::kSendRecv || e.from == e.to) continue;
        if (g.nodes[e.from].removed || g.nodes[e.to].removed) continue;
        const uint32_t from = e.timing == EdgeTiming::kStartToStart ? 2 * e.from : 2 * e.from + 1;
        const uint32_t to = e.timing == EdgeTiming::kFinishToFinish ? 2 * e.to + 1 : 2 * e.to;
        emit(from, Arc{to, static_cast<int64_t>(ei)});
      }
      for (size_t gi = 0; gi < g.groups.size(); ++gi) {
        const CommGroup& grp = g.groups[gi];
        if (!grp.complete || grp.members.size() < 2) continue;
        const auto gv = static_cast<uint32_t>(base + gi);
        for (uint32_t m : grp.members) {
          emit(2 * m, Arc{gv, -2 - static_cast<int64_t>(gi)});
          emit(gv, Arc{2 * m + 1, -2 - static_cast<int64_t>(gi)});
        }
      }
    };
    for_each_arc([&](uint32_t from, const Arc&) { ++first[from + 1]; });
    for (uint32_t v = 0; v < nv; ++v) first[v + 1] += first[v];
    arcs.resize(first[nv]);
    {
      std::vector<uint32_t> fill(first.begin(), first.end() - 1);
      for_each_arc([&](uint32_t from, const Arc& a) { arcs[fill[from]++] = a; });
    }
    std::vector<uint32_t> indeg(nv, 0);
    for (const Arc& a : arcs) ++indeg[a.to];
    std::vector<uint32_t> queue;
    for (uint32_t v = 0; v < nv; ++v)
      if (!indeg[v]) queue.push_back(v);
    for (size_t i = 0; i < queue.size(); ++i)
      for (uint32_t ai = first[queue[i]]; ai < first[queue[i] + 1]; ++ai)
        if (--indeg[arcs[ai].to] == 0) queue.push_back(arcs[ai].to);
    if (queue.size() == nv) return;
    // The reverse arcs, only where there is a cycle: radj[v] lists v's predecessors by source vertex, then arc order.
    std::vector<std::vector<Arc>> radj(nv);
    for (uint32_t from = 0; from < nv; ++from)
      for (uint32_t ai = first[from]; ai < first[from + 1]; ++ai) radj[arcs[ai].to].push_back({from, arcs[ai].tag});
    // A cycle among the remaining vertices: every one of them has a remaining predecessor, so
    // walking backwards must repeat a vertex.
    uint32_t v = 0;
    while (indeg[v] == 0) ++v;
    std::vector<int32_t> seen_at(nv, -1);
    std::vector<std::pair<uint32_t, int64_t>> path;  // vertex, tag of the arc into it
    while (seen_at[v] < 0) {
      seen_at[v] = static_cast<int32_t>(path.size());
      const Arc* prev = nullptr;
      for (const Arc& a : radj[v])
        if (indeg[a.to] > 0) {
          prev = &a;
          break;
        }
      path.push_back({v, prev->tag});
      v = prev->to;
    }
    CycleReport report;
    std::vector<std::pair<uint32_t, int64_t>> cycle(path.begin() + seen_at[v], path.end());
    std::reverse(cycle.begin(), cycle.end());
    for (const auto& [vertex, tag] : cycle)
      if (vertex < base && (report.nodes.empty() || report.nodes.back() != vertex / 2)) report.nodes.push_back(vertex / 2);
    int64_t victim = INT64_MIN;
    for (const auto& [vertex, tag] : cycle)
      if (tag >= 0 && g.edges[static_cast<size_t>(tag)].inferred) victim = tag;
    if (victim == INT64_MIN)
      for (const auto& [vertex, tag] : cycle)
        if (tag <= -2) victim = tag;
    if (victim == INT64_MIN)
      for (const auto& [vertex, tag] : cycle)
        if (tag >= 0) victim = tag;
    if (victim == INT64_MIN) {
      g.diagnostics.warnings.push_back("a cycle through lane order alone cannot be broken; replay will stop there");
      g.diagnostics.cycles.push_back(std::move(report));
      return;
    }
    if (victim >= 0) {
      const Edge e = g.edges[static_cast<size_t>(victim)];
      report.broken_by = "removed the " + std::string(to_string(e.kind)) + (e.inferred ? " (inferred)" : "") + " edge " +
                         g.names[g.nodes[e.from].name] + " -> " + g.names[g.nodes[e.to].name];
      g.edges.erase(g.edges.begin() + victim);
    } else {
      const auto gi = static_cast<size_t>(-2 - victim);
      g.groups[gi].complete = false;
      report.broken_by = "collective group of " + g.names[g.nodes[g.groups[gi].members[0]].name] +
                         " no longer waits for all ranks (its members were matched out of order)";
      for (uint32_t m : g.groups[gi].members) g.diagnostics.unmatched.push_back({m, "dissolved to break a cycle"});
    }
    g.diagnostics.cycles.push_back(std::move(report));
  }
}

}  // namespace parascope::whatif
