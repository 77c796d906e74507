#include "sim/whatif/what_if.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <tuple>

#include "sim/collectives.h"
#include "sim/knobs.h"
#include "sim/platform.h"
#include "sim/whatif/machine.h"
#include "sim/whatif/step_exposure.h"
#include "sim/whatif/step_range.h"
#include "sim/whatif/transforms.h"
#include "trace/core/analysis/exposed_communication.h"

namespace parascope::whatif {

namespace {

// Knobs that change how a collective is simulated: comm_select restricts them.
constexpr const char* kCommKnobs[] = {"channels",  "num_comm_sms", "chunk_bytes", "window",       "granularity",
                                      "mechanism", "algorithm",    "protocol",    "threads_per_channel",
                                      "ll_max_bytes", "ll128_max_bytes"};

enum class StreamMove : uint8_t { kTrace, kSide, kSerial };

// The what-if's knobs, read from the registry's values once.
struct Knobs {
  sim::KnobSettings selected;  // for the collectives comm_select picks: every knob
  sim::KnobSettings others;    // for the rest: all but the communication knobs
  CommSelector select;
  StreamMove stream = StreamMove::kTrace;
  CommDeps deps = CommDeps::kStream;
  int merge = 1, split = 1;
  bool fuse_ag = false, fuse_rs = false;
  int dtype_bytes = 2;
  bool scale_compute = false;  // compute_scale set
  KernelClass kernel_class = KernelClass::kAll;
  double compute_scale = 1;
  int scale_gpus = 0;
  Parallelism parallelism = Parallelism::kData;
  Fabric fabric = Fabric::kTrace;
  int gpus_per_node = 8;
  double cpu_scale = 1, comm_interference = -1;  // -1: the topology's
  double comm_call_us = -1;                      // -1: launch calls as traced
  bool comm_call_set = false;                    // unset: the stand-in's calls get the machine's host profile
  double comm_slowdown = -1;
  bool comm_slowdown_set = false;  // unset: the machine's a-priori value; set to -1: calibrated on the trace
  sim::PlatformOptions platform;
};

Knobs resolve_knobs(const sim::KnobSettings& set) {
  Knobs k;
  k.selected = set;
  k.others = set;
  for (const char* c : kCommKnobs) k.others.erase(c);
  k.select = CommSelector::from_knob(set.get_enum("comm_select"));
  const std::string stream = set.get_enum("comm_stream");
  k.stream = stream == "side" ? StreamMove::kSide : stream == "serial" ? StreamMove::kSerial : StreamMove::kTrace;
  k.deps = comm_deps_from_knob(set.get_enum("comm_deps"));
  k.merge = static_cast<int>(set.get_int("comm_merge"));
  k.split = static_cast<int>(set.get_int("comm_split"));
  const std::string fuse = set.get_enum("fuse");
  k.fuse_ag = fuse == "ag_gemm" || fuse == "both";
  k.fuse_rs = fuse == "gemm_rs" || fuse == "both";
  k.dtype_bytes = static_cast<int>(set.get_int("dtype_bytes"));
  k.scale_compute = set.is_set("compute_scale");
  k.kernel_class = kernel_class_from_knob(set.get_enum("kernel_class"));
  k.compute_scale = set.get_double("compute_scale");
  k.scale_gpus = static_cast<int>(set.get_int("scale_gpus"));
  k.parallelism = parallelism_from_knob(set.get_enum("parallelism"));
  k.fabric = fabric_from_knob(set.get_enum("fabric"));
  k.gpus_per_node = static_cast<int>(set.get_int("gpus_per_node"));
  k.cpu_scale = set.get_double("cpu_scale");
  k.comm_call_us = set.get_double("comm_call_us");
  k.comm_call_set = set.is_set("comm_call_us");
  k.comm_interference = set.get_double("comm_interference");
  k.comm_slowdown = set.get_double("comm_slowdown");
  k.comm_slowdown_set = set.is_set("comm_slowdown");
  k.platform = sim::platform_options(set);
  return k;
}

void check_cancel(const WhatIfInput& in) {
  if (in.cancel && in.cancel->load(std::memory_order_relaxed)) throw Cancelled();
}

std::string platform_key(const Topology& t, const sim::PlatformOptions& po) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "|lbs=%.17g|hbm=%d", po.link_bandwidth_scale, po.hbm ? 1 : 0);
  return t.name + "#" + std::to_string(t.gpu_count()) + "#" + std::to_string(t.links.size()) + buf;
}

