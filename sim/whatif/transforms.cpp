#include "sim/whatif/transforms.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <stdexcept>

namespace parascope::whatif {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool has_any(const std::string& s, std::initializer_list<const char*> words) {
  for (const char* w : words)
    if (s.find(w) != std::string::npos) return true;
  return false;
}

size_t position_in_lane(const DepGraph& g, uint32_t n) {
  const auto& nodes = g.lanes[g.nodes[n].lane].nodes;
  return static_cast<size_t>(std::find(nodes.begin(), nodes.end(), n) - nodes.begin());
}

void remove_from_lane(DepGraph& g, uint32_t n) {
  auto& nodes = g.lanes[g.nodes[n].lane].nodes;
  nodes.erase(std::find(nodes.begin(), nodes.end(), n));
}

// Drops self-loops and every edge equal in (from, to, kind, timing) to an earlier one; the rest keep
// their order. The kept edges are chained by `from`, so a check walks only one node's out-edges (a
// std::set of tuples allocated a node per edge on every transform of every sweep variant).
void dedupe_edges(DepGraph& g) {
  std::vector<int32_t> head(g.nodes.size(), -1), next;
  std::vector<Edge> kept;
  kept.reserve(g.edges.size());
  next.reserve(g.edges.size());
  for (const Edge& e : g.edges) {
    if (e.from == e.to) continue;
    bool seen = false;
    for (int32_t k = head[e.from]; k >= 0 && !seen; k = next[static_cast<size_t>(k)]) {
      const Edge& x = kept[static_cast<size_t>(k)];
      seen = x.to == e.to && x.kind == e.kind && x.timing == e.timing;
    }
    if (seen) continue;
    next.push_back(head[e.from]);
    head[e.from] = static_cast<int32_t>(kept.size());
    kept.push_back(e);
  }
  g.edges = std::move(kept);
}

// Start of the host call that launched n, else its measured start.
TimeNs launch_time(const DepGraph& g, uint32_t n, const std::vector<int32_t>& launcher) {
  return launcher[n] >= 0 ? g.nodes[static_cast<size_t>(launcher[n])].start : g.nodes[n].start;
}

std::vector<int32_t> launchers(const DepGraph& g) {
  std::vector<int32_t> l(g.nodes.size(), -1);
  for (const Edge& e : g.edges)
    if (e.kind == EdgeKind::kLaunch || e.kind == EdgeKind::kGraphLaunch) l[e.to] = static_cast<int32_t>(e.from);
  return l;
}

bool lane_has_compute(const DepGraph& g, const Lane& lane) {
  for (uint32_t n : lane.nodes)
    if (g.nodes[n].kind == NodeType::kCompute) return true;
  return false;
}

// The device's compute stream: the lane with the most compute kernels.
int32_t main_lane(const DepGraph& g, int32_t device) {
  int32_t best = -1;
  size_t most = 0;
  for (uint32_t l = 0; l < g.lanes.size(); ++l) {
    if (g.lanes[l].kind != LaneKind::kStream || g.lanes[l].device != device) continue;
    size_t c = 0;
    for (uint32_t n : g.lanes[l].nodes) c += g.nodes[n].kind == NodeType::kCompute;
    if (c > most || best < 0) {
      most = c;
      best = static_cast<int32_t>(l);
    }
  }
  return best;
}

std::string plural(size_t n, const std::string& what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); }

}  // namespace

bool CommSelector::matches(const CommGroup& grp) const {
  if (op == CollectiveOp::kUnknown) return true;
  if (op == CollectiveOp::kSendRecv)
    return grp.spec.op == CollectiveOp::kSendRecv || grp.spec.op == CollectiveOp::kSend || grp.spec.op == CollectiveOp::kRecv;
  return grp.spec.op == op;
}

CommSelector CommSelector::from_knob(std::string_view v) {
  CommSelector s;
  if (v == "allreduce") s.op = CollectiveOp::kAllReduce;
  else if (v == "allgather") s.op = CollectiveOp::kAllGather;
  else if (v == "reducescatter") s.op = CollectiveOp::kReduceScatter;
  else if (v == "alltoall") s.op = CollectiveOp::kAllToAll;
  else if (v == "sendrecv") s.op = CollectiveOp::kSendRecv;
  return s;
}

KernelClass kernel_class_from_knob(std::string_view v) {
  if (v == "gemm") return KernelClass::kGemm;
  if (v == "attention") return KernelClass::kAttention;
  if (v == "elementwise") return KernelClass::kElementwise;
  if (v == "reduction") return KernelClass::kReduction;
  if (v == "memory") return KernelClass::kMemory;
  if (v == "other") return KernelClass::kOther;
  return KernelClass::kAll;
}

