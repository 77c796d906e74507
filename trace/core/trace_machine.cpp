#include "trace/core/trace_machine.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

namespace parascope {

std::vector<int32_t> physical_gpus(const Trace& trace, size_t* count) {
  std::vector<std::pair<std::string, std::string>> keys(trace.devices.size());
  for (size_t d = 0; d < trace.devices.size(); ++d) {
    const Device& dev = trace.devices[d];
    const std::string host = dev.process < trace.processes.size() ? trace.processes[dev.process].host : "";
    std::string id;
    if (!dev.pci_bus_id.empty()) id = "pci " + dev.pci_bus_id;
    else if (!dev.uuid.empty()) id = "uuid " + dev.uuid;
    else {
      char buf[48];
      // without a host or bus id, one process's ordinal says nothing about another's GPU
      std::snprintf(buf, sizeof buf, "ordinal %06d process %06u", dev.ordinal, host.empty() ? dev.process : 0u);
      id = buf;
    }
    keys[d] = {host, id};
  }
  std::vector<std::pair<std::string, std::string>> unique = keys;
  std::sort(unique.begin(), unique.end());
  unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
  std::vector<int32_t> out(trace.devices.size());
  for (size_t d = 0; d < keys.size(); ++d)
    out[d] = static_cast<int32_t>(std::lower_bound(unique.begin(), unique.end(), keys[d]) - unique.begin());
  if (count) *count = unique.size();
  return out;
}

namespace {

int32_t link_between(const Topology& t, int32_t x, int32_t y, bool* a_to_b) {
  for (size_t i = 0; i < t.links.size(); ++i) {
    const auto a = static_cast<int32_t>(t.links[i].a), b = static_cast<int32_t>(t.links[i].b);
    if (a == x && b == y) {
      *a_to_b = true;
      return static_cast<int32_t>(i);
    }
    if (a == y && b == x) {
      *a_to_b = false;
      return static_cast<int32_t>(i);
    }
  }
  return -1;
}

bool is_switch(NodeKind k) { return k == NodeKind::kNvSwitch || k == NodeKind::kPcieSwitch || k == NodeKind::kNetworkSwitch; }

// The switch a GPU reaches over a link of `medium` (NVLink: an NVSwitch; PCIe: a PCIe switch).
int32_t fabric_of(const Topology& t, int32_t gpu, Medium medium) {
  for (const TopoLink& l : t.links) {
    if (l.medium != medium) continue;
    const auto a = static_cast<int32_t>(l.a), b = static_cast<int32_t>(l.b);
    const int32_t other = a == gpu ? b : b == gpu ? a : -1;
    if (other >= 0 && is_switch(t.nodes[static_cast<size_t>(other)].kind)) return other;
  }
  return -1;
}

int source_rank(CounterSource s) {
  switch (s) {
    case CounterSource::kMeasured: return 0;
    case CounterSource::kSimulated: return 1;
    case CounterSource::kEstimated: return 2;
  }
  return 3;
}

}  // namespace

TraceMachine trace_machine(const Trace& trace, const Topology* preset) {
  TraceMachine m;
  m.device_node.assign(trace.devices.size(), -1);
  if (preset || trace.topology) {
    m.topology = preset ? *preset : *trace.topology;
    m.origin = preset ? TraceMachine::Origin::kPreset : TraceMachine::Origin::kTrace;
    size_t gpus = 0;
    const std::vector<int32_t> phys = physical_gpus(trace, &gpus);
    for (size_t d = 0; d < trace.devices.size(); ++d) {
      const int32_t gi = !preset && trace.devices[d].topology_gpu >= 0 ? trace.devices[d].topology_gpu : phys[d];
      m.device_node[d] = m.topology.gpu_node(gi);
    }
    if (gpus > m.topology.gpu_count())
      m.notes.push_back("the trace has " + std::to_string(gpus) + " GPUs, the topology " + std::to_string(m.topology.gpu_count()) +
                        ": the others are not shown");
    return m;
  }
  // Inferred: a GPU node per physical GPU, grouped by host.
  m.origin = TraceMachine::Origin::kInferred;
  Topology& t = m.topology;
  t.name = "from the trace";
  t.description = "GPUs and NVLink counters the trace recorded";
  t.calibration = Calibration::kMeasured;
  size_t gpus = 0;
  const std::vector<int32_t> phys = physical_gpus(trace, &gpus);
  std::vector<std::string> hosts;
  std::vector<int32_t> gpu_node(gpus, -1);
  for (size_t d = 0; d < trace.devices.size(); ++d) {
    const auto g = static_cast<size_t>(phys[d]);
    if (gpu_node[g] >= 0) continue;
    const Device& dev = trace.devices[d];
    const std::string host = dev.process < trace.processes.size() ? trace.processes[dev.process].host : "";
    auto hit = std::find(hosts.begin(), hosts.end(), host);
    if (hit == hosts.end()) hit = hosts.insert(hosts.end(), host);
    TopoNode n;
    n.kind = NodeKind::kGpu;
    n.host = static_cast<int32_t>(hit - hosts.begin());
    n.gpu_index = static_cast<int32_t>(g);
    n.name = "gpu" + std::to_string(g);
    GpuSpec spec;
    spec.model = dev.name;
    spec.sm_count = dev.sm_count;
    spec.memory_bytes = dev.memory_bytes;
    n.gpu = spec;
    gpu_node[g] = static_cast<int32_t>(t.nodes.size());
    t.nodes.push_back(std::move(n));
  }
  for (size_t d = 0; d < trace.devices.size(); ++d) m.device_node[d] = gpu_node[static_cast<size_t>(phys[d])];
  // GPU ↔ fabric: one switch per (host, medium)
  std::map<std::pair<int32_t, Medium>, int32_t> fabric;
  std::set<std::pair<int32_t, int32_t>> joined;
  for (const Link& l : trace.links) {
    if (l.src_device >= trace.devices.size() || l.dst_device != kNoDevice) continue;
    const int32_t g = m.device_node[l.src_device];
    const int32_t host = t.nodes[static_cast<size_t>(g)].host;
    auto [it, fresh] = fabric.try_emplace({host, l.medium}, static_cast<int32_t>(t.nodes.size()));
    if (fresh) {
      TopoNode sw;
      sw.kind = l.medium == Medium::kPcie ? NodeKind::kPcieSwitch : NodeKind::kNvSwitch;
      sw.host = host;
      sw.name = std::string(l.medium == Medium::kPcie ? "pcie_switch" : "nvswitch") + (hosts.size() > 1 ? std::to_string(host) : "");
      sw.sw = SwitchSpec{};
      t.nodes.push_back(std::move(sw));
    }
    if (!joined.insert({g, it->second}).second) continue;
    TopoLink tl;
    tl.a = static_cast<uint32_t>(g);
    tl.b = static_cast<uint32_t>(it->second);
    tl.medium = l.medium;
    tl.bandwidth_bytes_per_s = l.capacity_bytes_per_s;
    t.links.push_back(tl);
  }
  // device pairs: direct links, unless both GPUs reach one switch of that medium (then it is a path)
  for (const Link& l : trace.links) {
    if (l.src_device >= trace.devices.size() || l.dst_device >= trace.devices.size()) continue;
    const int32_t a = m.device_node[l.src_device], b = m.device_node[l.dst_device];
    if (a == b) continue;
    const int32_t fa = fabric_of(t, a, l.medium), fb = fabric_of(t, b, l.medium);
    if (fa >= 0 && fa == fb) continue;
    if (!joined.insert({std::min(a, b), std::max(a, b)}).second) continue;
    TopoLink tl;
    tl.a = static_cast<uint32_t>(std::min(a, b));
    tl.b = static_cast<uint32_t>(std::max(a, b));
    tl.medium = l.medium;
    tl.bandwidth_bytes_per_s = l.capacity_bytes_per_s;
    t.links.push_back(tl);
  }
  return m;
}

std::vector<LinkHop> place_counter(const TraceMachine& m, const LinkCounter& c) {
  const Topology& t = m.topology;
  const Link& l = c.link;
  auto node_of = [&](uint16_t d) { return d < m.device_node.size() ? m.device_node[d] : -1; };
  const bool tx = l.direction == LinkDirection::kTx;
  if (m.origin == TraceMachine::Origin::kTrace && l.port >= 0 && static_cast<size_t>(l.port) < t.links.size()) {
    const TopoLink& tl = t.links[static_cast<size_t>(l.port)];
    const int32_t g = node_of(l.src_device);
    if (g < 0) return {};
    // tx leaves src's node; the link's a end is src's node or the other end
    const bool src_is_a = static_cast<int32_t>(tl.a) == g;
    return {{l.port, src_is_a == tx}};
  }
  const int32_t src = node_of(l.src_device);
  if (src < 0) return {};
  const int32_t other = l.dst_device == kNoDevice ? fabric_of(t, src, l.medium) : node_of(l.dst_device);
  if (other < 0 || other == src) return {};
  const int32_t from = tx ? src : other, to = tx ? other : src;
  bool a_to_b = true;
  if (const int32_t direct = link_between(t, from, to, &a_to_b); direct >= 0) return {{direct, a_to_b}};
  for (size_t s = 0; s < t.nodes.size(); ++s) {
    if (!is_switch(t.nodes[s].kind)) continue;
    bool d1 = true, d2 = true;
    const int32_t l1 = link_between(t, from, static_cast<int32_t>(s), &d1);
    const int32_t l2 = l1 >= 0 ? link_between(t, static_cast<int32_t>(s), to, &d2) : -1;
    if (l1 >= 0 && l2 >= 0) return {{l1, d1}, {l2, d2}};
  }
  return {};
}

double TopoLinkLoad::mean_utilization() const {
  if (capacity_bytes_per_s <= 0) return 0;
  return std::max(a_to_b.mean_bytes_per_s, b_to_a.mean_bytes_per_s) / capacity_bytes_per_s;
}

double TopoLinkLoad::peak_utilization() const {
  if (capacity_bytes_per_s <= 0) return 0;
  return std::max(a_to_b.peak_bytes_per_s, b_to_a.peak_bytes_per_s) / capacity_bytes_per_s;
}

LinkCapacity link_capacity(const TraceMachine& m, size_t link) {
  LinkCapacity c;
  if (link >= m.topology.links.size() || !(m.topology.links[link].bandwidth_bytes_per_s > 0)) return c;
  c.bytes_per_s = m.topology.links[link].bandwidth_bytes_per_s;
  const std::string cal(to_string(m.topology.calibration));
  switch (m.origin) {
    case TraceMachine::Origin::kPreset: c.source = "machine " + m.topology.name + " (" + cal + ")"; break;
    case TraceMachine::Origin::kTrace: c.source = "the trace's topology " + m.topology.name + " (" + cal + ")"; break;
    case TraceMachine::Origin::kInferred: c.source = "the trace's link record"; break;
  }
  return c;
}

std::vector<LinkCapacity> counter_capacities(const TraceMachine& m, const std::vector<LinkCounter>& counters) {
  std::vector<LinkCapacity> out;
  out.reserve(counters.size());
  for (const LinkCounter& c : counters) {
    LinkCapacity best;
    for (const LinkHop& h : place_counter(m, c)) {
      const LinkCapacity hop = link_capacity(m, static_cast<size_t>(h.link));
      if (hop.bytes_per_s > 0 && (best.bytes_per_s <= 0 || hop.bytes_per_s < best.bytes_per_s)) best = hop;
    }
    if (best.bytes_per_s <= 0 && c.link.capacity_bytes_per_s > 0) best = {c.link.capacity_bytes_per_s, "the trace's link record"};
    out.push_back(std::move(best));
  }
  return out;
}

std::vector<TopoLinkLoad> topology_link_loads(const TraceMachine& m, const std::vector<LinkCounter>& counters, Interval window) {
  std::vector<TopoLinkLoad> out(m.topology.links.size());
  for (size_t i = 0; i < out.size(); ++i) {
    const LinkCapacity c = link_capacity(m, i);
    out[i].capacity_bytes_per_s = c.bytes_per_s;
    out[i].capacity_source = c.source;
  }
  for (size_t ci = 0; ci < counters.size(); ++ci) {
    const std::vector<LinkHop> hops = place_counter(m, counters[ci]);
    if (hops.empty()) continue;
    const CounterStats s = counter_stats(counters[ci].time, counters[ci].bytes_per_s, window);
    for (const LinkHop& h : hops) {
      LinkDirectionLoad& d = h.a_to_b ? out[static_cast<size_t>(h.link)].a_to_b : out[static_cast<size_t>(h.link)].b_to_a;
      const CounterSource src = counters[ci].source;
      if (d.has_data && source_rank(src) > source_rank(d.source)) continue;
      if (d.has_data && source_rank(src) < source_rank(d.source)) d = {};
      d.has_data = true;
      d.source = src;
      d.mean_bytes_per_s += s.mean;
      d.peak_bytes_per_s += s.peak;
      d.counters.push_back(ci);
    }
  }
  return out;
}

DataTable topology_link_table(const TraceMachine& m, const std::vector<TopoLinkLoad>& loads) {
  DataTable t;
  t.id = "topology_links";
  t.title = "Link utilization by topology link";
  t.note = "each link direction of machine '" + m.topology.name + "', from the counters that cross it (measured before simulated before estimated)";
  t.column("from").column("to").column("medium").column("capacity", "bytes/s", true).column("capacity from").column("source")
      .column("mean", "bytes/s", true).column("peak", "bytes/s", true).column("mean util", "fraction", true)
      .column("peak util", "fraction", true);
  for (size_t i = 0; i < loads.size() && i < m.topology.links.size(); ++i) {
    const TopoLink& l = m.topology.links[i];
    for (int dir = 0; dir < 2; ++dir) {
      const LinkDirectionLoad& d = dir == 0 ? loads[i].a_to_b : loads[i].b_to_a;
      if (!d.has_data) continue;
      const std::string& from = m.topology.nodes[dir == 0 ? l.a : l.b].name;
      const std::string& to = m.topology.nodes[dir == 0 ? l.b : l.a].name;
      const double cap = loads[i].capacity_bytes_per_s;
      t.add_row({text_cell(from), text_cell(to), text_cell(medium_label(l.medium)), cap > 0 ? rate_cell(cap) : text_cell("?"),
                 text_cell(cap > 0 ? loads[i].capacity_source : "unknown"), text_cell(std::string(to_string(d.source))), rate_cell(d.mean_bytes_per_s), rate_cell(d.peak_bytes_per_s),
                 cap > 0 ? percent_cell(d.mean_bytes_per_s / cap) : text_cell("?"),
                 cap > 0 ? percent_cell(d.peak_bytes_per_s / cap) : text_cell("?")});
    }
  }
  return t;
}

}  // namespace parascope
