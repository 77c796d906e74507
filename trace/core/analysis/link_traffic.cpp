#include "trace/core/analysis/link_traffic.h"

#include <algorithm>
#include <map>

#include "trace/core/analysis/collective_bandwidth.h"
#include "trace/core/analysis/collective_matcher.h"
#include "trace/core/classify.h"
#include "trace/core/saturating.h"

namespace parascope {

double LinkSeries::mean_active_utilization() const {
  if (capacity_bytes_per_s <= 0 || active_ns <= 0) return 0.0;
  return static_cast<double>(bytes) / (static_cast<double>(active_ns) * 1e-9) / capacity_bytes_per_s;
}

double LinkSeries::peak_utilization() const {
  return capacity_bytes_per_s > 0 ? peak_bytes_per_s / capacity_bytes_per_s : 0.0;
}

namespace {

struct Transfer {
  TimeNs start, end;
  uint64_t bytes;
};

std::string device_name(const Trace& t, uint16_t d) {
  if (d == kNoDevice || d >= t.devices.size()) return "fabric";
  const Device& dev = t.devices[d];
  std::string s;
  if (dev.process < t.processes.size() && t.processes[dev.process].rank >= 0)
    s = "rank " + std::to_string(t.processes[dev.process].rank) + " ";
  return s + "GPU " + std::to_string(dev.ordinal);
}

double topology_capacity(const Trace& t, uint16_t src, uint16_t dst) {
  if (!t.topology || src >= t.devices.size()) return 0;
  const Topology& topo = *t.topology;
  const int32_t a = topo.gpu_node(t.devices[src].topology_gpu);
  if (a < 0) return 0;
  auto link_bw = [&](int32_t x, int32_t y) {
    double bw = 0;
    for (const TopoLink& l : topo.links)
      if ((static_cast<int32_t>(l.a) == x && static_cast<int32_t>(l.b) == y) ||
          (static_cast<int32_t>(l.a) == y && static_cast<int32_t>(l.b) == x))
        bw += l.bandwidth_bytes_per_s;
    return bw;
  };
  if (dst == kNoDevice || dst >= t.devices.size()) {
    double sum = 0;
    for (const TopoLink& l : topo.links)
      if ((static_cast<int32_t>(l.a) == a || static_cast<int32_t>(l.b) == a) && l.medium == Medium::kNvLink)
        sum += l.bandwidth_bytes_per_s;
    return sum;
  }
  const int32_t b = topo.gpu_node(t.devices[dst].topology_gpu);
  if (b < 0) return 0;
  if (const double direct = link_bw(a, b); direct > 0) return direct;
  double best = 0;
  for (size_t s = 0; s < topo.nodes.size(); ++s) {
    const NodeKind k = topo.nodes[s].kind;
    if (k != NodeKind::kNvSwitch && k != NodeKind::kPcieSwitch) continue;
    best = std::max(best, std::min(link_bw(a, static_cast<int32_t>(s)), link_bw(b, static_cast<int32_t>(s))));
  }
  return best;
}

LinkSeries build_series(const Trace& t, uint16_t src, uint16_t dst, std::vector<Transfer>& transfers,
                        const LinkTrafficOptions& options) {
  LinkSeries s;
  s.link.src_device = src;
  s.link.dst_device = dst;
  s.link.direction = LinkDirection::kTx;
  s.link.medium = Medium::kNvLink;
  s.name = device_name(t, src) + " \xE2\x86\x92 " + device_name(t, dst);
  // rate changes: +bytes/dur at start, −bytes/dur at end; active count decides exact zeros
  struct Edge {
    TimeNs t;
    double rate;
    int active;
  };
  std::vector<Edge> edges;
  edges.reserve(transfers.size() * 2);
  for (const Transfer& x : transfers) {
    s.bytes += x.bytes;
    ++s.transfers;
    if (x.end <= x.start) continue;  // an instantaneous transfer carries bytes but no rate
    const double rate = static_cast<double>(x.bytes) / (static_cast<double>(x.end - x.start) * 1e-9);
    edges.push_back({x.start, rate, +1});
    edges.push_back({x.end, -rate, -1});
  }
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.t < b.t; });
  long double rate = 0;
  int active = 0;
  TimeNs active_since = 0;
  for (size_t i = 0; i < edges.size();) {
    const TimeNs now = edges[i].t;
    const int was_active = active;
    for (; i < edges.size() && edges[i].t == now; ++i) {
      rate += edges[i].rate;
      active += edges[i].active;
    }
    if (active == 0) rate = 0;
    if (was_active == 0 && active > 0) active_since = now;
    if (was_active > 0 && active == 0) s.active_ns = add_saturating(s.active_ns, now - active_since);
    const double v = static_cast<double>(std::max<long double>(rate, 0));
    if (!s.bytes_per_s.empty() && s.bytes_per_s.back() == v) continue;
    s.time.push_back(now);
    s.bytes_per_s.push_back(v);
    s.peak_bytes_per_s = std::max(s.peak_bytes_per_s, v);
  }
  s.capacity_bytes_per_s = options.capacity_bytes_per_s;
  if (s.capacity_bytes_per_s <= 0)
    for (const Link& l : t.links)
      if (l.src_device == src && l.dst_device == dst && l.direction == LinkDirection::kTx && l.capacity_bytes_per_s > 0)
        s.capacity_bytes_per_s = l.capacity_bytes_per_s;
  if (s.capacity_bytes_per_s <= 0) s.capacity_bytes_per_s = topology_capacity(t, src, dst);
  s.link.capacity_bytes_per_s = s.capacity_bytes_per_s;
  return s;
}

}  // namespace