KernelClass kernel_class_of(std::string_view name) {
  const std::string n = lower(name);
  if (has_any(n, {"flash", "fmha", "attention", "attn", "sdpa"})) return KernelClass::kAttention;
  if (has_any(n, {"gemm", "nvjet", "cutlass", "xmma", "matmul", "cublas", "wgmma", "_mm_", "sm90_", "sm80_", "ampere_"}))
    return KernelClass::kGemm;
  if (has_any(n, {"reduce", "norm", "softmax", "sum_kernel", "mean"})) return KernelClass::kReduction;
  if (has_any(n, {"elementwise", "vectorized", "unrolled", "fill", "copy", "gelu", "relu", "silu", "activation", "add_kernel"}))
    return KernelClass::kElementwise;
  return KernelClass::kOther;
}

Parallelism parallelism_from_knob(std::string_view v) {
  if (v == "tp") return Parallelism::kTensor;
  if (v == "pp") return Parallelism::kPipeline;
  if (v == "ep") return Parallelism::kExpert;
  return Parallelism::kData;
}

void absorb_node(DepGraph& g, uint32_t victim, uint32_t keeper) {
  for (Edge& e : g.edges) {
    if (e.from == victim) e.from = keeper;
    if (e.to == victim) e.to = keeper;
  }
  remove_from_lane(g, victim);
  g.nodes[victim].removed = true;
}

std::string move_collectives_to_side_stream(DepGraph& g, const CommSelector& sel) {
  std::map<int32_t, uint32_t> side_lane;  // device -> lane
  size_t moved = 0;
  std::vector<uint32_t> members;
  for (const CommGroup& grp : g.groups)
    if (sel.matches(grp))
      for (uint32_t m : grp.members)
        if (!g.nodes[m].removed && g.nodes[m].kind == NodeType::kCollective) members.push_back(m);
  std::sort(members.begin(), members.end(), [&](uint32_t a, uint32_t b) { return g.nodes[a].start < g.nodes[b].start; });
  std::vector<std::vector<uint32_t>> syncs_from(g.nodes.size());  // host-sync edges by waited-for node
  for (uint32_t ei = 0; ei < g.edges.size(); ++ei)
    if (g.edges[ei].kind == EdgeKind::kHostSync) syncs_from[g.edges[ei].from].push_back(ei);
  std::vector<int8_t> has_compute(g.lanes.size(), -1);
  for (uint32_t m : members) {
    const uint32_t old_lane = g.nodes[m].lane;
    if (has_compute[old_lane] < 0) has_compute[old_lane] = lane_has_compute(g, g.lanes[old_lane]) ? 1 : 0;
    if (!has_compute[old_lane]) continue;
    const int32_t dev = g.nodes[m].device;
    if (!side_lane.count(dev)) {
      int64_t id = 0;
      for (const Lane& l : g.lanes)
        if (l.kind == LaneKind::kStream && l.device == dev) id = std::max(id, l.id);
      Lane side;
      side.kind = LaneKind::kStream;
      side.process = g.nodes[m].process;
      side.device = dev;
      side.id = id + 1;
      g.lanes.push_back(side);
      side_lane[dev] = static_cast<uint32_t>(g.lanes.size() - 1);
    }
    auto& nodes = g.lanes[old_lane].nodes;
    const size_t pos = position_in_lane(g, m);
    const int32_t prev = pos > 0 ? static_cast<int32_t>(nodes[pos - 1]) : -1;
    const int32_t step = g.nodes[m].step;
    // The join: the first op after it on the old stream that belongs to a later step.
    int32_t join = -1;
    std::vector<uint32_t> same_step_after;
    for (size_t i = pos + 1; i < nodes.size(); ++i) {
      if (g.nodes[nodes[i]].step != step) {
        join = static_cast<int32_t>(nodes[i]);
        break;
      }
      same_step_after.push_back(nodes[i]);
    }
    same_step_after.push_back(m);
    nodes.erase(nodes.begin() + static_cast<std::ptrdiff_t>(pos));
    g.nodes[m].lane = side_lane[dev];
    g.nodes[m].gap = 0;
    g.lanes[side_lane[dev]].nodes.push_back(m);
    if (prev >= 0) g.edges.push_back(Edge{static_cast<uint32_t>(prev), m, EdgeKind::kEventWait, EdgeTiming::kFinishToStart, 0, false});
    if (join >= 0) g.edges.push_back(Edge{m, static_cast<uint32_t>(join), EdgeKind::kJoin, EdgeTiming::kFinishToStart, 0, false});
    // Host calls that waited for this step's work on the old stream now wait for it too.
    std::vector<Edge> extra;
    for (uint32_t x : same_step_after)
      for (uint32_t ei : syncs_from[x])
        extra.push_back(Edge{m, g.edges[ei].to, EdgeKind::kJoin, EdgeTiming::kFinishToFinish, g.edges[ei].lag, false});
    g.edges.insert(g.edges.end(), extra.begin(), extra.end());
    ++moved;
  }
  for (auto& [dev, l] : side_lane)
    std::stable_sort(g.lanes[l].nodes.begin(), g.lanes[l].nodes.end(),
                     [&](uint32_t a, uint32_t b) { return g.nodes[a].start < g.nodes[b].start; });
  dedupe_edges(g);
  return moved ? "moved " + plural(moved, "collective member") + " to a side stream" : "";
}

