#include "sim/whatif/replay.h"

#include <algorithm>
#include <cmath>
#include <queue>

namespace parascope::whatif {

TimeNs deinterfered_work(TimeNs measured, TimeNs overlap, double rate) {
  overlap = std::clamp<TimeNs>(overlap, 0, measured);
  return measured - overlap + static_cast<TimeNs>(std::llround(static_cast<double>(overlap) * std::clamp(rate, 0.0, 1.0)));
}

double measured_comm_slowdown(const DepGraph& g, const std::vector<TimeNs>& alone) {
  std::vector<double> factors;
  for (size_t gi = 0; gi < g.groups.size() && gi < alone.size(); ++gi) {
    const CommGroup& grp = g.groups[gi];
    if (!grp.complete || grp.members.empty() || alone[gi] <= 0) continue;
    const Node* last = nullptr;
    for (uint32_t m : grp.members)
      if (!last || g.nodes[m].dur < last->dur) last = &g.nodes[m];
    const double d = static_cast<double>(last->dur), o = static_cast<double>(std::min(last->compute_overlap, last->dur));
    const double covered = static_cast<double>(alone[gi]) - (d - o);
    if (2 * o < d || covered <= 0) continue;
    factors.push_back(o / covered);
  }
  if (factors.empty()) return 0;
  std::sort(factors.begin(), factors.end());
  const size_t n = factors.size();
  const double median = n % 2 ? factors[n / 2] : (factors[n / 2 - 1] + factors[n / 2]) / 2;
  return std::max(0.0, median - 1);
}

namespace {

constexpr uint32_t kDefaultSms = 132;

enum class EvType : uint8_t { kStart, kWorkDone, kInstanceDone, kFinishAt };

struct Ev {
  TimeNs t;
  uint64_t seq;
  EvType type;
  uint32_t id;
  uint32_t version;
  bool operator>(const Ev& o) const { return t != o.t ? t > o.t : seq > o.seq; }
};

// One rendezvous: a complete group, or one member of an incomplete group running alone.
struct Instance {
  std::vector<uint32_t> members;
  TimeNs duration = 0;
  uint32_t sms = 0;
  uint32_t arrived = 0;
  int32_t group = -1;
  int32_t last_arrival = -1;
  bool running = false;
  double remaining = 0, rate = 1;
  TimeNs since = 0;
  uint32_t version = 0;
};

struct GpuState {
  uint32_t comm_sms = 0;
  uint32_t comm_present = 0;
  uint32_t computing = 0;
  std::vector<uint32_t> computes;   // running compute nodes
  std::vector<uint32_t> instances;  // instances transferring
  std::vector<uint32_t> blocked;    // kernels waiting for a fills_gpu kernel to end
};

bool is_kernel(NodeType k) { return k == NodeType::kCompute || k == NodeType::kCollective || k == NodeType::kFused; }

class Engine {
 public:
  Engine(const DepGraph& g, const std::vector<GroupWork>& work, const ReplayConfig& cfg) : g_(g), work_(work), cfg_(cfg) {}
  ReplayResult run();

 private:
  void push(TimeNs t, EvType type, uint32_t id, uint32_t version = 0) { queue_.push(Ev{t, seq_++, type, id, version}); }
  void satisfy_start(uint32_t n, TimeNs t, int32_t by, Cause cause);
  void satisfy_ff(uint32_t n, TimeNs t, int32_t by);
  void start(uint32_t n, TimeNs t);
  void finish(uint32_t n, TimeNs t);
  void work_done(uint32_t n, TimeNs t);
  void rerate(int32_t dev, TimeNs t);
  double compute_rate(int32_t dev) const;
  double instance_rate(const Instance& in) const;
  void update_compute(uint32_t n, TimeNs t);
  void update_instance(uint32_t i, TimeNs t);
  uint32_t sms_of(int32_t dev) const;
  TimeNs host_scaled(TimeNs v) const { return static_cast<TimeNs>(std::llround(static_cast<double>(v) * cfg_.cpu_scale)); }