const GpuSpec* first_gpu(const Topology& t) {
  const int32_t g = t.gpu_node(0);
  return g >= 0 && t.nodes[static_cast<size_t>(g)].gpu ? &*t.nodes[static_cast<size_t>(g)].gpu : nullptr;
}

std::string kind_name(NodeType k) { return std::string(to_string(k)); }

uint32_t default_channels() { return static_cast<uint32_t>(sim::KnobSettings().get_int("channels")); }

// 1. Compute work at full speed: the interference the measurement contains taken out, with the SMs
// the traced collectives held (the model's answer for the trace's own settings). Returns the
// communication slow-down beside compute that the measurement shows.
double remove_measured_interference(DepGraph& g, const Topology& topology, double ci, const std::shared_ptr<CommCache>& cache) {
  const Topology traced_machine = machine_for(topology, g.gpu_count(), Fabric::kTrace, 8);
  const sim::PlatformOptions po;
  const sim::Platform platform = sim::Platform::seal(traced_machine, po);
  const sim::KnobSettings defaults;
  CommModel model(platform, platform_key(traced_machine, po), defaults, cache);
  std::vector<uint32_t> held(g.devices.size(), 0);
  std::vector<TimeNs> alone(g.groups.size(), 0);  // the model's duration of each traced group on its own
  for (size_t gi = 0; gi < g.groups.size(); ++gi) {
    const CommGroup& grp = g.groups[gi];
    uint32_t sms = grp.spec.channels ? grp.spec.channels : default_channels();
    if (!grp.measured_only) {
      const auto t = model.timing(grp.spec);
      if (t->error.empty()) {
        if (!grp.spec.channels) sms = t->sms;
        alone[gi] = t->duration;
      }
    }
    for (uint32_t m : grp.members) {
      uint32_t& h = held[static_cast<size_t>(g.nodes[m].device)];
      h = std::max(h, sms);
    }
  }
  for (Node& n : g.nodes) {
    if (n.kind != NodeType::kCompute || n.comm_overlap <= 0) continue;
    const GraphDevice& d = g.devices[static_cast<size_t>(n.device)];
    const double total = d.sm_count ? d.sm_count : 132;
    const double h = std::min<double>(held[static_cast<size_t>(n.device)], total - 1);
    n.work = deinterfered_work(n.dur, n.comm_overlap, (total - h) / total / (1.0 + ci));
  }
  return measured_comm_slowdown(g, alone);
}

// 2. The schedule transforms, in a fixed order; each change is a line of `sum.changes`.
// Returns the dependencies each selected side-stream collective kept (empty when no schedule change touched them).
std::vector<KeptDependency> apply_transforms(DepGraph& g, const Topology& topology, const Knobs& k, WhatIfSummary& sum) {
  auto note = [&](std::string s) {
    if (!s.empty()) sum.changes.push_back(std::move(s));
  };
  if (k.stream == StreamMove::kSide) note(move_collectives_to_side_stream(g, k.select));
  else if (k.stream == StreamMove::kSerial) note(serialize_collectives(g, k.select));
  note(merge_collectives(g, k.select, k.merge));
  note(split_collectives(g, k.select, k.split));
  std::vector<KeptDependency> kept;
  if (k.stream == StreamMove::kSide || k.deps != CommDeps::kStream || !sum.changes.empty()) {
    note(set_collective_deps(g, k.select, k.deps, &kept));
    if (k.deps != CommDeps::kStream && kept.empty())
      sum.warnings.push_back("comm_deps: no selected collective runs on a side stream (set comm_stream=side); nothing changed");
  }
  if (k.fuse_ag || k.fuse_rs) {
    const GpuSpec* gpu = first_gpu(topology);
    const double flops = gpu ? gpu->bf16_flops : 0;
    if (!(flops > 0)) sum.warnings.push_back("fuse: topology " + topology.name + " has no bf16_TFLOPs; nothing fused");
    note(fuse_gemm_collectives(g, k.fuse_ag, k.fuse_rs, flops, k.dtype_bytes));
  }
  if (k.scale_compute) note(scale_kernels(g, k.kernel_class, k.compute_scale));
  note(scale_out(g, k.scale_gpus, k.parallelism));
  if (k.comm_call_us >= 0) {
    note(set_comm_call_time(g, k.select, static_cast<TimeNs>(std::llround(k.comm_call_us * 1e3))));
  } else if (!k.comm_call_set && topology.host && topology.host->collective_call_ns > 0) {
    // unset: the stand-in's calls (record --world) get the machine's backend cost per call; traced calls stay
    std::string c = set_comm_call_time(g, k.select, static_cast<TimeNs>(std::llround(topology.host->collective_call_ns)), true);
    if (!c.empty()) note(c + " (stand-in calls; the backend's host time per call on " + topology.name + ": " + topology.host->source + ")");
  }
  if (!sum.changes.empty()) break_cycles(g);
  count_edges(g);
  return kept;
}