CommDeps comm_deps_from_knob(std::string_view v) {
  if (v == "launch") return CommDeps::kLaunch;
  if (v == "step") return CommDeps::kStep;
  return CommDeps::kStream;
}

std::string set_collective_deps(DepGraph& g, const CommSelector& sel, CommDeps deps, std::vector<KeptDependency>* kept) {
  std::vector<uint32_t> members;
  std::vector<int8_t> has_compute(g.lanes.size(), -1);
  for (const CommGroup& grp : g.groups) {
    if (!sel.matches(grp)) continue;
    for (uint32_t m : grp.members) {
      const Node& n = g.nodes[m];
      if (n.removed || n.kind != NodeType::kCollective) continue;
      if (has_compute[n.lane] < 0) has_compute[n.lane] = lane_has_compute(g, g.lanes[n.lane]) ? 1 : 0;
      if (!has_compute[n.lane]) members.push_back(m);
    }
  }
  std::sort(members.begin(), members.end());
  members.erase(std::unique(members.begin(), members.end()), members.end());
  std::vector<bool> is_member(g.nodes.size(), false);
  for (uint32_t m : members) is_member[m] = true;
  // The first GPU op of each (step, device) that is not one of these members: what kStep starts them with.
  std::map<std::pair<int32_t, int32_t>, uint32_t> step_first;
  if (deps == CommDeps::kStep)
    for (uint32_t n = 0; n < g.nodes.size(); ++n) {
      const Node& node = g.nodes[n];
      if (node.removed || !is_gpu(node.kind) || node.step < 0 || is_member[n]) continue;
      auto [it, fresh] = step_first.try_emplace({node.step, node.device}, n);
      if (!fresh && node.start < g.nodes[it->second].start) it->second = n;
    }
  // what each member starts with under kStep (kNone: keeps its launch edge)
  constexpr uint32_t kNone = UINT32_MAX;
  std::vector<uint32_t> start_with(g.nodes.size(), kNone);
  if (deps == CommDeps::kStep)
    for (uint32_t m : members) {
      const auto first = step_first.find({g.nodes[m].step, g.nodes[m].device});
      if (first != step_first.end()) start_with[m] = first->second;
    }
  // one pass over the edges (a pass per member made sweeps quadratic in the graph)
  std::vector<uint8_t> dropped(g.nodes.size(), 0);
  for (Edge& e : g.edges) {
    if (!is_member[e.to] || e.from == e.to) continue;
    const bool step_start = start_with[e.to] != kNone;
    const bool wait = e.kind == EdgeKind::kEventWait || e.kind == EdgeKind::kJoin || e.kind == EdgeKind::kDispatch;
    const bool launch = e.kind == EdgeKind::kLaunch || e.kind == EdgeKind::kGraphLaunch;
    if ((deps != CommDeps::kStream && wait && is_gpu(g.nodes[e.from].kind)) || (step_start && launch)) {
      dropped[e.to] = 1;
      e.from = e.to;  // a self-loop: dropped below
    }
  }
  size_t changed = 0;
  std::vector<Edge> added;
  for (uint32_t m : members) {
    const bool step_start = start_with[m] != kNone;
    if (step_start) added.push_back(Edge{start_with[m], m, EdgeKind::kEventWait, EdgeTiming::kStartToStart, 0, false});
    changed += dropped[m] || step_start;
  }
  g.edges.insert(g.edges.end(), added.begin(), added.end());
  dedupe_edges(g);
  if (kept) {
    std::vector<std::vector<uint32_t>> into(g.nodes.size());
    for (uint32_t ei = 0; ei < g.edges.size(); ++ei)
      if (is_member[g.edges[ei].to] && g.edges[ei].from != g.edges[ei].to) into[g.edges[ei].to].push_back(ei);
    // The op before each member on its lane (-1: it is first; kAbsent: not on it), one pass per
    // lane holding members (a search of the lane per member was quadratic in the lane's length).
    constexpr int32_t kAbsent = -2;
    std::vector<int32_t> before_in_lane(g.nodes.size(), kAbsent);
    std::vector<uint8_t> lane_done(g.lanes.size(), 0);
    for (uint32_t m : members) {
      const uint32_t l = g.nodes[m].lane;
      if (lane_done[l]) continue;
      lane_done[l] = 1;
      const auto& nodes = g.lanes[l].nodes;
      for (size_t i = nodes.size(); i-- > 0;)  // backwards: a node's first place wins, as std::find's
        if (g.nodes[nodes[i]].lane == l) before_in_lane[nodes[i]] = i > 0 ? static_cast<int32_t>(nodes[i - 1]) : -1;
    }
    for (uint32_t m : members) {
      KeptDependency k;
      k.node = m;
      auto add = [&](const std::string& s) { k.kept += (k.kept.empty() ? "" : "; ") + s; };
      for (uint32_t ei : into[m]) {
        const Edge& e = g.edges[ei];
        if (e.kind == EdgeKind::kCollective || e.kind == EdgeKind::kSendRecv || e.timing == EdgeTiming::kFinishToFinish) continue;
        const std::string from(g.names[g.nodes[e.from].name]);
        if (e.kind == EdgeKind::kLaunch || e.kind == EdgeKind::kGraphLaunch) add("launch (" + from + ")");
        else if (e.timing == EdgeTiming::kStartToStart) add("step start (with " + from + ")");
        else add(std::string(to_string(e.kind)) + " on " + from);
      }
      int32_t prev = before_in_lane[m];
      if (prev == kAbsent) {  // not on its lane: what position_in_lane's end gives
        const auto& nodes = g.lanes[g.nodes[m].lane].nodes;
        prev = nodes.empty() ? -1 : static_cast<int32_t>(nodes.back());
      }
      if (prev >= 0) add("stream order after " + std::string(g.names[g.nodes[static_cast<size_t>(prev)].name]));
      if (k.kept.empty()) k.kept = "nothing";
      kept->push_back(std::move(k));
    }
  }
  static constexpr const char* kHow[] = {"", "wait only for their launch", "start with their step's first GPU op"};
  return changed ? plural(changed, "side-stream collective member") + " now " + kHow[static_cast<int>(deps)] : "";
}

