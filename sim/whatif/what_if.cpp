#include "sim/whatif/what_if.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "sim/knobs.h"
#include "sim/platform.h"
#include "sim/whatif/machine.h"
#include "sim/whatif/step_exposure.h"
#include "sim/whatif/transforms.h"
#include "trace/core/analysis/exposed_communication.h"

namespace parascope::whatif {

namespace {

// Knobs that change how a collective is simulated: comm_select restricts them.
constexpr const char* kCommKnobs[] = {"channels",  "num_comm_sms", "chunk_bytes", "window",       "granularity",
                                      "mechanism", "algorithm",    "protocol",    "threads_per_channel",
                                      "ll_max_bytes", "ll128_max_bytes"};

bool is_comm_knob(const std::string& k) {
  for (const char* c : kCommKnobs)
    if (k == c) return true;
  return false;
}

std::string platform_key(const Topology& t, const sim::PlatformOptions& po) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "|lbs=%.17g|hbm=%d", po.link_bandwidth_scale, po.hbm ? 1 : 0);
  return t.name + "#" + std::to_string(t.gpu_count()) + "#" + std::to_string(t.links.size()) + buf;
}

std::string kind_name(NodeType k) { return std::string(to_string(k)); }

// Per (step, process): the host nodes and GPU nodes of the step.
struct StepNodes {
  std::vector<uint32_t> host, gpu;
};

}  // namespace