LinkTraffic estimate_link_traffic(const Trace& trace, const LinkTrafficOptions& options) {
  LinkTraffic out;
  std::map<std::pair<uint16_t, uint16_t>, std::vector<Transfer>> by_link;
  if (options.peer_copies) {
    for (const Track& t : trace.tracks) {
      if (t.key.kind != TrackKind::kGpuStream) continue;
      for (size_t i = 0; i < t.slices.size(); ++i) {
        const SliceRef r = t.slices.ref[i];
        if (r.kind() != SliceKind::kMemcpy || !r.has_detail()) continue;
        const MemcpyInfo& m = trace.memcpys[r.index()];
        if (m.src_device == kNoDevice || m.dst_device == kNoDevice || m.src_device == m.dst_device) continue;
        by_link[{m.src_device, m.dst_device}].push_back({t.slices.start[i], t.slices.end(i), m.bytes.get()});
        ++out.peer_copies;
      }
    }
  }
  std::vector<uint8_t> annotated_kernel(trace.kernels.size(), 0);
  if (options.collectives) {
    const CollectiveMatch match = match_collectives(trace);
    std::vector<int32_t> peer_device(trace.collectives.size(), -1);
    for (const MatchedCollective& m : match.collectives) {
      if (!m.complete() || m.members.size() != 2) continue;
      peer_device[m.members[0].collective] = m.members[1].device;
      peer_device[m.members[1].collective] = m.members[0].device;
    }
    for (uint32_t ci = 0; ci < trace.collectives.size(); ++ci) {
      const CollectiveInfo& c = trace.collectives[ci];
      const EventRef k = c.kernel;
      if (!k.valid() || k.track >= trace.tracks.size() || k.index >= trace.tracks[k.track].slices.size()) continue;
      const Track& t = trace.tracks[k.track];
      const SliceRef r = t.slices.ref[k.index];
      if (r.kind() == SliceKind::kKernel && r.index() < annotated_kernel.size()) annotated_kernel[r.index()] = 1;
      if (t.key.device < 0) continue;
      const uint64_t bytes = collective_wire_bytes(trace, c);
      if (bytes == 0) {
        if (c.op != CollectiveOp::kRecv) ++out.unsized_collectives;
        continue;
      }
      const auto src = static_cast<uint16_t>(t.key.device);
      const uint16_t dst = peer_device[ci] >= 0 ? static_cast<uint16_t>(peer_device[ci]) : kNoDevice;
      by_link[{src, dst}].push_back({t.slices.start[k.index], t.slices.end(k.index), bytes});
      ++out.collectives;
    }
  }
  // communication kernels that no annotation sized: the estimate cannot include them
  const SliceClassifier classify(trace);
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    if (t.key.kind != TrackKind::kGpuStream) continue;
    for (uint32_t i = 0; i < t.slices.size(); ++i) {
      const SliceRef r = t.slices.ref[i];
      if (r.kind() != SliceKind::kKernel) continue;
      if (r.has_detail() && r.index() < annotated_kernel.size() && annotated_kernel[r.index()]) continue;
      if (classify.is_communication(ti, i)) ++out.unannotated_comm_kernels;
    }
  }
  for (auto& [key, transfers] : by_link) out.links.push_back(build_series(trace, key.first, key.second, transfers, options));
  return out;
}

size_t append_link_counter_tracks(Trace& trace, const LinkTraffic& traffic) {
  size_t added = 0;
  for (const LinkSeries& s : traffic.links) {
    uint32_t link_index = 0;
    bool found = false;
    for (size_t i = 0; i < trace.links.size() && !found; ++i) {
      const Link& l = trace.links[i];
      if (l.src_device == s.link.src_device && l.dst_device == s.link.dst_device && l.direction == s.link.direction &&
          l.medium == s.link.medium && l.port == s.link.port) {
        link_index = static_cast<uint32_t>(i);
        found = true;
      }
    }
    if (!found) {
      trace.links.push_back(s.link);
      link_index = static_cast<uint32_t>(trace.links.size() - 1);
    }
    const int32_t device = s.link.src_device < trace.devices.size() ? static_cast<int32_t>(s.link.src_device) : -1;
    const uint32_t process = device >= 0 ? trace.devices[static_cast<size_t>(device)].process : 0;
    TrackKey key{TrackKind::kLink, process, device, link_index};
    const bool taken = std::any_of(trace.tracks.begin(), trace.tracks.end(), [&](const Track& t) { return t.key == key; });
    if (taken) key = TrackKey{TrackKind::kCounter, process, device, static_cast<int64_t>(trace.strings.intern(s.name + " (estimated)"))};
    Track t;
    t.key = key;
    t.name = trace.strings.intern(s.name + " (estimated)");
    t.unit = trace.strings.intern("bytes/s");
    t.counter_source = CounterSource::kEstimated;
    t.counter.time = s.time;
    t.counter.value = s.bytes_per_s;
    trace.tracks.push_back(std::move(t));
    ++added;
  }
  return added;
}

}  // namespace parascope