std::string serialize_collectives(DepGraph& g, const CommSelector& sel) {
  const std::vector<int32_t> launcher = launchers(g);
  size_t moved = 0;
  std::vector<uint32_t> members;
  for (const CommGroup& grp : g.groups)
    if (sel.matches(grp))
      for (uint32_t m : grp.members)
        if (!g.nodes[m].removed && g.nodes[m].kind == NodeType::kCollective) members.push_back(m);
  std::sort(members.begin(), members.end(),
            [&](uint32_t a, uint32_t b) { return launch_time(g, a, launcher) < launch_time(g, b, launcher); });
  for (uint32_t m : members) {
    const int32_t target = main_lane(g, g.nodes[m].device);
    if (target < 0 || static_cast<uint32_t>(target) == g.nodes[m].lane || lane_has_compute(g, g.lanes[g.nodes[m].lane])) continue;
    remove_from_lane(g, m);
    auto& nodes = g.lanes[static_cast<size_t>(target)].nodes;
    const TimeNs t = launch_time(g, m, launcher);
    auto it = std::find_if(nodes.begin(), nodes.end(), [&](uint32_t x) { return launch_time(g, x, launcher) > t; });
    g.nodes[m].gap = it != nodes.end() ? g.nodes[*it].gap : 0;
    nodes.insert(it, m);
    g.nodes[m].lane = static_cast<uint32_t>(target);
    ++moved;
  }
  // Waits between a moved collective and its new stream are plain stream order now, and two
  // kernels of one stream never compete for SMs (dispatch edges).
  std::vector<Edge> kept;
  for (const Edge& e : g.edges) {
    const bool same_lane = !g.nodes[e.from].removed && !g.nodes[e.to].removed && g.nodes[e.from].lane == g.nodes[e.to].lane;
    if (same_lane && e.kind == EdgeKind::kDispatch) continue;
    const bool wait = e.kind == EdgeKind::kEventWait || e.kind == EdgeKind::kJoin;
    if (wait && same_lane && position_in_lane(g, e.from) < position_in_lane(g, e.to)) continue;
    kept.push_back(e);
  }
  g.edges = std::move(kept);
  return moved ? "serialised " + plural(moved, "collective member") + " on the compute stream" : "";
}