WhatIfOutput run_whatif(const WhatIfInput& in) {
  if (!in.graph) throw std::invalid_argument("run_whatif: no graph");
  WhatIfOutput out;
  WhatIfSummary& sum = out.summary;
  sim::KnobSettings knobs, base_knobs;
  for (const auto& [k, v] : in.overrides) knobs.set(k, v);
  for (const auto& [k, v] : knobs.values())
    if (!is_comm_knob(k)) base_knobs.set(k, sim::knob_registry().format(*sim::knob_registry().find(k), v));
  const CommSelector sel = CommSelector::from_knob(knobs.get_enum("comm_select"));
  auto cache = in.cache ? in.cache : std::make_shared<CommCache>();

  out.graph = *in.graph;
  DepGraph& g = out.graph;
  const int32_t gpu0 = in.topology.gpu_node(0);
  const double topo_interference = gpu0 >= 0 && in.topology.nodes[static_cast<size_t>(gpu0)].gpu
                                       ? in.topology.nodes[static_cast<size_t>(gpu0)].gpu->comm_interference
                                       : 0.0;
  const double ci = knobs.get_double("comm_interference") >= 0 ? knobs.get_double("comm_interference") : topo_interference;
  if (static_cast<int32_t>(in.topology.gpu_count()) < g.gpu_count() && knobs.get_int("scale_gpus") == 0 &&
      knobs.get_enum("fabric") == "trace")
    throw std::invalid_argument("topology " + in.topology.name + " has " + std::to_string(in.topology.gpu_count()) +
                                " GPUs but the trace uses " + std::to_string(g.gpu_count()));

  if (in.cancel && in.cancel->load(std::memory_order_relaxed)) throw Cancelled();
  // 1. Compute work at full speed: take out the interference the measurement contains, with the
  // SMs the traced collectives held (the model's answer for the trace's own settings).
  {
    const Topology traced_machine = machine_for(in.topology, g.gpu_count(), Fabric::kTrace, 8);
    const sim::PlatformOptions po;
    const sim::Platform platform = sim::Platform::seal(traced_machine, po);
    const sim::KnobSettings defaults;
    CommModel model(platform, platform_key(traced_machine, po), defaults, cache);
    std::vector<uint32_t> held(g.devices.size(), 0);
    std::vector<TimeNs> alone(g.groups.size(), 0);  // the model's duration of each traced group on its own
    const auto default_channels = static_cast<uint32_t>(defaults.get_int("channels"));
    for (size_t gi = 0; gi < g.groups.size(); ++gi) {
      const CommGroup& grp = g.groups[gi];
      uint32_t sms = grp.spec.channels ? grp.spec.channels : default_channels;
      if (!grp.measured_only) {
        const auto t = model.timing(grp.spec);
        if (t->error.empty()) {
          if (!grp.spec.channels) sms = t->sms;
          alone[gi] = t->duration;
        }
      }
      for (uint32_t m : grp.members) held[static_cast<size_t>(g.nodes[m].device)] = std::max(held[static_cast<size_t>(g.nodes[m].device)], sms);
    }
    for (Node& n : g.nodes) {
      if (n.kind != NodeType::kCompute || n.comm_overlap <= 0) continue;
      const GraphDevice& d = g.devices[static_cast<size_t>(n.device)];
      const double total = d.sm_count ? d.sm_count : 132;
      const double h = std::min<double>(held[static_cast<size_t>(n.device)], total - 1);
      n.work = deinterfered_work(n.dur, n.comm_overlap, (total - h) / total / (1.0 + ci));
    }
    // Communication beside compute: what the measurement shows, unless the knob says otherwise.
    sum.comm_slowdown = knobs.get_double("comm_slowdown") >= 0 ? knobs.get_double("comm_slowdown") : measured_comm_slowdown(g, alone);
  }

  if (in.cancel && in.cancel->load(std::memory_order_relaxed)) throw Cancelled();
  // 2. Transforms, in a fixed order.
  auto note = [&](std::string s) {
    if (!s.empty()) sum.changes.push_back(std::move(s));
  };
  const std::string stream = knobs.get_enum("comm_stream");
  if (stream == "side") note(move_collectives_to_side_stream(g, sel));
  else if (stream == "serial") note(serialize_collectives(g, sel));
  note(merge_collectives(g, sel, static_cast<int>(knobs.get_int("comm_merge"))));
  note(split_collectives(g, sel, static_cast<int>(knobs.get_int("comm_split"))));
  const std::string fuse = knobs.get_enum("fuse");
  if (fuse != "none") {
    const double flops = gpu0 >= 0 && in.topology.nodes[static_cast<size_t>(gpu0)].gpu ? in.topology.nodes[static_cast<size_t>(gpu0)].gpu->bf16_flops : 0;
    if (!(flops > 0)) sum.warnings.push_back("fuse: topology " + in.topology.name + " has no bf16_TFLOPs; nothing fused");
    note(fuse_gemm_collectives(g, fuse == "ag_gemm" || fuse == "both", fuse == "gemm_rs" || fuse == "both", flops,
                               static_cast<int>(knobs.get_int("dtype_bytes"))));
  }
  if (knobs.is_set("compute_scale"))
    note(scale_kernels(g, kernel_class_from_knob(knobs.get_enum("kernel_class")), knobs.get_double("compute_scale")));
  note(scale_out(g, static_cast<int>(knobs.get_int("scale_gpus")), parallelism_from_knob(knobs.get_enum("parallelism"))));
  if (!sum.changes.empty()) break_cycles(g);
  count_edges(g);

  // 3. The machine.
  const Fabric fabric = fabric_from_knob(knobs.get_enum("fabric"));
  const Topology topo = machine_for(in.topology, g.gpu_count(), fabric, static_cast<int>(knobs.get_int("gpus_per_node")));
  if (fabric != Fabric::kTrace || topo.name != in.topology.name) note("machine: " + topo.description);
  sim::PlatformOptions po;
  po.link_bandwidth_scale = knobs.get_double("link_bandwidth_scale");
  po.hbm = knobs.get_bool("hbm");
  const sim::Platform platform = sim::Platform::seal(topo, po);
  const std::string key = platform_key(topo, po);
  CommModel selected(platform, key, knobs, cache), others(platform, key, base_knobs, cache);
  sum.topology = topo.name;
  sum.calibration = std::string(to_string(topo.calibration));

  // 4. What each group's transfer takes.
  std::vector<GroupWork> work(g.groups.size());
  std::vector<std::shared_ptr<const CommTiming>> timings(g.groups.size());
  size_t failed = 0;
  std::string failure;
  for (size_t gi = 0; gi < g.groups.size(); ++gi) {
    if (in.cancel && in.cancel->load(std::memory_order_relaxed)) throw Cancelled();
    const CommGroup& grp = g.groups[gi];
    TimeNs measured = INT64_MAX;
    for (uint32_t m : grp.members)
      if (!g.nodes[m].removed) measured = std::min(measured, g.nodes[m].work);
    if (measured == INT64_MAX) continue;
    work[gi].sms = grp.spec.channels ? grp.spec.channels : static_cast<uint32_t>(sim::KnobSettings().get_int("channels"));
    if (grp.measured_only) {
      work[gi].duration = grp.complete ? measured : -1;
      continue;
    }
    auto t = (sel.matches(grp) ? selected : others).timing(grp.spec);
    if (!t->error.empty()) {
      if (!failed++) failure = t->error;
      work[gi].duration = grp.complete ? measured : -1;
      continue;
    }
    timings[gi] = t;
    work[gi].duration = t->duration;
    // SMs held: the traced kernel's CTAs (one per NCCL channel) unless the knobs change them.
    const sim::KnobSettings& k = sel.matches(grp) ? knobs : base_knobs;
    const bool retuned = k.is_set("channels") || k.is_set("num_comm_sms");
    work[gi].sms = !retuned && grp.spec.channels > 0 && grp.spec.gemm_m == 0 ? grp.spec.channels : t->sms;
  }
  if (failed)
    sum.warnings.push_back(std::to_string(failed) + " collectives could not be simulated (first: " + failure +
                           "): their measured durations are used");
  sum.simulations = selected.simulations() + others.simulations();

  if (in.cancel && in.cancel->load(std::memory_order_relaxed)) throw Cancelled();
  // 5. Replay.
  ReplayConfig rc;
  rc.comm_interference = ci;
  rc.comm_slowdown = sum.comm_slowdown;
  rc.cpu_scale = knobs.get_double("cpu_scale");
  for (size_t gi = 0; gi < platform.gpu_count(); ++gi) rc.gpu_sms.push_back(platform.gpu(static_cast<int32_t>(gi)).sm_count);
  out.replay = replay(g, work, rc);
  const ReplayResult& r = out.replay;
  sum.replay_events = r.events;
  sum.span_ns = r.last - r.first;
  for (const std::string& w : r.warnings) sum.warnings.push_back(w);

  // 6. Steps: per (step, process), the host range shifted by how far its first and last host
  // calls moved; the GPU span directly.
  std::map<std::pair<int32_t, uint32_t>, StepNodes> by_step;
  for (uint32_t n = 0; n < g.nodes.size(); ++n) {
    const Node& node = g.nodes[n];
    if (node.removed || node.step < 0 || r.end[n] < 0) continue;
    auto& sn = by_step[{node.step, node.process}];
    (node.kind == NodeType::kHostCall ? sn.host : sn.gpu).push_back(n);
  }
  // Measured GPU spans come from the graph as traced: transforms change nodes (a merged bucket
  // carries its parts' durations), never what was measured. Copies made by scale_out measure as
  // the process they copy.
  std::map<std::pair<int32_t, uint32_t>, std::pair<TimeNs, TimeNs>> traced_gpu;
  for (const Node& node : in.graph->nodes) {
    if (node.removed || node.step < 0 || !is_gpu(node.kind)) continue;
    auto [it, fresh] = traced_gpu.try_emplace({node.step, node.process}, node.start, node.start + node.dur);
    if (!fresh) {
      it->second.first = std::min(it->second.first, node.start);
      it->second.second = std::max(it->second.second, node.start + node.dur);
    }
  }
  const auto traced_processes = static_cast<uint32_t>(std::max<size_t>(1, in.graph->processes.size()));
  std::map<int32_t, std::pair<TimeNs, TimeNs>> step_max;      // step -> (measured, replay) max over processes
  std::map<int32_t, std::pair<TimeNs, TimeNs>> step_gpu_max;
  std::map<int32_t, TimeNs> step_exposed_max;
  const StepExposure exposure(g, r);
  for (size_t s = 0; s < g.steps.size(); ++s) {
    for (const StepRange& range : g.steps[s].ranges) {
      auto it = by_step.find({static_cast<int32_t>(s), range.process});
      if (it == by_step.end()) continue;
      const StepNodes& sn = it->second;
      const std::vector<uint32_t>& anchor = sn.host.empty() ? sn.gpu : sn.host;
      if (anchor.empty()) continue;
      uint32_t first = anchor[0], last = anchor[0];
      for (uint32_t n : anchor) {
        if (g.nodes[n].start < g.nodes[first].start) first = n;
        if (g.nodes[n].start + g.nodes[n].dur > g.nodes[last].start + g.nodes[last].dur) last = n;
      }
      StepTimes st;
      st.step = g.steps[s].name;
      st.process = static_cast<int32_t>(range.process);
      st.rank = g.processes[range.process].rank;
      st.measured_ns = range.end - range.start;
      const TimeNs rs = range.start + (r.start[first] - g.nodes[first].start);
      const TimeNs re = range.end + (r.end[last] - (g.nodes[last].start + g.nodes[last].dur));
      st.replay_ns = std::max<TimeNs>(0, re - rs);
      st.exposed_ns = exposure.exposed(range.process, rs, re);
      auto& ex = step_exposed_max[static_cast<int32_t>(s)];
      ex = std::max(ex, st.exposed_ns);
      if (!sn.gpu.empty()) {
        TimeNs r0 = INT64_MAX, r1 = INT64_MIN;
        for (uint32_t n : sn.gpu) {
          r0 = std::min(r0, r.start[n]);
          r1 = std::max(r1, r.end[n]);
        }
        st.replay_gpu_ns = r1 - r0;
        if (auto m = traced_gpu.find({static_cast<int32_t>(s), range.process % traced_processes}); m != traced_gpu.end())
          st.measured_gpu_ns = m->second.second - m->second.first;
      }
      auto& mx = step_max[static_cast<int32_t>(s)];
      mx.first = std::max(mx.first, st.measured_ns);
      mx.second = std::max(mx.second, st.replay_ns);
      auto& gx = step_gpu_max[static_cast<int32_t>(s)];
      gx.first = std::max(gx.first, st.measured_gpu_ns);
      gx.second = std::max(gx.second, st.replay_gpu_ns);
      sum.steps.push_back(std::move(st));
    }
  }
  if (!step_max.empty()) {
    for (const auto& [s, v] : step_max) {
      sum.measured_step_ns += static_cast<double>(v.first);
      sum.step_ns += static_cast<double>(v.second);
    }
    for (const auto& [s, v] : step_gpu_max) {
      sum.measured_gpu_step_ns += static_cast<double>(v.first);
      sum.gpu_step_ns += static_cast<double>(v.second);
    }
    for (const auto& [s, v] : step_exposed_max) sum.step_exposed_ns += static_cast<double>(v);
    const auto k = static_cast<double>(step_max.size());
    sum.step_exposed_ns /= k;
    sum.measured_step_ns /= k;
    sum.step_ns /= k;
    sum.measured_gpu_step_ns /= k;
    sum.gpu_step_ns /= k;
  }

  // 7. Links, critical path, divergences.
  const std::vector<LinkLoad> loads = link_loads(g, r, timings);
  for (const LinkLoad& l : loads) {
    const sim::PlatformResource& res = platform.resources()[l.resource];
    LinkUse u;
    u.name = res.name;
    u.capacity_bytes_per_s = res.capacity;
    u.bytes = l.bytes;
    const double span = static_cast<double>(sum.span_ns) * 1e-9;
    u.mean_utilization = span > 0 && res.capacity > 0 ? l.bytes / (res.capacity * span) : 0;
    u.peak_utilization = res.capacity > 0 ? l.peak_bytes_per_s / res.capacity : 0;
    sum.links.push_back(std::move(u));
  }
  std::stable_sort(sum.links.begin(), sum.links.end(), [](const LinkUse& a, const LinkUse& b) { return a.bytes > b.bytes; });

  sum.critical = critical_path(g, r);
  {
    std::map<std::tuple<int32_t, uint32_t, uint32_t>, CriticalItem> items;
    for (const CriticalSegment& s : sum.critical.segments) {
      const Node& node = g.nodes[s.node];
      auto& it = items[{static_cast<int32_t>(node.process), node.lane, node.name}];
      it.name = g.names[node.name];
      it.rank = g.processes[node.process].rank;
      const Lane& lane = g.lanes[node.lane];
      it.lane = (lane.kind == LaneKind::kStream ? "stream " : "thread ") + std::to_string(lane.id);
      it.kind = kind_name(node.kind);
      it.ns += s.end - s.start;
      ++it.count;
    }
    for (auto& [k, v] : items) sum.critical_items.push_back(std::move(v));
    std::stable_sort(sum.critical_items.begin(), sum.critical_items.end(),
                     [](const CriticalItem& a, const CriticalItem& b) { return a.ns > b.ns; });
  }
  {
    std::map<uint32_t, Divergence> by_name;
    for (uint32_t n = 0; n < g.nodes.size(); ++n) {
      const Node& node = g.nodes[n];
      if (node.removed || !is_gpu(node.kind) || r.end[n] < 0) continue;
      Divergence& d = by_name[node.name];
      d.name = g.names[node.name];
      d.kind = kind_name(node.kind);
      ++d.count;
      d.measured_ns += node.dur;
      d.replay_ns += r.end[n] - r.start[n];
    }
    for (auto& [k, v] : by_name) sum.divergences.push_back(std::move(v));
    std::stable_sort(sum.divergences.begin(), sum.divergences.end(), [](const Divergence& a, const Divergence& b) {
      return std::llabs(a.replay_ns - a.measured_ns) > std::llabs(b.replay_ns - b.measured_ns);
    });
  }
  for (const std::string& w : g.diagnostics.warnings) sum.warnings.push_back(w);

  if (in.cancel && in.cancel->load(std::memory_order_relaxed)) throw Cancelled();
  // 8. The predicted trace and the analyses on it.
  if (in.want_trace || in.want_analyses) {
    std::vector<std::string> notes = sum.changes;
    Trace t = predicted_trace(in.measured, g, r, platform, loads, notes);
    if (in.want_analyses) {
      // GPUs a rank only touched (syncs on its peer's GPU) have no communication: not listed
      for (const DeviceExposedCommunication& e : exposed_communication(t)) {
        if (e.communication_ns == 0) continue;
        RankCommunication rc2;
        rc2.rank = t.processes[t.devices[e.device].process].rank;
        rc2.communication_ns = e.communication_ns;
        rc2.exposed_ns = e.exposed_ns;
        sum.exposed_ns = std::max(sum.exposed_ns, e.exposed_ns);
        sum.communication.push_back(rc2);
      }
      if (in.measured) {
        for (const DeviceExposedCommunication& e : exposed_communication(*in.measured)) {
          if (e.communication_ns == 0) continue;
          RankCommunication rc2;
          rc2.rank = in.measured->processes[in.measured->devices[e.device].process].rank;
          rc2.communication_ns = e.communication_ns;
          rc2.exposed_ns = e.exposed_ns;
          sum.measured_exposed_ns = std::max(sum.measured_exposed_ns, e.exposed_ns);
          sum.measured_communication.push_back(rc2);
        }
      }
    }
    if (in.want_trace) out.trace = std::move(t);
  }
  return out;
}