  const DepGraph& g_;
  const std::vector<GroupWork>& work_;
  const ReplayConfig& cfg_;
  ReplayResult r_;
  std::priority_queue<Ev, std::vector<Ev>, std::greater<Ev>> queue_;
  uint64_t seq_ = 0;
  TimeNs now_ = INT64_MIN;  // time of the event being processed: nothing is scheduled before it
  std::vector<uint32_t> out_begin_, out_edges_, lane_next_;
  std::vector<uint32_t> start_pending_, ff_pending_;
  std::vector<TimeNs> ready_at_, ff_at_;
  std::vector<bool> natural_done_;
  std::vector<double> remaining_, rate_;
  std::vector<TimeNs> since_;
  std::vector<uint32_t> version_;
  std::vector<int32_t> instance_of_;  // per node
  std::vector<Instance> instances_;
  std::vector<GpuState> gpus_;
};

uint32_t Engine::sms_of(int32_t dev) const {
  const GraphDevice& d = g_.devices[static_cast<size_t>(dev)];
  if (static_cast<size_t>(d.gpu) < cfg_.gpu_sms.size() && cfg_.gpu_sms[static_cast<size_t>(d.gpu)] > 0)
    return cfg_.gpu_sms[static_cast<size_t>(d.gpu)];
  return d.sm_count ? d.sm_count : kDefaultSms;
}

double Engine::compute_rate(int32_t dev) const {
  const GpuState& s = gpus_[static_cast<size_t>(dev)];
  if (!s.comm_present) return 1.0;
  const double total = sms_of(dev);
  const double held = std::min<double>(s.comm_sms, total - 1);
  return (total - held) / total / (1.0 + cfg_.comm_interference);
}

double Engine::instance_rate(const Instance& in) const {
  double rate = 1.0;
  for (uint32_t m : in.members) {
    const GpuState& s = gpus_[static_cast<size_t>(g_.nodes[m].device)];
    double r = s.computing ? 1.0 / (1.0 + cfg_.comm_slowdown) : 1.0;
    r /= std::max<size_t>(1, s.instances.size());
    rate = std::min(rate, r);
  }
  return rate;
}

void Engine::update_compute(uint32_t n, TimeNs t) {
  remaining_[n] = std::max(0.0, remaining_[n] - rate_[n] * static_cast<double>(t - since_[n]));
  since_[n] = t;
  const double r = compute_rate(g_.nodes[n].device);
  if (r == rate_[n]) return;
  rate_[n] = r;
  ++version_[n];
  push(t + static_cast<TimeNs>(std::ceil(remaining_[n] / r)), EvType::kWorkDone, n, version_[n]);
}

void Engine::update_instance(uint32_t i, TimeNs t) {
  Instance& in = instances_[i];
  in.remaining = std::max(0.0, in.remaining - in.rate * static_cast<double>(t - in.since));
  in.since = t;
  const double r = instance_rate(in);
  if (r == in.rate) return;
  in.rate = r;
  ++in.version;
  push(t + static_cast<TimeNs>(std::ceil(in.remaining / r)), EvType::kInstanceDone, i, in.version);
}

void Engine::rerate(int32_t dev, TimeNs t) {
  GpuState& s = gpus_[static_cast<size_t>(dev)];
  for (uint32_t n : s.computes) update_compute(n, t);
  for (uint32_t i : s.instances) update_instance(i, t);
}

void Engine::satisfy_start(uint32_t n, TimeNs t, int32_t by, Cause cause) {
  if (t > ready_at_[n] || (t == ready_at_[n] && r_.start_by[n] < 0)) {
    ready_at_[n] = t;
    r_.start_by[n] = by;
    r_.start_cause[n] = cause;
  }
  if (--start_pending_[n] == 0) push(std::max(ready_at_[n], now_), EvType::kStart, n);
}

void Engine::satisfy_ff(uint32_t n, TimeNs t, int32_t by) {
  if (t > ff_at_[n]) {
    ff_at_[n] = t;
    r_.end_by[n] = by;
  }
  if (--ff_pending_[n] == 0 && natural_done_[n]) push(std::max(ff_at_[n], now_), EvType::kFinishAt, n);
}

void Engine::start(uint32_t n, TimeNs t) {
  const Node& node = g_.nodes[n];
  if (is_kernel(node.kind)) {
    GpuState& s = gpus_[static_cast<size_t>(node.device)];
    for (uint32_t c : s.computes)
      if (g_.nodes[c].fills_gpu && g_.nodes[c].lane != node.lane) {
        s.blocked.push_back(n);
        r_.start_by[n] = static_cast<int32_t>(c);
        r_.start_cause[n] = Cause::kDispatch;
        return;
      }
  }
  r_.start[n] = t;
  for (uint32_t k = out_begin_[n]; k < out_begin_[n + 1]; ++k) {
    const Edge& e = g_.edges[out_edges_[k]];
    if (e.timing == EdgeTiming::kStartToStart) satisfy_start(e.to, t + e.lag, static_cast<int32_t>(n), Cause::kEdge);
  }
  switch (node.kind) {
    case NodeType::kHostCall:
      push(t + host_scaled(node.work), EvType::kWorkDone, n, 0);
      break;
    case NodeType::kCompute: {
      GpuState& s = gpus_[static_cast<size_t>(node.device)];
      remaining_[n] = static_cast<double>(node.work);
      since_[n] = t;
      rate_[n] = compute_rate(node.device);
      s.computes.push_back(n);
      if (s.computing++ == 0)
        for (uint32_t i : s.instances) update_instance(i, t);
      push(t + static_cast<TimeNs>(std::ceil(remaining_[n] / rate_[n])), EvType::kWorkDone, n, version_[n]);
      break;
    }
    case NodeType::kCopy:
    case NodeType::kMemset:
      push(t + node.work, EvType::kWorkDone, n, 0);
      break;
    case NodeType::kCollective:
    case NodeType::kPeerCopy:
    case NodeType::kFused: {
      const auto ii = static_cast<uint32_t>(instance_of_[n]);
      Instance& in = instances_[ii];
      GpuState& s = gpus_[static_cast<size_t>(node.device)];
      s.comm_present++;
      s.comm_sms += in.sms;
      rerate(node.device, t);
      in.last_arrival = static_cast<int32_t>(n);
      if (++in.arrived < in.members.size()) break;
      in.running = true;
      in.remaining = static_cast<double>(in.duration);
      in.since = t;
      for (uint32_t m : in.members) gpus_[static_cast<size_t>(g_.nodes[m].device)].instances.push_back(ii);
      in.rate = instance_rate(in);
      for (uint32_t m : in.members)  // the others' transfer rates changed too
        for (uint32_t other : gpus_[static_cast<size_t>(g_.nodes[m].device)].instances)
          if (other != ii) update_instance(other, t);
      if (in.group >= 0) r_.group_start[static_cast<size_t>(in.group)] = t;  // a lone node outside every group has none
      push(t + static_cast<TimeNs>(std::ceil(in.remaining / in.rate)), EvType::kInstanceDone, ii, in.version);
      break;
    }
  }
}

void Engine::finish(uint32_t n, TimeNs t) {
  r_.end[n] = t;
  if (const uint32_t nx = lane_next_[n]; nx != UINT32_MAX) {
    const bool host = g_.lanes[g_.nodes[nx].lane].kind == LaneKind::kThread;
    satisfy_start(nx, t + (host ? host_scaled(g_.nodes[nx].gap) : g_.nodes[nx].gap), static_cast<int32_t>(n), Cause::kLane);
  }
  for (uint32_t k = out_begin_[n]; k < out_begin_[n + 1]; ++k) {
    const Edge& e = g_.edges[out_edges_[k]];
    if (e.timing == EdgeTiming::kFinishToStart) satisfy_start(e.to, t + e.lag, static_cast<int32_t>(n), Cause::kEdge);
    else if (e.timing == EdgeTiming::kFinishToFinish) satisfy_ff(e.to, t + e.lag, static_cast<int32_t>(n));
  }
}

void Engine::work_done(uint32_t n, TimeNs t) {
  const Node& node = g_.nodes[n];
  if (node.kind == NodeType::kCompute) {
    GpuState& s = gpus_[static_cast<size_t>(node.device)];
    s.computes.erase(std::find(s.computes.begin(), s.computes.end(), n));
    if (--s.computing == 0)
      for (uint32_t i : s.instances) update_instance(i, t);
    if (node.fills_gpu && !s.blocked.empty()) {
      std::vector<uint32_t> waiting;
      waiting.swap(s.blocked);
      for (uint32_t b : waiting) start(b, t);  // one may fill the GPU again and block the rest
    }
  }
  natural_done_[n] = true;
  if (ff_pending_[n] == 0) {
    if (ff_at_[n] > t) {
      push(ff_at_[n], EvType::kFinishAt, n);
      return;
    }
    finish(n, t);
  }
}

ReplayResult Engine::run() {
  const size_t n_nodes = g_.nodes.size();
  r_.start.assign(n_nodes, -1);
  r_.end.assign(n_nodes, -1);
  r_.start_by.assign(n_nodes, -1);
  r_.start_cause.assign(n_nodes, Cause::kNone);
  r_.end_by.assign(n_nodes, -1);
  r_.end_cause.assign(n_nodes, Cause::kOwnWork);
  r_.group_start.assign(g_.groups.size(), -1);
  r_.group_end.assign(g_.groups.size(), -1);
  start_pending_.assign(n_nodes, 0);
  ff_pending_.assign(n_nodes, 0);
  ready_at_.assign(n_nodes, INT64_MIN);
  ff_at_.assign(n_nodes, INT64_MIN);
  natural_done_.assign(n_nodes, false);
  remaining_.assign(n_nodes, 0);
  rate_.assign(n_nodes, 1);
  since_.assign(n_nodes, 0);
  version_.assign(n_nodes, 0);
  lane_next_.assign(n_nodes, UINT32_MAX);
  gpus_.assign(g_.devices.size(), GpuState{});

  // Out-edges (CSR), skipping rendezvous edges (groups handle them) and removed nodes.
  out_begin_.assign(n_nodes + 1, 0);
  for (const Edge& e : g_.edges) {
    if (e.kind == EdgeKind::kCollective || e.kind == EdgeKind::kSendRecv || e.from == e.to) continue;
    if (g_.nodes[e.from].removed || g_.nodes[e.to].removed) continue;
    ++out_begin_[e.from + 1];
    if (e.timing == EdgeTiming::kFinishToFinish) ++ff_pending_[e.to];
    else ++start_pending_[e.to];
  }
  for (size_t i = 0; i < n_nodes; ++i) out_begin_[i + 1] += out_begin_[i];
  out_edges_.assign(out_begin_[n_nodes], 0);
  {
    std::vector<uint32_t> fill(out_begin_.begin(), out_begin_.end() - 1);
    for (uint32_t ei = 0; ei < g_.edges.size(); ++ei) {
      const Edge& e = g_.edges[ei];
      if (e.kind == EdgeKind::kCollective || e.kind == EdgeKind::kSendRecv || e.from == e.to) continue;
      if (g_.nodes[e.from].removed || g_.nodes[e.to].removed) continue;
      out_edges_[fill[e.from]++] = ei;
    }
  }
  for (const Lane& lane : g_.lanes)
    for (size_t i = 0; i + 1 < lane.nodes.size(); ++i) {
      lane_next_[lane.nodes[i]] = lane.nodes[i + 1];
      ++start_pending_[lane.nodes[i + 1]];
    }

  // Rendezvous instances.
  instance_of_.assign(n_nodes, -1);
  for (size_t gi = 0; gi < g_.groups.size(); ++gi) {
    const CommGroup& grp = g_.groups[gi];
    std::vector<uint32_t> live;
    for (uint32_t m : grp.members)
      if (!g_.nodes[m].removed) live.push_back(m);
    if (live.empty()) continue;
    auto add = [&](std::vector<uint32_t> members) {
      Instance in;
      in.members = std::move(members);
      in.group = static_cast<int32_t>(gi);
      in.duration = gi < work_.size() ? work_[gi].duration : -1;
      if (in.duration < 0) {  // measured: the last member to arrive waited least
        in.duration = INT64_MAX;
        for (uint32_t m : in.members) in.duration = std::min(in.duration, g_.nodes[m].work);
      }
      in.sms = gi < work_.size() ? work_[gi].sms : 0;
      for (uint32_t m : in.members) instance_of_[m] = static_cast<int32_t>(instances_.size());
      instances_.push_back(std::move(in));
    };
    if (grp.complete) add(live);
    else
      for (uint32_t m : live) add({m});
  }
  for (size_t n = 0; n < n_nodes; ++n) {
    const Node& node = g_.nodes[n];
    if (node.removed) continue;
    const bool comm = node.kind == NodeType::kCollective || node.kind == NodeType::kPeerCopy || node.kind == NodeType::kFused;
    if (comm && instance_of_[n] < 0) {  // a communication node outside every group: runs alone, measured
      Instance in;
      in.members = {static_cast<uint32_t>(n)};
      in.duration = node.work;
      instance_of_[n] = static_cast<int32_t>(instances_.size());
      instances_.push_back(std::move(in));
    }
    if (start_pending_[n] == 0) {
      ready_at_[n] = node.start;
      push(node.start, EvType::kStart, static_cast<uint32_t>(n));
    }
  }

  while (!queue_.empty()) {
    const Ev e = queue_.top();
    queue_.pop();
    ++r_.events;
    now_ = e.t;
    switch (e.type) {
      case EvType::kStart: start(e.id, e.t); break;
      case EvType::kWorkDone:
        if (g_.nodes[e.id].kind == NodeType::kCompute && e.version != version_[e.id]) break;
        work_done(e.id, e.t);
        break;
      case EvType::kFinishAt:
        r_.end_cause[e.id] = Cause::kHostWait;
        finish(e.id, e.t);
        break;
      case EvType::kInstanceDone: {
        Instance& in = instances_[e.id];
        if (e.version != in.version || !in.running) break;
        in.running = false;
        if (in.group >= 0) r_.group_end[static_cast<size_t>(in.group)] = e.t;
        std::vector<int32_t> devs;
        for (uint32_t m : in.members) {
          GpuState& s = gpus_[static_cast<size_t>(g_.nodes[m].device)];
          s.comm_present--;
          s.comm_sms -= in.sms;
          s.instances.erase(std::find(s.instances.begin(), s.instances.end(), e.id));
          devs.push_back(g_.nodes[m].device);
        }
        for (uint32_t m : in.members) {
          if (in.members.size() > 1 && in.last_arrival >= 0 && static_cast<uint32_t>(in.last_arrival) != m &&
              r_.start[static_cast<size_t>(in.last_arrival)] > r_.start[m]) {
            r_.end_by[m] = in.last_arrival;
            r_.end_cause[m] = Cause::kRendezvous;
          }
          finish(m, e.t);
        }
        std::sort(devs.begin(), devs.end());
        devs.erase(std::unique(devs.begin(), devs.end()), devs.end());
        for (int32_t d : devs) rerate(d, e.t);
        break;
      }
    }
  }

  size_t stuck = 0;
  std::string example;
  r_.first = INT64_MAX;
  r_.last = INT64_MIN;
  for (size_t n = 0; n < n_nodes; ++n) {
    if (g_.nodes[n].removed) continue;
    if (r_.end[n] < 0) {
      if (!stuck++) example = g_.names[g_.nodes[n].name];
      continue;
    }
    r_.first = std::min(r_.first, r_.start[n]);
    r_.last = std::max(r_.last, r_.end[n]);
  }
  if (r_.first > r_.last) r_.first = r_.last = 0;
  if (stuck)
    r_.warnings.push_back(std::to_string(stuck) + " operations never ran (first: " + example +
                          "): a dependency cycle or a collective whose members wait on each other");
  return std::move(r_);
}

}  // namespace

ReplayResult replay(const DepGraph& g, const std::vector<GroupWork>& group_work, const ReplayConfig& config) {
  Engine e(g, group_work, config);
  return e.run();
}

}  // namespace parascope::whatif
