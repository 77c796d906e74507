#include "sim/sim_report.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "sim/knobs.h"
#include "trace/core/trace_builder.h"

namespace parascope::sim {

SimSummary summarize(const Platform& platform, const Workload& workload, const SimResult& result, const Simulator& sim) {
  SimSummary s;
  s.makespan = result.makespan;
  s.messages = result.messages;
  s.batches = result.batches;
  s.warnings = result.warnings;
  for (size_t c = 0; c < workload.collectives.size(); ++c) {
    const CollectiveSpec& spec = workload.collectives[c];
    CollectiveSummary cs;
    cs.index = static_cast<uint32_t>(c);
    cs.name = spec.name;
    cs.algorithm = spec.algorithm;
    cs.bytes = spec.bytes;
    cs.gpus = static_cast<int32_t>(spec.gpus.size());
    cs.stream = spec.stream;
    cs.compute = spec.compute;
    cs.start = std::numeric_limits<TimePs>::max();
    for (size_t a = 0; a < workload.actors.size(); ++a) {
      if (workload.actors[a].collective != c) continue;
      cs.start = std::min(cs.start, result.actors[a].start);
      cs.end = std::max(cs.end, result.actors[a].end);
    }
    if (cs.start > cs.end) cs.start = cs.end;
    const double seconds = static_cast<double>(cs.end - cs.start) * 1e-12;
    if (!spec.compute && seconds > 0) {
      cs.algbw = spec.algbw_bytes / seconds;
      cs.busbw = cs.algbw * spec.busbw_factor;
    }
    s.collectives.push_back(std::move(cs));
  }
  const double span_s = static_cast<double>(result.makespan) * 1e-12;
  for (size_t i = 0; i < platform.resources().size(); ++i) {
    const PlatformResource& r = platform.resources()[i];
    const ResourceUsage& u = sim.flows().usage(static_cast<uint32_t>(i));
    if (u.bytes <= 0) continue;
    ResourceSummary rs;
    rs.name = r.name;
    rs.kind = r.kind;
    rs.capacity = r.capacity;
    rs.bytes = u.bytes;
    rs.peak = u.peak;
    rs.peak_utilization = u.peak / r.capacity;
    rs.mean_utilization = span_s > 0 ? u.bytes / (r.capacity * span_s) : 0;
    s.resources.push_back(std::move(rs));
  }
  return s;
}

namespace {

std::string step_label(const CollectiveSpec& spec) {
  if (spec.compute) return "gemm (simulated)";
  std::string s = spec.name + " " + spec.algorithm + " " + format_bytes(static_cast<int64_t>(std::llround(spec.bytes)));
  return s + " (simulated)";
}

}  // namespace

Trace simulation_trace(const Platform& platform, const Workload& workload, const SimResult& result, const Simulator& sim) {
  TraceBuilder b;
  const Topology& topo = platform.topology();
  b.trace().topology = topo;
  b.trace().source_format = "simulation";
  b.trace().source_files.push_back("simulation of " + topo.name);
  for (const std::string& w : result.warnings) b.warn(w);

  // A rank per GPU, as a measured multi-process run would have.
  std::vector<uint32_t> process(platform.gpu_count()), device(platform.gpu_count());
  for (size_t g = 0; g < platform.gpu_count(); ++g) {
    Process p;
    p.rank = static_cast<int32_t>(g);
    p.pid = static_cast<int64_t>(g);
    p.host = "node" + std::to_string(platform.gpu_host(static_cast<int32_t>(g)));
    p.name = "rank " + std::to_string(g) + " (simulated)";
    p.source = "simulation";
    p.clock_offset_reason = "none";
    process[g] = b.add_process(p);
    const GpuSpec& spec = platform.gpu(static_cast<int32_t>(g));
    Device d;
    d.process = process[g];
    d.ordinal = 0;
    d.name = spec.model.empty() ? "GPU" : spec.model;
    d.sm_count = spec.sm_count;
    d.memory_bytes = spec.memory_bytes;
    d.topology_gpu = static_cast<int32_t>(g);
    device[g] = b.add_device(d);
  }

  // Kernels: one per step per GPU on its stream, spanning that GPU's actors of the step.
  std::map<std::pair<uint32_t, int32_t>, std::pair<TimePs, TimePs>> span;  // (step, gpu) -> [start, end]
  for (size_t a = 0; a < workload.actors.size(); ++a) {
    const Actor& actor = workload.actors[a];
    auto [it, fresh] = span.try_emplace({actor.collective, actor.gpu}, result.actors[a].start, result.actors[a].end);
    if (!fresh) {
      it->second.first = std::min(it->second.first, result.actors[a].start);
      it->second.second = std::max(it->second.second, result.actors[a].end);
    }
  }
  const StringId k_algbw = b.intern("algbw GB/s"), k_busbw = b.intern("busbw GB/s"), k_sim = b.intern("simulated");
  for (const auto& [key, times] : span) {
    const auto [step, gpu] = key;
    const CollectiveSpec& spec = workload.collectives[step];
    const uint32_t track = b.track({TrackKind::kGpuStream, process[gpu], static_cast<int32_t>(device[gpu]), spec.stream},
                                   "stream " + std::to_string(spec.stream));
    b.trace().tracks[track].simulated = true;
    const TimeNs start = ps_to_ns(times.first), end = ps_to_ns(times.second);
    const SliceRef ref = b.add_kernel(KernelInfo{});
    std::vector<Arg> args = {{k_sim, ArgValue::of_bool(true)}};
    const double seconds = static_cast<double>(times.second - times.first) * 1e-12;
    if (!spec.compute && seconds > 0) {
      const double algbw = spec.algbw_bytes / seconds;
      args.push_back({k_algbw, ArgValue::of_double(algbw / 1e9)});
      args.push_back({k_busbw, ArgValue::of_double(algbw * spec.busbw_factor / 1e9)});
    }
    const EventRef kernel = b.add_slice(track, start, end - start, b.intern(step_label(spec)), ref, args);
    if (spec.compute) continue;
    CollectiveInfo ci;
    ci.op = spec.op;
    ci.channels = static_cast<uint16_t>(std::min<uint32_t>(spec.channels, 65535));
    ci.rank = gpu;
    ci.group_size = static_cast<int32_t>(spec.gpus.size());
    ci.algorithm = b.intern(spec.algorithm);
    std::string proto = spec.protocol;
    std::transform(proto.begin(), proto.end(), proto.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    ci.protocol = b.intern(proto);
    ci.sequence = step;
    ci.dtype_bytes = 1;
    ci.dtype = b.intern("bytes");
    ci.in_elements = static_cast<uint64_t>(std::llround(spec.bytes));
    ci.out_elements = static_cast<uint64_t>(std::llround(spec.algbw_bytes));
    ci.kernel = kernel;
    b.add_collective(ci);
  }

  // SM lanes: a communicate span per comm actor on its SMs, a compute span per compute op on the
  // compute actor's SMs (capped so a huge run stays loadable).
  constexpr size_t kMaxSmSpans = 2'000'000;
  size_t sm_spans = 0;
  auto lane_span = [&](uint32_t a, TimePs t0, TimePs t1, SmRole role) {
    const Actor& actor = workload.actors[a];
    const uint32_t total = platform.gpu(actor.gpu).sm_count;
    const uint32_t count = std::max<uint32_t>(1, actor.sms ? actor.sms : (role == SmRole::kCompute ? total : 1));
    for (uint32_t k = 0; k < count && sm_spans < kMaxSmSpans; ++k, ++sm_spans) {
      const uint32_t sm = (actor.first_sm + k) % total;
      const uint32_t track = b.track({TrackKind::kSmLane, process[actor.gpu], static_cast<int32_t>(device[actor.gpu]), sm},
                                     "SM " + std::to_string(sm));
      b.trace().tracks[track].simulated = true;
      SmSpanInfo info;
      info.block = actor.channel;
      info.role = role;
      info.tag = actor.collective;
      const TimeNs s0 = ps_to_ns(t0), s1 = ps_to_ns(t1);
      b.add_slice(track, s0, s1 - s0, b.intern(role == SmRole::kCompute ? "compute" : "channel " + std::to_string(actor.channel)),
                  b.add_sm_span(info));
    }
  };
  for (size_t a = 0; a < workload.actors.size(); ++a)
    if (workload.actors[a].role == ActorRole::kCommunication) lane_span(static_cast<uint32_t>(a), result.actors[a].start, result.actors[a].end, SmRole::kCommunicate);
  for (const ComputeSpan& c : result.compute_spans) lane_span(c.actor, c.start, c.end, SmRole::kCompute);
  if (sm_spans >= kMaxSmSpans) b.warn("SM-lane spans capped at " + std::to_string(kMaxSmSpans));

  // Link counters: every link direction touching a GPU, seen from that GPU (tx: leaving it).
  const StringId unit = b.intern("bytes/s");
  for (size_t i = 0; i < platform.resources().size(); ++i) {
    const PlatformResource& r = platform.resources()[i];
    if (r.kind != ResourceKind::kLink) continue;
    const auto& samples = sim.flows().samples(static_cast<uint32_t>(i));
    if (samples.empty()) continue;
    const TopoLink& l = topo.links[r.link];
    const TopoNode& a = topo.nodes[l.a];
    const TopoNode& bnode = topo.nodes[l.b];
    const TopoNode* gpu_end = a.kind == NodeKind::kGpu ? &a : bnode.kind == NodeKind::kGpu ? &bnode : nullptr;
    if (!gpu_end) continue;
    const int32_t g = gpu_end->gpu_index;
    const TopoNode& other = gpu_end == &a ? bnode : a;
    Link link;
    link.src_device = static_cast<uint16_t>(device[g]);
    link.dst_device = other.kind == NodeKind::kGpu ? static_cast<uint16_t>(device[other.gpu_index]) : kNoDevice;
    const bool leaving = (gpu_end == &a) == r.forward;
    link.direction = leaving ? LinkDirection::kTx : LinkDirection::kRx;
    link.medium = l.medium;
    link.port = static_cast<int32_t>(r.link);
    link.capacity_bytes_per_s = r.capacity;
    const uint32_t li = b.add_link(link);
    const uint32_t track = b.track({TrackKind::kLink, process[g], static_cast<int32_t>(device[g]), li}, r.name);
    Track& t = b.trace().tracks[track];
    t.simulated = true;
    t.counter_source = CounterSource::kSimulated;
    t.unit = unit;
    TimeNs last = std::numeric_limits<TimeNs>::min();
    for (const LoadSample& s : samples) {
      const TimeNs ns = ps_to_ns(s.time);
      auto& col = b.trace().tracks[track].counter;
      if (ns == last && !col.value.empty()) col.value.back() = s.load;
      else b.add_counter_sample(track, ns, s.load);
      last = ns;
    }
  }
  return b.finish();
}

}  // namespace parascope::sim