WhatIfDiff diff_runs(const WhatIfOutput& a, const WhatIfOutput& b, size_t top) {
  WhatIfDiff d;
  d.step_ns = b.summary.step_ns - a.summary.step_ns;
  d.gpu_step_ns = b.summary.gpu_step_ns - a.summary.gpu_step_ns;
  d.exposed_ns = b.summary.exposed_ns - a.summary.exposed_ns;
  std::map<std::string, Divergence> by_name;
  auto add = [&](const WhatIfOutput& o, bool second) {
    for (size_t n = 0; n < o.graph.nodes.size(); ++n) {
      const Node& node = o.graph.nodes[n];
      if (node.removed || !is_gpu(node.kind) || o.replay.end[n] < 0) continue;
      Divergence& v = by_name[o.graph.names[node.name]];
      v.name = o.graph.names[node.name];
      v.kind = std::string(to_string(node.kind));
      (second ? v.replay_ns : v.measured_ns) += o.replay.end[n] - o.replay.start[n];
      if (second) ++v.count;
    }
  };
  add(a, false);
  add(b, true);
  for (auto& [k, v] : by_name) d.by_name.push_back(std::move(v));
  std::stable_sort(d.by_name.begin(), d.by_name.end(), [](const Divergence& x, const Divergence& y) {
    return std::llabs(x.replay_ns - x.measured_ns) > std::llabs(y.replay_ns - y.measured_ns);
  });
  if (d.by_name.size() > top) d.by_name.resize(top);
  return d;
}

}  // namespace parascope::whatif
