#include "sim/whatif/predicted_trace.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "sim/whatif/step_range.h"
#include "trace/core/trace_builder.h"

namespace parascope::whatif {

std::vector<LinkLoad> link_loads(const DepGraph& g, const ReplayResult& r,
                                 const std::vector<std::shared_ptr<const CommTiming>>& timings) {
  std::map<uint32_t, std::vector<std::pair<TimeNs, double>>> deltas;  // resource -> (time, +/- rate)
  std::map<uint32_t, double> totals;
  for (size_t gi = 0; gi < g.groups.size() && gi < timings.size(); ++gi) {
    if (!timings[gi] || r.group_start[gi] < 0 || r.group_end[gi] <= r.group_start[gi]) continue;
    const TimeNs t0 = r.group_start[gi], t1 = r.group_end[gi];
    const double seconds = static_cast<double>(t1 - t0) * 1e-9;
    for (const auto& [res, bytes] : timings[gi]->resource_bytes) {
      deltas[res].push_back({t0, bytes / seconds});
      deltas[res].push_back({t1, -bytes / seconds});
      totals[res] += bytes;
    }
  }
  std::vector<LinkLoad> out;
  for (auto& [res, d] : deltas) {
    std::sort(d.begin(), d.end());
    LinkLoad l;
    l.resource = res;
    l.bytes = totals[res];
    double level = 0;
    for (size_t i = 0; i < d.size(); ++i) {
      level += d[i].second;
      if (i + 1 < d.size() && d[i + 1].first == d[i].first) continue;
      const double v = std::abs(level) < 1e-3 ? 0.0 : level;
      l.time.push_back(d[i].first);
      l.bytes_per_s.push_back(v);
      l.peak_bytes_per_s = std::max(l.peak_bytes_per_s, v);
    }
    out.push_back(std::move(l));
  }
  return out;
}

Trace predicted_trace(const Trace* measured, const DepGraph& g, const ReplayResult& r, const sim::Platform& platform,
                      const std::vector<LinkLoad>& loads, const std::vector<std::string>& notes) {
  TraceBuilder b;
  const Topology& topo = platform.topology();
  b.trace().topology = topo;
  b.trace().source_format = "whatif";
  b.trace().source_files.push_back("what-if replay on " + topo.name);
  for (const std::string& n : notes) b.warn(n);

  std::vector<uint32_t> proc(g.processes.size()), dev(g.devices.size());
  for (size_t p = 0; p < g.processes.size(); ++p) {
    const GraphProcess& gp = g.processes[p];
    Process out;
    const bool known = measured && gp.trace_process < measured->processes.size() && gp.name.find("(copy ") == std::string::npos;
    if (known) out = measured->processes[gp.trace_process];
    out.rank = gp.rank;
    out.name = gp.name + " (what-if)";
    out.source = "whatif";
    out.clock_offset_ns = 0;
    out.clock_offset_reason = "replay (trace clock)";
    proc[p] = b.add_process(out);
  }
  for (size_t d = 0; d < g.devices.size(); ++d) {
    const GraphDevice& gd = g.devices[d];
    Device out;
    if (measured && gd.trace_device < measured->devices.size()) out = measured->devices[gd.trace_device];
    out.process = proc[gd.process];
    out.topology_gpu = gd.gpu;
    if (out.sm_count == 0 && static_cast<size_t>(gd.gpu) < platform.gpu_count()) out.sm_count = platform.gpu(gd.gpu).sm_count;
    dev[d] = b.add_device(out);
  }
  std::vector<uint32_t> track_of_lane(g.lanes.size());
  for (size_t l = 0; l < g.lanes.size(); ++l) {
    const Lane& lane = g.lanes[l];
    const bool stream = lane.kind == LaneKind::kStream;
    const TrackKey key{stream ? TrackKind::kGpuStream : TrackKind::kCpuThread, proc[lane.process],
                       stream ? static_cast<int32_t>(dev[static_cast<size_t>(lane.device)]) : -1, lane.id};
    track_of_lane[l] = b.track(key, !lane.name.empty() ? lane.name : (stream ? "stream " : "thread ") + std::to_string(lane.id));
    b.trace().tracks[track_of_lane[l]].simulated = true;
  }
  const StringId k_measured = b.intern("measured ns");
  std::vector<EventRef> ref_of(g.nodes.size());
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const Node& node = g.nodes[n];
    if (node.removed || r.start[n] < 0 || r.end[n] < r.start[n]) continue;
    SliceRef ref;
    switch (node.kind) {
      case NodeType::kHostCall: ref = b.add_api_call(ApiInfo{static_cast<uint32_t>(n + 1), 0, 0}); break;
      case NodeType::kCopy:
      case NodeType::kPeerCopy: {
        MemcpyInfo m;
        if (measured && node.source.valid()) {
          const SliceRef src = measured->tracks[node.source.track].slices.ref[node.source.index];
          if (src.kind() == SliceKind::kMemcpy) m = measured->memcpys[src.index()];
        }
        m.correlation = static_cast<uint32_t>(n + 1);
        auto remap = [&](uint16_t d) -> uint16_t {
          for (size_t i = 0; i < g.devices.size(); ++i)
            if (g.devices[i].trace_device == d && g.devices[i].process == node.process) return static_cast<uint16_t>(dev[i]);
          for (size_t i = 0; i < g.devices.size(); ++i)
            if (g.devices[i].trace_device == d) return static_cast<uint16_t>(dev[i]);
          return kNoDevice;
        };
        if (m.src_device != kNoDevice) m.src_device = remap(m.src_device);
        if (m.dst_device != kNoDevice) m.dst_device = remap(m.dst_device);
        ref = b.add_memcpy(m);
        break;
      }
      case NodeType::kMemset: ref = b.add_memset(MemsetInfo{}); break;
      default: {
        KernelInfo k;
        k.correlation = static_cast<uint32_t>(n + 1);
        ref = b.add_kernel(k);
      }
    }
    const Arg arg{k_measured, ArgValue::of_int(node.dur)};
    ref_of[n] = b.add_slice(track_of_lane[node.lane], r.start[n], r.end[n] - r.start[n], b.intern(g.names[node.name]), ref,
                            node.source.valid() ? std::span<const Arg>(&arg, 1) : std::span<const Arg>());
  }
  // Step ranges (ProfilerStep#N, --step matches) at their replayed place, so the prediction pairs
  // with its measurement by step (trace_diff.h): the measured range shifted by how far its first
  // and last host calls moved (as run_whatif's step times; step_range.h), on the first call's thread.
  // The host calls of each (step, process), in node order: one pass over the nodes (a pass per
  // range made every predicted trace quadratic in the graph).
  const size_t n_procs = g.processes.size();
  std::vector<std::vector<uint32_t>> host_of(g.steps.size() * n_procs);
  for (uint32_t n = 0; n < g.nodes.size(); ++n) {
    const Node& node = g.nodes[n];
    if (!node.removed && node.kind == NodeType::kHostCall && node.step >= 0 && static_cast<size_t>(node.step) < g.steps.size() &&
        node.process < n_procs && ref_of[n].valid())
      host_of[static_cast<size_t>(node.step) * n_procs + node.process].push_back(n);
  }
  static const std::vector<uint32_t> kNoHost;
  for (size_t s = 0; s < g.steps.size(); ++s) {
    for (const StepRange& range : g.steps[s].ranges) {
      const std::vector<uint32_t>& host = range.process < n_procs ? host_of[s * n_procs + range.process] : kNoHost;
      const std::optional<StepAnchors> a = step_anchors(g, range, host);
      if (!a) continue;
      const ReplayedRange moved = replayed_range(g, r, range, *a);
      const TimeNs rs = std::min(moved.start, r.start[a->first]);
      const TimeNs re = std::max(moved.end, r.end[a->last]);
      b.add_slice(track_of_lane[g.nodes[a->first].lane], rs, std::max<TimeNs>(0, re - rs), b.intern(g.steps[s].name),
                  b.add_cpu_op(CpuOpInfo{}));
    }
  }
  const StringId dtype = b.intern("Byte");  // Kineto's 1-byte element: sizes survive a JSON round trip
  for (size_t gi = 0; gi < g.groups.size(); ++gi) {
    const CommGroup& grp = g.groups[gi];
    if (grp.spec.op == CollectiveOp::kUnknown) continue;
    const auto n = static_cast<int32_t>(grp.members.size());
    std::string ranks = "[";
    for (size_t i = 0; i < grp.members.size(); ++i)
      ranks += (i ? ", " : "") + std::to_string(g.processes[g.nodes[grp.members[i]].process].rank);
    ranks += "]";
    const StringId group_name = b.intern("whatif group " + std::to_string(gi));
    const StringId group_ranks = b.intern(ranks);
    for (uint32_t m : grp.members) {
      if (!ref_of[m].valid()) continue;
      CollectiveInfo c;
      c.op = grp.spec.op;
      c.dtype = dtype;
      c.dtype_bytes = grp.measured_only ? 0 : 1;
      const auto bytes = static_cast<uint64_t>(std::llround(grp.spec.bytes));
      c.in_elements = bytes;
      c.out_elements = bytes;
      if (grp.spec.op == CollectiveOp::kAllGather) c.out_elements = bytes * static_cast<uint64_t>(n);
      if (grp.spec.op == CollectiveOp::kReduceScatter && n > 0) c.out_elements = bytes / static_cast<uint64_t>(n);
      c.group = group_name;
      c.group_ranks = group_ranks;
      c.group_size = n;
      c.sequence = static_cast<int64_t>(gi);
      c.rank = g.processes[g.nodes[m].process].rank;
      c.kernel = ref_of[m];
      c.channels = static_cast<uint16_t>(std::min<uint32_t>(grp.spec.channels, 65535));
      b.add_collective(c);
    }
  }
  for (const Edge& e : g.edges) {
    if (!ref_of[e.from].valid() || !ref_of[e.to].valid()) continue;
    switch (e.kind) {
      case EdgeKind::kLaunch:
      case EdgeKind::kGraphLaunch: b.add_flow(ref_of[e.from], ref_of[e.to], FlowKind::kLaunch); break;
      case EdgeKind::kEventWait:
      case EdgeKind::kJoin: b.add_flow(ref_of[e.from], ref_of[e.to], FlowKind::kDependency); break;
      case EdgeKind::kSendRecv: b.add_flow(ref_of[e.from], ref_of[e.to], FlowKind::kSendRecv); break;
      default: break;
    }
  }
  // Link counters, seen from the GPU end of each link (tx: leaving the GPU).
  const StringId unit = b.intern("bytes/s");
  std::map<int32_t, size_t> dev_of_gpu;
  for (size_t d = 0; d < g.devices.size(); ++d) dev_of_gpu.emplace(g.devices[d].gpu, d);
  for (const LinkLoad& load : loads) {
    const sim::PlatformResource& res = platform.resources()[load.resource];
    if (res.kind != sim::ResourceKind::kLink) continue;
    const TopoLink& l = topo.links[static_cast<size_t>(res.link)];
    const TopoNode& a = topo.nodes[l.a];
    const TopoNode& bn = topo.nodes[l.b];
    const TopoNode* gpu_end = a.kind == parascope::NodeKind::kGpu ? &a : bn.kind == parascope::NodeKind::kGpu ? &bn : nullptr;
    if (!gpu_end || !dev_of_gpu.count(gpu_end->gpu_index)) continue;
    const size_t d = dev_of_gpu[gpu_end->gpu_index];
    const TopoNode& other = gpu_end == &a ? bn : a;
    Link link;
    link.src_device = static_cast<uint16_t>(dev[d]);
    link.dst_device = other.kind == parascope::NodeKind::kGpu && dev_of_gpu.count(other.gpu_index)
                          ? static_cast<uint16_t>(dev[dev_of_gpu[other.gpu_index]])
                          : kNoDevice;
    link.direction = (gpu_end == &a) == res.forward ? LinkDirection::kTx : LinkDirection::kRx;
    link.medium = l.medium;
    link.port = res.link;
    link.capacity_bytes_per_s = res.capacity;
    const uint32_t li = b.add_link(link);
    const uint32_t track = b.track({TrackKind::kLink, proc[g.devices[d].process], static_cast<int32_t>(dev[d]), li}, res.name);
    Track& t = b.trace().tracks[track];
    t.simulated = true;
    t.counter_source = CounterSource::kSimulated;
    t.unit = unit;
    for (size_t i = 0; i < load.time.size(); ++i) b.add_counter_sample(track, load.time[i], load.bytes_per_s[i]);
  }
  return b.finish();
}

}  // namespace parascope::whatif
