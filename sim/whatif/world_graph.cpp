#include "sim/whatif/world_graph.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

namespace parascope::whatif {

namespace {

std::string ranks_text(const std::vector<int32_t>& r) {
  std::string s = "[";
  for (size_t i = 0; i < r.size(); ++i) s += (i ? ", " : "") + std::to_string(r[i]);
  return s + "]";
}

int32_t position(const std::vector<int32_t>& ranks, int32_t r) {
  const auto it = std::find(ranks.begin(), ranks.end(), r);
  return it == ranks.end() ? -1 : static_cast<int32_t>(it - ranks.begin());
}

std::set<int32_t> rank_set(const std::vector<int32_t>& r) { return {r.begin(), r.end()}; }

// The split of the world `gid` was made in: groups made one after another, each of the same size
// and disjoint from the others ([0, 1], [2, 3], [4, 5], [6, 7] as every rank's new_group calls make
// them), cut from the first group on (a group that is not such starts the next split). [first,
// last] of ids.
std::pair<int32_t, int32_t> split_of(int32_t gid, const RecordedWorld& w) {
  int32_t first = 0;
  std::set<int32_t> used;
  for (int32_t i = 0; i < static_cast<int32_t>(w.groups.size()); ++i) {
    const std::vector<int32_t>& r = w.groups[static_cast<size_t>(i)].ranks;
    const bool joins = i > first && r.size() == w.groups[static_cast<size_t>(first)].ranks.size() &&
                       std::none_of(r.begin(), r.end(), [&](int32_t x) { return used.count(x) > 0; });
    if (!joins) {
      if (i > gid) return {first, i - 1};
      first = i;
      used.clear();
    }
    used.insert(r.begin(), r.end());
  }
  return {first, static_cast<int32_t>(w.groups.size()) - 1};
}

// The group (its stand-in id) a copy of rank `from` running as rank `to` uses where `from` used
// group `gid`; -1: none. Programs make several groups of the same ranks (the world group and a
// new_group of every rank; one new_group per library call): the k-th group of a rank set maps to
// the k-th group of the shifted set, so calls on different groups never share a rendezvous. Where
// the shifted set is no group (rank 1 of pairs [0, 1], [2, 3], ...: {1, 2}), the copy takes the
// member of gid's own split that holds it — the k-th [0, 1] for the k-th [0, 1], not the first
// (the first for all of them put rank 1's calls of every later [0, 1] in the first one's
// rendezvous, twice, and left the later ones without it).
int32_t map_group(int32_t gid, int32_t from, int32_t to, int32_t world, const RecordedWorld& w) {
  if (gid < 0 || static_cast<size_t>(gid) >= w.groups.size() || w.groups[static_cast<size_t>(gid)].ranks.empty()) return -1;
  const std::vector<int32_t>& group = w.groups[static_cast<size_t>(gid)].ranks;
  if (from == to || static_cast<int32_t>(group.size()) == world) return gid;
  const std::set<int32_t> have = rank_set(group);
  size_t k = 0;  // gid is the k-th group of its rank set
  for (int32_t i = 0; i < gid; ++i) k += rank_set(w.groups[static_cast<size_t>(i)].ranks) == have;
  std::set<int32_t> want;
  for (int32_t r : group) want.insert(((r + to - from) % world + world) % world);
  std::vector<int32_t> same;  // groups of the shifted set, by id
  for (size_t i = 0; i < w.groups.size(); ++i)
    if (rank_set(w.groups[i].ranks) == want) same.push_back(static_cast<int32_t>(i));
  if (!same.empty()) return same[std::min(k, same.size() - 1)];
  const auto [first, last] = split_of(gid, w);
  for (int32_t i = first; i <= last; ++i)
    if (position(w.groups[static_cast<size_t>(i)].ranks, to) >= 0) return i;
  for (size_t i = 0; i < w.groups.size(); ++i)
    if (w.groups[i].ranks.size() == group.size() && position(w.groups[i].ranks, to) >= 0) return static_cast<int32_t>(i);
  return -1;
}

}  // namespace

void expand_world(DepGraph& g, const Trace& t) {
  if (t.worlds.empty() || g.processes.empty()) return;
  GraphDiagnostics& diag = g.diagnostics;
  std::map<uint32_t, const RecordedWorld*> world_of;  // trace process -> its recorded world
  int32_t world = 0;
  for (const RecordedWorld& w : t.worlds) {
    world_of[w.process] = &w;
    if (world && w.world_size != world)
      diag.warnings.push_back("recorded processes disagree on the world size (" + std::to_string(world) + " and " +
                              std::to_string(w.world_size) + "): the larger is used");
    world = std::max(world, w.world_size);
  }
  std::map<int32_t, uint32_t> proc_of_rank;  // recorded rank -> graph process
  for (uint32_t p = 0; p < g.processes.size(); ++p) {
    auto it = world_of.find(g.processes[p].trace_process);
    if (it == world_of.end()) continue;
    const int32_t r = it->second->rank;
    if (!proc_of_rank.emplace(r, p).second) {
      diag.warnings.push_back("rank " + std::to_string(r) + " was recorded twice: the first recording is used");
      continue;
    }
    g.processes[p].rank = r;
  }
  if (proc_of_rank.empty()) return;

  // Stand-in communication nodes and what the program asked of each.
  std::unordered_map<uint64_t, uint32_t> ci_of_kernel;
  for (uint32_t i = 0; i < t.collectives.size(); ++i)
    if (t.collectives[i].kernel.valid())
      ci_of_kernel[(uint64_t{t.collectives[i].kernel.track} << 32) | t.collectives[i].kernel.index] = i;
  std::vector<int32_t> ci_of_node(g.nodes.size(), -1);
  std::vector<int32_t> gid_of_node(g.nodes.size(), -1);  // the stand-in group id (the stream's, track.h)
  for (uint32_t n = 0; n < g.nodes.size(); ++n) {
    const Node& node = g.nodes[n];
    if (!node.source.valid() || !world_of.count(g.processes[node.process].trace_process)) continue;
    const Track& tr = t.tracks[node.source.track];
    if (tr.key.kind != TrackKind::kGpuStream || tr.key.id < kStandInStreamBase) continue;  // stand-in streams only
    auto it = ci_of_kernel.find((uint64_t{node.source.track} << 32) | node.source.index);
    if (it == ci_of_kernel.end()) continue;
    ci_of_node[n] = static_cast<int32_t>(it->second);
    // the call's group: the stream's id when the group's ranks agree with the call's (a call
    // without a group record has none)
    const RecordedWorld& w = *world_of[g.processes[node.process].trace_process];
    const int64_t gid = tr.key.id - kStandInStreamBase;
    if (gid < static_cast<int64_t>(w.groups.size()) &&
        ranks_text(w.groups[static_cast<size_t>(gid)].ranks) == t.str(t.collectives[it->second].group_ranks))
      gid_of_node[n] = static_cast<int32_t>(gid);
  }

  // 1. The matcher's groups of stand-in nodes go: they are rebuilt over the whole world below.
  {
    std::vector<CommGroup> kept;
    std::vector<int32_t> remap(g.groups.size(), -1);
    for (size_t gi = 0; gi < g.groups.size(); ++gi) {
      const bool ours = std::any_of(g.groups[gi].members.begin(), g.groups[gi].members.end(),
                                    [&](uint32_t m) { return ci_of_node[m] >= 0; });
      if (ours) continue;
      remap[gi] = static_cast<int32_t>(kept.size());
      kept.push_back(std::move(g.groups[gi]));
    }
    g.groups = std::move(kept);
    for (Node& n : g.nodes)
      if (n.group >= 0) n.group = remap[static_cast<size_t>(n.group)];
    std::erase_if(g.edges, [&](const Edge& e) {
      return (e.kind == EdgeKind::kCollective || e.kind == EdgeKind::kSendRecv) && (ci_of_node[e.from] >= 0 || ci_of_node[e.to] >= 0);
    });
    std::erase_if(diag.unmatched, [&](const UnmatchedCollective& u) { return ci_of_node[u.node] >= 0; });
    std::erase_if(diag.warnings, [](const std::string& w) { return w.find("could not be matched across ranks") != std::string::npos; });
  }

  // 2. Recorded processes start together (they were recorded one after another).
  if (proc_of_rank.size() > 1) {
    std::map<uint32_t, TimeNs> first;
    for (const Node& n : g.nodes) {
      auto [it, fresh] = first.try_emplace(n.process, n.start);
      if (!fresh) it->second = std::min(it->second, n.start);
    }
    {
      const TimeNs ref = first[proc_of_rank.begin()->second];
      for (Node& n : g.nodes)
        if (auto it = first.find(n.process); it != first.end() && world_of.count(g.processes[n.process].trace_process)) n.start -= it->second - ref;
      for (Step& s : g.steps)
        for (StepRange& r : s.ranges)
          if (auto it = first.find(r.process); it != first.end() && world_of.count(g.processes[r.process].trace_process)) {
            r.start -= it->second - ref;
            r.end -= it->second - ref;
          }
    }
  }

  // 3. Every rank that was not recorded: a copy of the nearest recorded rank at or below it.
  std::map<int32_t, uint32_t> proc_of = proc_of_rank;  // every rank -> graph process
  std::map<uint32_t, int32_t> template_rank;           // graph process -> the recorded rank it runs
  for (const auto& [r, p] : proc_of_rank) template_rank[p] = r;
  std::vector<int32_t> template_node(g.nodes.size(), -1);
  for (uint32_t n = 0; n < g.nodes.size(); ++n) template_node[n] = static_cast<int32_t>(n);
  std::map<int32_t, std::vector<int32_t>> repeats;  // recorded rank -> ranks that repeat it
  const size_t n_nodes0 = g.nodes.size(), n_lanes0 = g.lanes.size(), n_edges0 = g.edges.size(), n_devs0 = g.devices.size();
  // (only recorded processes are templates: they all lie below these counts)
  for (int32_t r = 0; r < world; ++r) {
    if (proc_of.count(r)) continue;
    int32_t from = -1;
    for (int32_t d = 0; d < world && from < 0; ++d)
      if (proc_of_rank.count(((r - d) % world + world) % world)) from = ((r - d) % world + world) % world;
    const uint32_t pt = proc_of_rank[from];
    const auto np = static_cast<uint32_t>(g.processes.size());
    GraphProcess gp = g.processes[pt];
    gp.rank = r;
    gp.name += " (copy of rank " + std::to_string(from) + " as rank " + std::to_string(r) + ")";
    g.processes.push_back(std::move(gp));
    std::unordered_map<int32_t, int32_t> dev_map;
    for (size_t d = 0; d < n_devs0; ++d)
      if (g.devices[d].process == pt) {
        GraphDevice gd = g.devices[d];
        gd.process = np;
        dev_map[static_cast<int32_t>(d)] = static_cast<int32_t>(g.devices.size());
        g.devices.push_back(gd);
      }
    std::unordered_map<uint32_t, uint32_t> node_map, lane_map;  // template's -> the copy's
    std::vector<uint32_t> template_nodes, template_lanes;
    for (uint32_t n = 0; n < n_nodes0; ++n)
      if (g.nodes[n].process == pt) template_nodes.push_back(n);
    for (uint32_t l = 0; l < n_lanes0; ++l)
      if (g.lanes[l].process == pt) template_lanes.push_back(l);
    const auto node_base = static_cast<uint32_t>(g.nodes.size()), lane_base = static_cast<uint32_t>(g.lanes.size());
    for (size_t i = 0; i < template_nodes.size(); ++i) node_map[template_nodes[i]] = node_base + static_cast<uint32_t>(i);
    for (size_t i = 0; i < template_lanes.size(); ++i) lane_map[template_lanes[i]] = lane_base + static_cast<uint32_t>(i);
    for (uint32_t old : template_nodes) {
      Node node = g.nodes[old];
      node.process = np;
      node.lane = lane_map[node.lane];
      if (node.device >= 0) node.device = dev_map[node.device];
      node.group = -1;
      g.nodes.push_back(node);
      template_node.push_back(static_cast<int32_t>(old));
      ci_of_node.push_back(-1);
    }
    for (uint32_t old : template_lanes) {
      Lane lane = g.lanes[old];
      lane.process = np;
      if (lane.device >= 0) lane.device = dev_map[lane.device];
      for (uint32_t& n : lane.nodes) n = node_map[n];
      g.lanes.push_back(std::move(lane));
    }
    for (size_t e = 0; e < n_edges0; ++e) {
      const Edge& edge = g.edges[e];
      auto a = node_map.find(edge.from), b = node_map.find(edge.to);
      if (a == node_map.end() || b == node_map.end()) continue;
      Edge copy = edge;
      copy.from = a->second;
      copy.to = b->second;
      g.edges.push_back(copy);
    }
    for (Step& s : g.steps) {
      const size_t n = s.ranges.size();
      for (size_t i = 0; i < n; ++i)
        if (s.ranges[i].process == pt) {
          StepRange sr = s.ranges[i];
          sr.process = np;
          s.ranges.push_back(sr);
        }
    }
    proc_of[r] = np;
    template_rank[np] = from;
    repeats[from].push_back(r);
  }

  // 4. Topology GPU = rank (devices of one process in their order after it).
  {
    std::map<uint32_t, int32_t> next;
    int32_t per_rank = 1;
    std::map<uint32_t, int32_t> count;
    for (const GraphDevice& d : g.devices) per_rank = std::max(per_rank, ++count[d.process]);
    for (GraphDevice& d : g.devices) {
      const int32_t r = g.processes[d.process].rank;
      if (r < 0) continue;
      d.gpu = r * per_rank + next[d.process]++;
    }
  }

  // 5. Groups over the world.
  struct Pending {
    TimeNs start;
    uint32_t node;
  };
  std::map<std::pair<int32_t, int64_t>, std::vector<std::pair<int32_t, uint32_t>>> colls;  // (group id, seq)
  std::map<int32_t, std::vector<int32_t>> ranks_of_group;
  std::map<std::pair<int32_t, int32_t>, std::vector<Pending>> sends, recvs;  // (from, to) global ranks
  std::map<uint32_t, const CollectiveInfo*> info;
  size_t unmapped = 0;
  for (const auto& [r, p] : proc_of) {
    const int32_t from = template_rank[p];
    const RecordedWorld& w = *world_of[g.processes[p].trace_process];
    for (const Lane& lane : g.lanes) {
      if (lane.process != p) continue;
      for (uint32_t n : lane.nodes) {
        const int32_t tn = template_node[n];
        if (tn < 0 || ci_of_node[static_cast<size_t>(tn)] < 0) continue;
        const CollectiveInfo& ci = t.collectives[static_cast<size_t>(ci_of_node[static_cast<size_t>(tn)])];
        g.nodes[n].kind = NodeType::kCollective;
        const int32_t tgid = gid_of_node[static_cast<size_t>(tn)];
        const int32_t gid = map_group(tgid, from, r, world, w);
        const std::vector<int32_t>& ranks = gid >= 0 ? w.groups[static_cast<size_t>(gid)].ranks : std::vector<int32_t>{};
        const int32_t pos = position(ranks, r);
        if (ranks.empty() || pos < 0) {
          ++unmapped;
          continue;
        }
        info[n] = &ci;
        if (ci.op == CollectiveOp::kSend || ci.op == CollectiveOp::kRecv) {
          const int32_t tpos = position(w.groups[static_cast<size_t>(tgid)].ranks, from);
          const auto size = static_cast<int32_t>(ranks.size());
          const int32_t peer = ranks[static_cast<size_t>(((pos + ci.peer - tpos) % size + size) % size)];
          if (ci.op == CollectiveOp::kSend) sends[{r, peer}].push_back({g.nodes[n].start, n});
          else recvs[{peer, r}].push_back({g.nodes[n].start, n});
        } else {
          colls[{gid, ci.sequence}].push_back({pos, n});
          ranks_of_group.try_emplace(gid, ranks);
        }
      }
    }
  }
  auto gpu_of = [&](uint32_t n) { return g.nodes[n].device >= 0 ? g.devices[static_cast<size_t>(g.nodes[n].device)].gpu : -1; };
  auto alone = [&](uint32_t n, const std::string& why) {
    diag.unmatched.push_back({n, why});
    CommGroup grp;
    grp.spec.op = CollectiveOp::kSendRecv;
    grp.members = {n};
    grp.complete = false;
    grp.measured_only = true;
    g.nodes[n].group = static_cast<int32_t>(g.groups.size());
    g.groups.push_back(std::move(grp));
  };
  size_t incomplete = 0, twice = 0;
  for (auto& [key, members] : colls) {
    const std::vector<int32_t>& group_ranks = ranks_of_group[key.first];
    std::sort(members.begin(), members.end());
    const CollectiveInfo& ci = *info[members.front().second];
    CommGroup grp;
    grp.spec.op = ci.op == CollectiveOp::kBarrier ? CollectiveOp::kAllReduce : ci.op;
    grp.spec.bytes = ci.op == CollectiveOp::kBarrier ? 4.0 : collective_bytes(ci);
    grp.sequence = key.second;
    std::set<int32_t> seen;
    for (const auto& [pos, n] : members) {
      if (!seen.insert(pos).second) {  // the same call twice: the first takes part, the other runs alone
        ++twice;
        alone(n, "group " + ranks_text(group_ranks) + " call " + std::to_string(key.second) + " was recorded twice");
        continue;
      }
      grp.members.push_back(n);
      grp.spec.gpus.push_back(gpu_of(n));
    }
    grp.complete = grp.members.size() == group_ranks.size();
    grp.measured_only = group_ranks.size() < 2 || grp.spec.bytes <= 0;
    if (!grp.complete) {
      ++incomplete;
      for (uint32_t n : grp.members) diag.unmatched.push_back({n, "group " + ranks_text(group_ranks) + " call " + std::to_string(key.second) + " has only " + std::to_string(grp.members.size()) + " of its ranks"});
    }
    const auto gi = static_cast<int32_t>(g.groups.size());
    for (uint32_t n : grp.members) g.nodes[n].group = gi;
    if (grp.complete)
      for (size_t i = 1; i < grp.members.size(); ++i)
        g.edges.push_back(Edge{grp.members[0], grp.members[i], EdgeKind::kCollective, EdgeTiming::kStartToStart, 0, false});
    g.groups.push_back(std::move(grp));
  }
  auto by_start = [](std::vector<Pending>& v) {
    std::stable_sort(v.begin(), v.end(), [](const Pending& a, const Pending& b) { return a.start < b.start; });
  };
  size_t lonely = 0;
  for (auto& [pair, s] : sends) {
    std::vector<Pending>& rv = recvs[pair];
    by_start(s);
    by_start(rv);
    const size_t k = std::min(s.size(), rv.size());
    for (size_t i = 0; i < k; ++i) {
      CommGroup grp;
      grp.spec.op = CollectiveOp::kSendRecv;
      grp.spec.bytes = collective_bytes(*info[s[i].node]);
      grp.members = {s[i].node, rv[i].node};
      grp.spec.gpus = {gpu_of(s[i].node), gpu_of(rv[i].node)};
      grp.measured_only = grp.spec.bytes <= 0;
      const auto gi = static_cast<int32_t>(g.groups.size());
      for (uint32_t m : grp.members) g.nodes[m].group = gi;
      g.edges.push_back(Edge{s[i].node, rv[i].node, EdgeKind::kSendRecv, EdgeTiming::kStartToStart, 0, false});
      g.groups.push_back(std::move(grp));
    }
    for (size_t i = k; i < s.size(); ++i) alone(s[i].node, "send without a matching receive"), ++lonely;
    for (size_t i = k; i < rv.size(); ++i) alone(rv[i].node, "receive without a matching send"), ++lonely;
    rv.clear();
  }
  for (auto& [pair, rv] : recvs)
    for (const Pending& x : rv) alone(x.node, "receive without a matching send"), ++lonely;
  for (uint32_t n = 0; n < g.nodes.size(); ++n)
    if (info.count(n) == 0 && template_node[n] >= 0 && ci_of_node[static_cast<size_t>(template_node[n])] >= 0 && g.nodes[n].group < 0)
      alone(n, "its group could not be mapped to this rank");

  // 6. The counts, over every group now, and what was assumed.
  diag.groups = g.groups.size();
  diag.complete_groups = diag.group_members = 0;
  for (const CommGroup& grp : g.groups) {
    diag.complete_groups += grp.complete;
    diag.group_members += grp.members.size();
  }
  diag.matched_by_sequence += colls.size() - incomplete;
  for (const auto& [from, list] : repeats) {
    std::string ranks;
    for (size_t i = 0; i < list.size(); ++i) {
      size_t j = i;
      while (j + 1 < list.size() && list[j + 1] == list[j] + 1) ++j;
      ranks += (ranks.empty() ? "" : ", ") + std::to_string(list[i]) + (j > i ? "-" + std::to_string(list[j]) : "");
      i = j;
    }
    diag.warnings.push_back("world of " + std::to_string(world) + ": rank" + (list.size() > 1 ? "s " : " ") + ranks +
                            " not recorded; " + (list.size() > 1 ? "they repeat" : "it repeats") + " recorded rank " +
                            std::to_string(from) + " (its measured compute)");
  }
  diag.warnings.push_back("stand-in recording: communication was not measured; every collective is simulated on the chosen machine");
  if (unmapped) diag.warnings.push_back(std::to_string(unmapped) + " stand-in calls of copied ranks have no group to map to: they run alone");
  if (incomplete) diag.warnings.push_back(std::to_string(incomplete) + " stand-in collectives miss some of their ranks' calls: they replay without waiting for those");
  if (twice) diag.warnings.push_back(std::to_string(twice) + " stand-in collectives were recorded twice for one rank: the repeats run alone");
  if (lonely) diag.warnings.push_back(std::to_string(lonely) + " stand-in sends/receives have no partner: they run alone");
}

}  // namespace parascope::whatif