// Of each node in `nodes` whose replayed start an edge held back, the first edge from the node that
// held it (r.start_by) into it, in edge order; -1 for the rest. One pass over the edges.
std::vector<int32_t> holding_edges(const DepGraph& g, const ReplayResult& r, const std::vector<uint32_t>& nodes) {
  std::vector<int32_t> want(g.nodes.size(), -1), edge(g.nodes.size(), -1);
  for (uint32_t n : nodes)
    if (r.start_cause[n] == Cause::kEdge) want[n] = r.start_by[n];
  for (uint32_t ei = 0; ei < g.edges.size(); ++ei) {
    const Edge& e = g.edges[ei];
    if (want[e.to] >= 0 && edge[e.to] < 0 && static_cast<int32_t>(e.from) == want[e.to]) edge[e.to] = static_cast<int32_t>(ei);
  }
  return edge;
}

// What the replayed start of node n waited for last, in words; `edge`: holding_edges' answer for n.
std::string held_by(const DepGraph& g, const ReplayResult& r, uint32_t n, int32_t edge) {
  const int32_t by = r.start_by[n];
  const std::string from = by >= 0 ? std::string(g.names[g.nodes[static_cast<size_t>(by)].name]) : "";
  switch (r.start_cause[n]) {
    case Cause::kLane: return "stream order after " + from;
    case Cause::kDispatch: return "dispatch: the SMs " + from + " held";
    case Cause::kEdge:
      if (edge >= 0) {
        const Edge& e = g.edges[static_cast<size_t>(edge)];
        if (e.kind == EdgeKind::kLaunch || e.kind == EdgeKind::kGraphLaunch) return "launch (" + from + ")";
        if (e.timing == EdgeTiming::kStartToStart) return "step start (with " + from + ")";
        return std::string(to_string(e.kind)) + " on " + from;
      }
      return "an edge from " + from;
    default: return "its measured start";
  }
}

struct CollectiveTimes {
  std::vector<GroupWork> work;
  std::vector<std::shared_ptr<const CommTiming>> timings;  // null: not simulated
};

// 4. What each group's transfer takes: the interconnect model's time (the knobs for the groups
// comm_select picks, the rest without the communication knobs), else the measured one.
CollectiveTimes time_collectives(const DepGraph& g, const Knobs& k, CommModel& selected, CommModel& others,
                                 const WhatIfInput& in, WhatIfSummary& sum) {
  CollectiveTimes out;
  out.work.resize(g.groups.size());
  out.timings.resize(g.groups.size());
  size_t failed = 0;
  std::string failure;
  for (size_t gi = 0; gi < g.groups.size(); ++gi) {
    check_cancel(in);
    const CommGroup& grp = g.groups[gi];
    GroupWork& work = out.work[gi];
    TimeNs measured = INT64_MAX;
    for (uint32_t m : grp.members)
      if (!g.nodes[m].removed) measured = std::min(measured, g.nodes[m].work);
    if (measured == INT64_MAX) continue;
    work.sms = grp.spec.channels ? grp.spec.channels : default_channels();
    if (grp.measured_only) {
      work.duration = grp.complete ? measured : -1;
      continue;
    }
    const bool picked = k.select.matches(grp);
    auto t = (picked ? selected : others).timing(grp.spec);
    if (!t->error.empty()) {
      if (!failed++) failure = t->error;
      work.duration = grp.complete ? measured : -1;
      continue;
    }
    out.timings[gi] = t;
    work.duration = t->duration;
    // SMs held: the traced kernel's CTAs (one per NCCL channel) unless the knobs change them.
    const sim::KnobSettings& set = picked ? k.selected : k.others;
    const bool retuned = set.is_set("channels") || set.is_set("num_comm_sms");
    work.sms = !retuned && grp.spec.channels > 0 && grp.spec.gemm_m == 0 ? grp.spec.channels : t->sms;
  }
  if (failed)
    sum.warnings.push_back(std::to_string(failed) + " collectives could not be simulated (first: " + failure +
                           "): their measured durations are used");
  return out;
}