std::string split_collectives(DepGraph& g, const CommSelector& sel, int parts) {
  if (parts <= 1) return "";
  size_t split = 0;
  const size_t n_groups = g.groups.size();
  std::vector<std::vector<uint32_t>> touching(g.nodes.size());  // edges by endpoint (of the original nodes)
  for (uint32_t ei = 0; ei < g.edges.size(); ++ei) {
    touching[g.edges[ei].from].push_back(ei);
    if (g.edges[ei].to != g.edges[ei].from) touching[g.edges[ei].to].push_back(ei);
  }
  for (size_t gi = 0; gi < n_groups; ++gi) {
    if (!sel.matches(g.groups[gi])) continue;
    const std::vector<uint32_t> members = g.groups[gi].members;
    bool live = !members.empty();
    for (uint32_t m : members) live = live && !g.nodes[m].removed && g.nodes[m].kind == NodeType::kCollective;
    if (!live) continue;
    g.groups[gi].spec.bytes /= parts;
    std::vector<int32_t> new_groups;
    for (int p = 1; p < parts; ++p) {
      CommGroup copy = g.groups[gi];
      copy.members.clear();
      new_groups.push_back(static_cast<int32_t>(g.groups.size()));
      g.groups.push_back(std::move(copy));
    }
    for (uint32_t m : members) {
      const std::string base(g.names[g.nodes[m].name]);
      const TimeNs dur = g.nodes[m].dur / parts, work = g.nodes[m].work / parts;
      g.nodes[m].dur = dur;
      g.nodes[m].work = work;
      g.nodes[m].name = g.intern(base + " [1/" + std::to_string(parts) + "]");
      std::vector<uint32_t> clones;
      for (int p = 1; p < parts; ++p) {
        Node c = g.nodes[m];
        c.name = g.intern(base + " [" + std::to_string(p + 1) + "/" + std::to_string(parts) + "]");
        c.start = g.nodes[m].start + p * dur;
        c.gap = 0;
        c.group = new_groups[static_cast<size_t>(p - 1)];
        c.source = EventRef{};
        const uint32_t id = g.add_node(std::move(c));
        g.groups[static_cast<size_t>(new_groups[static_cast<size_t>(p - 1)])].members.push_back(id);
        clones.push_back(id);
      }
      auto& nodes = g.lanes[g.nodes[m].lane].nodes;
      const auto pos = std::find(nodes.begin(), nodes.end(), m) - nodes.begin() + 1;
      nodes.insert(nodes.begin() + pos, clones.begin(), clones.end());
      const uint32_t last = clones.back();
      std::vector<Edge> extra;
      for (uint32_t ei : touching[m]) {
        Edge& e = g.edges[ei];
        if (e.from == m && e.timing != EdgeTiming::kStartToStart && e.kind != EdgeKind::kCollective && e.kind != EdgeKind::kSendRecv)
          e.from = last;  // what waited for the collective waits for its last bucket
        if (e.to == m && (e.kind == EdgeKind::kLaunch || e.kind == EdgeKind::kGraphLaunch))
          for (uint32_t c : clones) extra.push_back(Edge{e.from, c, e.kind, e.timing, e.lag, e.inferred});
      }
      g.edges.insert(g.edges.end(), extra.begin(), extra.end());
    }
    ++split;
  }
  dedupe_edges(g);
  return split ? "split " + plural(split, "collective") + " into " + std::to_string(parts) + " buckets each" : "";
}

std::string merge_collectives(DepGraph& g, const CommSelector& sel, int count) {
  if (count <= 1) return "";
  // Selected live groups in order of their first member's start.
  std::vector<uint32_t> order;
  for (uint32_t gi = 0; gi < g.groups.size(); ++gi) {
    const CommGroup& grp = g.groups[gi];
    if (!sel.matches(grp) || grp.members.empty() || grp.measured_only) continue;
    bool live = true;
    for (uint32_t m : grp.members) live = live && !g.nodes[m].removed && g.nodes[m].kind == NodeType::kCollective;
    if (live) order.push_back(gi);
  }
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return g.nodes[g.groups[a].members[0]].start < g.nodes[g.groups[b].members[0]].start;
  });
  // Two groups chain when each rank's member of the second directly follows the first's in its lane.
  auto chains = [&](uint32_t a, uint32_t b) {
    const CommGroup& x = g.groups[a];
    const CommGroup& y = g.groups[b];
    if (x.spec.op != y.spec.op || x.spec.gpus != y.spec.gpus || x.members.size() != y.members.size()) return false;
    for (size_t i = 0; i < x.members.size(); ++i) {
      const uint32_t m = x.members[i], n = y.members[i];
      if (g.nodes[m].lane != g.nodes[n].lane || g.nodes[m].step != g.nodes[n].step) return false;  // never across steps
      const auto& nodes = g.lanes[g.nodes[m].lane].nodes;
      const size_t pm = position_in_lane(g, m);
      if (pm + 1 >= nodes.size() || nodes[pm + 1] != n) return false;
    }
    return true;
  };
  size_t merged = 0, buckets = 0;
  size_t i = 0;
  while (i < order.size()) {
    size_t j = i;
    while (j + 1 < order.size() && j - i + 1 < static_cast<size_t>(count) && chains(order[j], order[j + 1])) ++j;
    if (j > i) {
      CommGroup& keep = g.groups[order[j]];
      for (size_t k = i; k < j; ++k) {
        CommGroup& gone = g.groups[order[k]];
        keep.spec.bytes += gone.spec.bytes;
        for (size_t r = 0; r < keep.members.size(); ++r) {
          Node& kn = g.nodes[keep.members[r]];
          const Node& vn = g.nodes[gone.members[r]];
          kn.dur += vn.dur;
          kn.work += vn.work;
          // the merged bucket launches when the last of its parts did: drop the parts' launches
          for (Edge& e : g.edges)
            if (e.to == gone.members[r] && (e.kind == EdgeKind::kLaunch || e.kind == EdgeKind::kGraphLaunch)) e.from = e.to;
          if (k == i) kn.gap = vn.gap;
          absorb_node(g, gone.members[r], keep.members[r]);
        }
        gone.members.clear();
        ++merged;
      }
      for (uint32_t m : keep.members)
        g.nodes[m].name = g.intern(std::string(g.names[g.nodes[m].name]) + " [" + std::to_string(j - i + 1) + " merged]");
      ++buckets;
    }
    i = j + 1;
  }
  if (merged) dedupe_edges(g);
  return merged ? "merged " + plural(merged + buckets, "collective") + " into " + plural(buckets, "bucket") : "";
}

std::string set_comm_call_time(DepGraph& g, const CommSelector& sel, TimeNs work, bool standin_only) {
  std::vector<char> hit(g.nodes.size(), 0);
  size_t n = 0;
  for (const Edge& e : g.edges) {
    if (e.kind != EdgeKind::kLaunch) continue;
    const Node& to = g.nodes[e.to];
    Node& from = g.nodes[e.from];
    if (to.removed || from.removed || from.kind != NodeType::kHostCall || hit[e.from]) continue;
    if (to.kind != NodeType::kCollective && to.kind != NodeType::kPeerCopy) continue;
    if (to.group < 0 || !sel.matches(g.groups[static_cast<size_t>(to.group)])) continue;
    if (standin_only) {
      const Lane& lane = g.lanes[to.lane];
      if (lane.kind != LaneKind::kStream || lane.id < kStandInStreamBase) continue;
    }
    hit[e.from] = 1;
    from.work = work;
    ++n;
  }
  char v[48];
  std::snprintf(v, sizeof v, "%g us", static_cast<double>(work) / 1e3);
  return n ? "set the host time of " + plural(n, "communication launch call") + " to " + v : "";
}

std::string scale_kernels(DepGraph& g, KernelClass cls, double factor) {
  if (factor == 1.0) return "";
  size_t n = 0;
  for (Node& node : g.nodes) {
    if (node.removed) continue;
    bool hit = false;
    if (cls == KernelClass::kMemory) hit = node.kind == NodeType::kCopy || node.kind == NodeType::kMemset;
    else if (node.kind == NodeType::kCompute) hit = cls == KernelClass::kAll || kernel_class_of(g.names[node.name]) == cls;
    if (!hit) continue;
    node.work = static_cast<TimeNs>(std::llround(static_cast<double>(node.work) * factor));
    ++n;
  }
  char f[32];
  std::snprintf(f, sizeof f, "%g", factor);
  return n ? "scaled " + plural(n, "kernel") + " by " + f : "";
}