// Per (step, process): the host nodes and GPU nodes of the step.
struct StepNodes {
  std::vector<uint32_t> host, gpu;
};

// 6. Steps: per (step, process), the host range shifted by how far its first and last host calls
// moved (step_range.h: those of the range's thread); the GPU span directly. Then the mean over steps of the slowest process.
void summarize_steps(const DepGraph& g, const DepGraph& traced, const ReplayResult& r, WhatIfSummary& sum) {
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
  for (const Node& node : traced.nodes) {
    if (node.removed || node.step < 0 || !is_gpu(node.kind)) continue;
    auto [it, fresh] = traced_gpu.try_emplace({node.step, node.process}, node.start, node.start + node.dur);
    if (!fresh) {
      it->second.first = std::min(it->second.first, node.start);
      it->second.second = std::max(it->second.second, node.start + node.dur);
    }
  }
  const auto traced_processes = static_cast<uint32_t>(std::max<size_t>(1, traced.processes.size()));
  std::map<int32_t, std::pair<TimeNs, TimeNs>> step_max;      // step -> (measured, replay) max over processes
  std::map<int32_t, std::pair<TimeNs, TimeNs>> step_gpu_max;
  std::map<int32_t, std::pair<TimeNs, TimeNs>> step_exposed_max;  // step -> (measured, replay) max over processes
  const StepExposure exposure(g, r);
  ReplayResult as_traced;  // the traced graph at its measured times, for the measured exposure
  as_traced.start.reserve(traced.nodes.size());
  as_traced.end.reserve(traced.nodes.size());
  for (const Node& node : traced.nodes) {
    as_traced.start.push_back(node.removed ? -1 : node.start);
    as_traced.end.push_back(node.removed ? -1 : node.start + node.dur);
  }
  const StepExposure measured_exposure(traced, as_traced);
  for (size_t s = 0; s < g.steps.size(); ++s) {
    for (const StepRange& range : g.steps[s].ranges) {
      auto it = by_step.find({static_cast<int32_t>(s), range.process});
      if (it == by_step.end()) continue;
      const StepNodes& sn = it->second;
      const std::optional<StepAnchors> anchors = step_anchors(g, range, sn.host.empty() ? sn.gpu : sn.host);
      if (!anchors) continue;
      StepTimes st;
      st.step = g.steps[s].name;
      st.process = static_cast<int32_t>(range.process);
      st.rank = g.processes[range.process].rank;
      st.measured_ns = range.end - range.start;
      const auto [rs, re] = replayed_range(g, r, range, *anchors);
      st.replay_ns = std::max<TimeNs>(0, re - rs);
      st.exposed_ns = exposure.exposed(range.process, rs, re);
      st.measured_exposed_ns = measured_exposure.exposed(range.process % traced_processes, range.start, range.end);
      auto& ex = step_exposed_max[static_cast<int32_t>(s)];
      ex.first = std::max(ex.first, st.measured_exposed_ns);
      ex.second = std::max(ex.second, st.exposed_ns);
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
  if (step_max.empty()) return;
  for (const auto& [s, v] : step_max) {
    sum.measured_step_ns += static_cast<double>(v.first);
    sum.step_ns += static_cast<double>(v.second);
  }
  for (const auto& [s, v] : step_gpu_max) {
    sum.measured_gpu_step_ns += static_cast<double>(v.first);
    sum.gpu_step_ns += static_cast<double>(v.second);
  }
  for (const auto& [s, v] : step_exposed_max) {
    sum.measured_step_exposed_ns += static_cast<double>(v.first);
    sum.step_exposed_ns += static_cast<double>(v.second);
  }
  // whole ns, like every time of the summary: one value for the tables, the JSON and the reports
  const auto n = static_cast<double>(step_max.size());
  sum.step_exposed_ns = std::round(sum.step_exposed_ns / n);
  sum.measured_step_exposed_ns = std::round(sum.measured_step_exposed_ns / n);
  sum.measured_step_ns = std::round(sum.measured_step_ns / n);
  sum.step_ns = std::round(sum.step_ns / n);
  sum.measured_gpu_step_ns = std::round(sum.measured_gpu_step_ns / n);
  sum.gpu_step_ns = std::round(sum.gpu_step_ns / n);
}

// 7. Per link: bytes and utilization over the replayed span, busiest first.
void summarize_links(const sim::Platform& platform, const std::vector<LinkLoad>& loads, WhatIfSummary& sum) {
  const double span = static_cast<double>(sum.span_ns) * 1e-9;
  for (const LinkLoad& l : loads) {
    const sim::PlatformResource& res = platform.resources()[l.resource];
    LinkUse u;
    u.name = res.name;
    u.capacity_bytes_per_s = res.capacity;
    u.bytes = l.bytes;
    u.mean_utilization = span > 0 && res.capacity > 0 ? l.bytes / (res.capacity * span) : 0;
    u.peak_utilization = res.capacity > 0 ? l.peak_bytes_per_s / res.capacity : 0;
    sum.links.push_back(std::move(u));
  }
  std::stable_sort(sum.links.begin(), sum.links.end(), [](const LinkUse& a, const LinkUse& b) { return a.bytes > b.bytes; });
}

// 7. The critical path's time by (rank, lane, name), largest first.
void summarize_critical_path(const DepGraph& g, const ReplayResult& r, WhatIfSummary& sum) {
  sum.critical = critical_path(g, r);
  std::map<std::tuple<int32_t, uint32_t, uint32_t>, CriticalItem> items;
  for (const CriticalSegment& s : sum.critical.segments) {
    const Node& node = g.nodes[s.node];
    auto& it = items[{static_cast<int32_t>(node.process), node.lane, node.name}];
    it.name = g.names[node.name];
    it.rank = g.processes[node.process].rank;
    const Lane& lane = g.lanes[node.lane];
    it.lane = !lane.name.empty() ? lane.name : (lane.kind == LaneKind::kStream ? "stream " : "thread ") + std::to_string(lane.id);
    it.kind = kind_name(node.kind);
    it.ns += s.end - s.start;
    ++it.count;
  }
  for (auto& [key, v] : items) sum.critical_items.push_back(std::move(v));
  std::stable_sort(sum.critical_items.begin(), sum.critical_items.end(),
                   [](const CriticalItem& a, const CriticalItem& b) { return a.ns > b.ns; });
}

// 7. Replay against measurement by kernel name, largest |difference| first.
void summarize_divergences(const DepGraph& g, const ReplayResult& r, WhatIfSummary& sum) {
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
  for (auto& [key, v] : by_name) sum.divergences.push_back(std::move(v));
  std::stable_sort(sum.divergences.begin(), sum.divergences.end(), [](const Divergence& a, const Divergence& b) {
    return std::llabs(a.replay_ns - a.measured_ns) > std::llabs(b.replay_ns - b.measured_ns);
  });
}

// 8. Communication and exposed communication per rank (GPUs a rank only touched, syncs on its
// peer's GPU, have none and are not listed); `max_exposed` the largest.
std::vector<RankCommunication> communication_by_rank(const Trace& t, TimeNs& max_exposed) {
  std::vector<RankCommunication> out;
  for (const DeviceExposedCommunication& e : exposed_communication(t)) {
    if (e.communication_ns == 0) continue;
    RankCommunication rc;
    rc.rank = t.processes[t.devices[e.device].process].rank;
    rc.communication_ns = e.communication_ns;
    rc.exposed_ns = e.exposed_ns;
    max_exposed = std::max(max_exposed, e.exposed_ns);
    out.push_back(rc);
  }
  return out;
}

}  // namespace

WhatIfOutput run_whatif(const WhatIfInput& in) {
  if (!in.graph) throw std::invalid_argument("run_whatif: no graph");
  const Knobs k = resolve_knobs(in.knobs);
  const auto cache = in.cache ? in.cache : std::make_shared<CommCache>();
  WhatIfOutput out;
  WhatIfSummary& sum = out.summary;
  out.graph = *in.graph;
  DepGraph& g = out.graph;
  const GpuSpec* gpu0 = first_gpu(in.topology);
  const double ci = k.comm_interference >= 0 ? k.comm_interference : gpu0 ? gpu0->comm_interference : 0.0;
  if (static_cast<int32_t>(in.topology.gpu_count()) < g.gpu_count() && k.scale_gpus == 0 && k.fabric == Fabric::kTrace)
    throw std::invalid_argument("topology " + in.topology.name + " has " + std::to_string(in.topology.gpu_count()) +
                                " GPUs but the trace uses " + std::to_string(g.gpu_count()));
  check_cancel(in);

  const double measured_slowdown = remove_measured_interference(g, in.topology, ci, cache);
  if (!k.comm_slowdown_set) {
    sum.comm_slowdown = gpu0 ? gpu0->comm_slowdown : 0.0;
    const std::string src = gpu0 && !gpu0->comm_slowdown_source.empty() ? gpu0->comm_slowdown_source : "none measured: 0";
    sum.comm_slowdown_source = "a-priori (machine " + in.topology.name + ", " + src + ")";
  } else if (k.comm_slowdown < 0) {
    sum.comm_slowdown = measured_slowdown;
    sum.comm_slowdown_source = "calibrated on this trace (comm_slowdown=-1: fitted, not a prediction)";
    sum.comm_slowdown_fitted = true;
  } else {
    sum.comm_slowdown = k.comm_slowdown;
    sum.comm_slowdown_source = "set (comm_slowdown=" + sim::knob_registry().format("comm_slowdown", k.comm_slowdown) + ")";
  }
  check_cancel(in);
  const std::vector<KeptDependency> kept = apply_transforms(g, in.topology, k, sum);

  // 3. The machine.
  const Topology topo = machine_for(in.topology, g.gpu_count(), k.fabric, k.gpus_per_node);
  if (k.fabric != Fabric::kTrace || topo.name != in.topology.name) sum.changes.push_back("machine: " + topo.description);
  const sim::Platform platform = sim::Platform::seal(topo, k.platform);
  const std::string key = platform_key(topo, k.platform);
  CommModel selected(platform, key, k.selected, cache), others(platform, key, k.others, cache);
  sum.topology = topo.name;
  sum.calibration = std::string(to_string(topo.calibration));

  const CollectiveTimes times = time_collectives(g, k, selected, others, in, sum);
  sum.simulations = selected.simulations() + others.simulations();
  check_cancel(in);

  // 5. Replay.
  ReplayConfig rc;
  rc.comm_interference = ci;
  rc.comm_slowdown = sum.comm_slowdown;
  rc.cpu_scale = k.cpu_scale;
  for (size_t gi = 0; gi < platform.gpu_count(); ++gi) rc.gpu_sms.push_back(platform.gpu(static_cast<int32_t>(gi)).sm_count);
  out.replay = replay(g, times.work, rc);
  const ReplayResult& r = out.replay;
  sum.replay_events = r.events;
  sum.span_ns = r.last - r.first;
  for (const std::string& w : r.warnings) sum.warnings.push_back(w);

  std::vector<uint32_t> kept_nodes;
  for (const KeptDependency& kd : kept)
    if (!g.nodes[kd.node].removed && r.end[kd.node] >= 0) kept_nodes.push_back(kd.node);
  const std::vector<int32_t> holding = kept_nodes.empty() ? std::vector<int32_t>() : holding_edges(g, r, kept_nodes);
  for (const KeptDependency& kd : kept) {
    const Node& node = g.nodes[kd.node];
    if (node.removed) continue;
    HeldCollective h;
    h.name = g.names[node.name];
    h.rank = g.processes[node.process].rank;
    h.step = node.step >= 0 ? g.steps[static_cast<size_t>(node.step)].name : "";
    h.kept = kd.kept;
    h.held_by = r.end[kd.node] >= 0 ? held_by(g, r, kd.node, holding[kd.node]) : "never ran";
    sum.held.push_back(std::move(h));
  }
  summarize_steps(g, *in.graph, r, sum);
  const std::vector<LinkLoad> loads = link_loads(g, r, times.timings);
  summarize_links(platform, loads, sum);
  summarize_critical_path(g, r, sum);
  summarize_divergences(g, r, sum);
  for (const std::string& w : g.diagnostics.warnings) sum.warnings.push_back(w);
  check_cancel(in);

  // 8. The predicted trace and the analyses on it.
  if (in.want_trace || in.want_analyses) {
    Trace t = predicted_trace(in.measured, g, r, platform, loads, sum.changes);
    if (in.want_analyses) {
      sum.communication = communication_by_rank(t, sum.exposed_ns);
      if (in.measured) sum.measured_communication = communication_by_rank(*in.measured, sum.measured_exposed_ns);
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