std::string fuse_gemm_collectives(DepGraph& g, bool ag_gemm, bool gemm_rs, double bf16_flops, int dtype_bytes) {
  if (!(bf16_flops > 0) || dtype_bytes <= 0) return "";
  size_t fused = 0;
  for (CommGroup& grp : g.groups) {
    const bool ag = ag_gemm && grp.spec.op == CollectiveOp::kAllGather;
    const bool rs = gemm_rs && grp.spec.op == CollectiveOp::kReduceScatter;
    if ((!ag && !rs) || !grp.complete || grp.measured_only || grp.members.size() < 2) continue;
    // the GEMM right after (all-gather) or right before (reduce-scatter) on every rank; memsets
    // between them (cuBLAS workspace) stay where they are
    std::vector<uint32_t> gemms;
    for (uint32_t m : grp.members) {
      if (g.nodes[m].removed || g.nodes[m].kind != NodeType::kCollective) break;
      const auto& nodes = g.lanes[g.nodes[m].lane].nodes;
      auto i = static_cast<std::ptrdiff_t>(position_in_lane(g, m));
      const std::ptrdiff_t step = ag ? 1 : -1;
      i += step;
      while (i >= 0 && i < static_cast<std::ptrdiff_t>(nodes.size()) && g.nodes[nodes[static_cast<size_t>(i)]].kind == NodeType::kMemset) i += step;
      if (i < 0 || i >= static_cast<std::ptrdiff_t>(nodes.size())) break;
      const Node& cand = g.nodes[nodes[static_cast<size_t>(i)]];
      if (cand.kind != NodeType::kCompute || kernel_class_of(g.names[cand.name]) != KernelClass::kGemm) break;
      gemms.push_back(nodes[static_cast<size_t>(i)]);
    }
    if (gemms.size() != grp.members.size()) continue;
    TimeNs work = 0;
    for (uint32_t x : gemms) work = std::max(work, g.nodes[x].work);
    const double flops = static_cast<double>(work) * 1e-9 * bf16_flops;
    const auto n = static_cast<double>(grp.members.size());
    constexpr int64_t kSide = 4096;
    CommSpec& s = grp.spec;
    s.fused_allgather_first = ag;
    s.gemm_efficiency = 1.0;
    if (ag) {
      // shard bytes = (m / n) k dtype = bytes;  flops = 2 m N k
      const double mk = s.bytes * n / dtype_bytes;
      s.gemm_k = std::min<int64_t>(kSide, std::max<int64_t>(1, static_cast<int64_t>(mk)));
      s.gemm_m = std::max<int64_t>(1, static_cast<int64_t>(std::llround(mk / static_cast<double>(s.gemm_k))));
      s.gemm_n = std::max<int64_t>(1, static_cast<int64_t>(std::llround(flops / (2.0 * static_cast<double>(s.gemm_m * s.gemm_k)))));
    } else {
      // input bytes = m N dtype = bytes;  flops = 2 m N k
      const double mn = s.bytes / dtype_bytes;
      s.gemm_n = std::min<int64_t>(kSide, std::max<int64_t>(1, static_cast<int64_t>(mn)));
      s.gemm_m = std::max<int64_t>(1, static_cast<int64_t>(std::llround(mn / static_cast<double>(s.gemm_n))));
      s.gemm_k = std::max<int64_t>(1, static_cast<int64_t>(std::llround(flops / (2.0 * static_cast<double>(s.gemm_m * s.gemm_n)))));
    }
    for (size_t r = 0; r < grp.members.size(); ++r) {
      const uint32_t m = grp.members[r], x = gemms[r];
      Node& node = g.nodes[m];
      const std::string name = ag ? std::string(g.names[node.name]) + " + " + std::string(g.names[g.nodes[x].name])
                                  : std::string(g.names[g.nodes[x].name]) + " + " + std::string(g.names[node.name]);
      node.kind = NodeType::kFused;
      node.name = g.intern(name + " (fused)");
      node.dur += g.nodes[x].dur;
      if (!ag) {
        node.gap = g.nodes[x].gap;
        node.start = g.nodes[x].start;
      }
      absorb_node(g, x, m);
      // one kernel, one launch: the earlier of the two
      int64_t first = -1;
      for (size_t ei = 0; ei < g.edges.size(); ++ei) {
        const Edge& e = g.edges[ei];
        if (e.to != m || (e.kind != EdgeKind::kLaunch && e.kind != EdgeKind::kGraphLaunch)) continue;
        if (first < 0 || g.nodes[e.from].start < g.nodes[g.edges[static_cast<size_t>(first)].from].start) first = static_cast<int64_t>(ei);
      }
      for (size_t ei = 0; ei < g.edges.size(); ++ei) {
        Edge& e = g.edges[ei];
        if (e.to == m && (e.kind == EdgeKind::kLaunch || e.kind == EdgeKind::kGraphLaunch) && static_cast<int64_t>(ei) != first)
          e.from = e.to;  // a self-loop: dropped below
      }
    }
    ++fused;
  }
  if (fused) dedupe_edges(g);
  return fused ? "fused " + plural(fused, "collective") + " with their GEMMs" : "";
}

std::string scale_out(DepGraph& g, int gpus, Parallelism par) {
  const auto traced = static_cast<int>(g.devices.size());
  if (gpus <= 0 || gpus == traced) return "";
  if (traced == 0 || gpus % traced != 0)
    throw std::invalid_argument("scale_gpus=" + std::to_string(gpus) + " is not a multiple of the " + std::to_string(traced) +
                                " traced GPUs");
  const int copies = gpus / traced;
  const int32_t gpu_span = g.gpu_count();
  const size_t n_nodes = g.nodes.size(), n_lanes = g.lanes.size(), n_edges = g.edges.size(), n_groups = g.groups.size();
  const size_t n_procs = g.processes.size(), n_devs = g.devices.size();
  const double shrink = static_cast<double>(traced) / gpus;
  const bool shrink_work = par == Parallelism::kTensor || par == Parallelism::kPipeline;
  auto grows = [&](const CommGroup& grp) {
    if (grp.spec.op == CollectiveOp::kSendRecv || grp.spec.op == CollectiveOp::kSend || grp.spec.op == CollectiveOp::kRecv)
      return false;
    if (grp.members.size() < 2) return false;
    if (par == Parallelism::kPipeline) return false;
    if (par == Parallelism::kExpert) return grp.spec.op == CollectiveOp::kAllToAll;
    return true;
  };
  g.nodes.reserve(n_nodes * static_cast<size_t>(copies));
  g.edges.reserve(n_edges * static_cast<size_t>(copies));
  for (int c = 1; c < copies; ++c) {
    const auto node_off = static_cast<uint32_t>(c * n_nodes), lane_off = static_cast<uint32_t>(c * n_lanes);
    const auto proc_off = static_cast<uint32_t>(c * n_procs);
    const auto dev_off = static_cast<int32_t>(c * n_devs);
    for (size_t p = 0; p < n_procs; ++p) {
      GraphProcess gp = g.processes[p];
      if (gp.rank >= 0) gp.rank += c * traced;
      gp.name += " (copy " + std::to_string(c) + ")";
      g.processes.push_back(std::move(gp));
    }
    for (size_t d = 0; d < n_devs; ++d) {
      GraphDevice gd = g.devices[d];
      gd.process += proc_off;
      gd.gpu += c * gpu_span;
      g.devices.push_back(gd);
    }
    for (size_t l = 0; l < n_lanes; ++l) {
      Lane lane = g.lanes[l];
      lane.process += proc_off;
      if (lane.device >= 0) lane.device += dev_off;
      for (uint32_t& n : lane.nodes) n += node_off;
      g.lanes.push_back(std::move(lane));
    }
    for (size_t n = 0; n < n_nodes; ++n) {
      Node node = g.nodes[n];
      node.lane += lane_off;
      node.process += proc_off;
      if (node.device >= 0) node.device += dev_off;
      node.source = EventRef{};
      g.nodes.push_back(node);
    }
    for (size_t e = 0; e < n_edges; ++e) {
      Edge edge = g.edges[e];
      edge.from += node_off;
      edge.to += node_off;
      g.edges.push_back(edge);
    }
    for (Step& s : g.steps) {
      const size_t n_ranges = s.ranges.size();
      for (size_t r = 0; r < n_ranges; ++r) {
        StepRange sr = s.ranges[r];
        if (sr.process < n_procs) {
          sr.process += proc_off;
          s.ranges.push_back(sr);
        }
      }
    }
  }
  g.groups.reserve(n_groups * static_cast<size_t>(copies));  // `grp` stays valid while copies are added
  for (size_t gi = 0; gi < n_groups; ++gi) {
    CommGroup& grp = g.groups[gi];
    const bool grow = grows(grp);
    const std::vector<uint32_t> members = grp.members;
    const std::vector<int32_t> gpus0 = grp.spec.gpus;
    if (grow) {
      for (int c = 1; c < copies; ++c) {
        for (uint32_t m : members) grp.members.push_back(m + static_cast<uint32_t>(c * n_nodes));
        for (int32_t x : gpus0) grp.spec.gpus.push_back(x + c * gpu_span);
      }
      if (grp.spec.op == CollectiveOp::kAllGather && par != Parallelism::kExpert) grp.spec.bytes *= shrink;
    } else {
      for (int c = 1; c < copies; ++c) {
        CommGroup copy = grp;
        for (uint32_t& m : copy.members) m += static_cast<uint32_t>(c * n_nodes);
        for (int32_t& x : copy.spec.gpus) x += c * gpu_span;
        const auto id = static_cast<int32_t>(g.groups.size());
        for (uint32_t m : copy.members) g.nodes[m].group = id;
        g.groups.push_back(std::move(copy));
      }
    }
  }
  if (shrink_work)
    for (Node& n : g.nodes)
      if (n.kind == NodeType::kCompute) n.work = static_cast<TimeNs>(std::llround(static_cast<double>(n.work) * shrink));
  static constexpr const char* kNames[] = {"data", "tensor", "pipeline", "expert"};
  return "scaled " + std::to_string(traced) + " -> " + std::to_string(gpus) + " GPUs (" + kNames[static_cast<int>(par)] + "-parallel)";
}

}  // namespace parascope::whatif
