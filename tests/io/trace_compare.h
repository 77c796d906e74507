// Field-by-field comparison of two traces for round-trip tests. Strings are compared by text
// (string ids differ between tables), detail records by value (table order may differ), launch
// configs through their kernels. Returns the first difference as text, "" when equal.
// source_format and source_files are not compared: they say where a trace was read from.
#pragma once

#include <cstring>
#include <ostream>
#include <sstream>
#include <tuple>
#include <string>

#include "trace/core/trace.h"

namespace parascope {
// EventRefs in difference messages.
inline std::ostream& operator<<(std::ostream& o, EventRef r) { return o << "(" << r.track << ", " << r.index << ")"; }
}  // namespace parascope

namespace parascope::test {

class TraceComparer {
 public:
  TraceComparer(const Trace& a, const Trace& b) : a_(a), b_(b) {}

  std::string difference() {
    try {
      compare();
    } catch (const std::string& d) {
      return d;
    }
    return {};
  }

 private:
  template <class T>
  void eq(const T& x, const T& y, const std::string& what) {
    if (!(x == y)) {
      std::ostringstream o;
      o << what << " differs";
      if constexpr (requires(std::ostream& os) { os << x; }) o << ": " << x << " vs " << y;
      throw o.str();
    }
  }
  void str(StringId x, StringId y, const std::string& what) {
    eq(std::string(a_.str(x)), std::string(b_.str(y)), what);
  }
  void compare() {
    eq(a_.processes.size(), b_.processes.size(), "process count");
    for (size_t i = 0; i < a_.processes.size(); ++i) {
      const Process &x = a_.processes[i], &y = b_.processes[i];
      const std::string w = "process " + std::to_string(i) + " ";
      eq(x.rank, y.rank, w + "rank");
      eq(x.pid, y.pid, w + "pid");
      eq(x.host, y.host, w + "host");
      eq(x.name, y.name, w + "name");
      eq(x.source, y.source, w + "source");
      eq(x.clock_offset_ns, y.clock_offset_ns, w + "clock offset");
      eq(x.clock_offset_reason, y.clock_offset_reason, w + "clock offset reason");
    }
    eq(a_.devices.size(), b_.devices.size(), "device count");
    for (size_t i = 0; i < a_.devices.size(); ++i) {
      const Device &x = a_.devices[i], &y = b_.devices[i];
      const std::string w = "device " + std::to_string(i) + " ";
      eq(x.process, y.process, w + "process");
      eq(x.ordinal, y.ordinal, w + "ordinal");
      eq(x.name, y.name, w + "name");
      eq(x.pci_bus_id, y.pci_bus_id, w + "pci bus id");
      eq(x.uuid, y.uuid, w + "uuid");
      eq(x.sm_count, y.sm_count, w + "sm count");
      eq(x.compute_major, y.compute_major, w + "compute major");
      eq(x.compute_minor, y.compute_minor, w + "compute minor");
      eq(x.memory_bytes, y.memory_bytes, w + "memory");
      eq(x.topology_gpu, y.topology_gpu, w + "topology gpu");
    }
    eq(a_.links.size(), b_.links.size(), "link count");
    for (size_t i = 0; i < a_.links.size(); ++i) eq(a_.links[i] == b_.links[i], true, "link " + std::to_string(i));
    compare_topology();
    eq(a_.tracks.size(), b_.tracks.size(), "track count");
    for (size_t i = 0; i < a_.tracks.size(); ++i) compare_track(i);
    eq(a_.flows.size(), b_.flows.size(), "flow count");
    for (size_t i = 0; i < a_.flows.size(); ++i) {
      const std::string w = "flow " + std::to_string(i) + " ";
      eq(a_.flows[i].from, b_.flows[i].from, w + "from");
      eq(a_.flows[i].to, b_.flows[i].to, w + "to");
      eq(a_.flows[i].kind, b_.flows[i].kind, w + "kind");
    }
    eq(a_.collectives.size(), b_.collectives.size(), "collective count");
    for (size_t i = 0; i < a_.collectives.size(); ++i) {
      const CollectiveInfo &x = a_.collectives[i], &y = b_.collectives[i];
      const std::string w = "collective " + std::to_string(i) + " ";
      eq(x.op, y.op, w + "op");
      eq(x.dtype_bytes, y.dtype_bytes, w + "dtype bytes");
      eq(x.channels, y.channels, w + "channels");
      eq(x.rank, y.rank, w + "rank");
      eq(x.group_size, y.group_size, w + "group size");
      str(x.dtype, y.dtype, w + "dtype");
      str(x.group, y.group, w + "group");
      str(x.group_ranks, y.group_ranks, w + "group ranks");
      str(x.algorithm, y.algorithm, w + "algorithm");
      str(x.protocol, y.protocol, w + "protocol");
      eq(x.sequence, y.sequence, w + "sequence");
      eq(x.in_elements, y.in_elements, w + "in elements");
      eq(x.out_elements, y.out_elements, w + "out elements");
      eq(x.kernel, y.kernel, w + "kernel");
      eq(x.cpu_op, y.cpu_op, w + "cpu op");
      eq(x.peer, y.peer, w + "peer");
    }
    eq(a_.warnings, b_.warnings, "warnings");
    eq(a_.notes, b_.notes, "notes");
  }

  void compare_topology() {
    eq(a_.topology.has_value(), b_.topology.has_value(), "topology presence");
    if (!a_.topology) return;
    const Topology &x = *a_.topology, &y = *b_.topology;
    eq(x.name, y.name, "topology name");
    eq(x.description, y.description, "topology description");
    eq(x.calibration, y.calibration, "topology calibration");
    eq(x.calibration_source, y.calibration_source, "topology calibration source");
    eq(x.nodes.size(), y.nodes.size(), "topology node count");
    for (size_t i = 0; i < x.nodes.size(); ++i) {
      const TopoNode &n = x.nodes[i], &m = y.nodes[i];
      const std::string w = "topology node " + std::to_string(i) + " ";
      eq(n.name, m.name, w + "name");
      eq(n.kind, m.kind, w + "kind");
      eq(n.host, m.host, w + "host");
      eq(n.gpu_index, m.gpu_index, w + "gpu index");
      eq(n.nic_bytes_per_s, m.nic_bytes_per_s, w + "nic rate");
      eq(n.gpu.has_value(), m.gpu.has_value(), w + "gpu presence");
      if (n.gpu) {
        const GpuSpec &g = *n.gpu, &h = *m.gpu;
        eq(g.model, h.model, w + "model");
        eq(g.sm_count, h.sm_count, w + "sm count");
        eq(g.hbm_bytes_per_s, h.hbm_bytes_per_s, w + "hbm");
        eq(g.bf16_flops, h.bf16_flops, w + "bf16");
        eq(g.fp32_flops, h.fp32_flops, w + "fp32");
        eq(g.memory_bytes, h.memory_bytes, w + "memory");
        eq(g.copy_engine.count, h.copy_engine.count, w + "ce count");
        eq(g.copy_engine.setup_ns, h.copy_engine.setup_ns, w + "ce setup");
        eq(g.copy_engine.rate_bytes_per_s, h.copy_engine.rate_bytes_per_s, w + "ce rate");
        for (auto [p, q, name] : {std::tuple{&g.tma, &h.tma, "tma"}, std::tuple{&g.ldst, &h.ldst, "ldst"},
                                  std::tuple{&g.multimem, &h.multimem, "multimem"}}) {
          eq(p->per_sm_bytes_per_s, q->per_sm_bytes_per_s, w + name + " per sm");
          eq(p->cap_bytes_per_s, q->cap_bytes_per_s, w + name + " cap");
          eq(p->setup_ns, q->setup_ns, w + name + " setup");
        }
        eq(g.comm_interference, h.comm_interference, w + "interference");
      }
      eq(n.sw.has_value(), m.sw.has_value(), w + "switch presence");
      if (n.sw) {
        eq(n.sw->multicast, m.sw->multicast, w + "multicast");
        eq(n.sw->in_switch_reduction, m.sw->in_switch_reduction, w + "in-switch reduction");
        eq(n.sw->crossbar_bytes_per_s, m.sw->crossbar_bytes_per_s, w + "crossbar");
      }
    }
    eq(x.links.size(), y.links.size(), "topology link count");
    for (size_t i = 0; i < x.links.size(); ++i) {
      const TopoLink &l = x.links[i], &k = y.links[i];
      const std::string w = "topology link " + std::to_string(i) + " ";
      eq(l.a, k.a, w + "a");
      eq(l.b, k.b, w + "b");
      eq(l.medium, k.medium, w + "medium");
      eq(l.lanes, k.lanes, w + "lanes");
      eq(l.bandwidth_bytes_per_s, k.bandwidth_bytes_per_s, w + "bandwidth");
      eq(l.latency_ns, k.latency_ns, w + "latency");
      eq(l.name, k.name, w + "name");
    }
  }

  void compare_track(size_t i) {
    const Track &x = a_.tracks[i], &y = b_.tracks[i];
    const std::string w = "track " + std::to_string(i) + " ";
    eq(x.key.kind, y.key.kind, w + "kind");
    eq(x.key.process, y.key.process, w + "process");
    eq(x.key.device, y.key.device, w + "device");
    const bool xt = x.key.id >= (int64_t{1} << 62), yt = y.key.id >= (int64_t{1} << 62);
    eq(xt, yt, w + "id is text");
    if (xt) str(static_cast<StringId>(x.key.id - (int64_t{1} << 62)), static_cast<StringId>(y.key.id - (int64_t{1} << 62)), w + "id text");
    else eq(x.key.id, y.key.id, w + "id");
    str(x.name, y.name, w + "name");
    eq(x.parent, y.parent, w + "parent");
    eq(x.simulated, y.simulated, w + "simulated");
    eq(x.counter_source, y.counter_source, w + "counter source");
    str(x.unit, y.unit, w + "unit");
    eq(x.max_depth, y.max_depth, w + "max depth");
    const SliceColumns &s = x.slices, &t = y.slices;
    eq(s.size(), t.size(), w + "slice count");
    eq(s.depth, t.depth, w + "depths");
    for (size_t j = 0; j < s.size(); ++j) {
      const std::string v = w + "slice " + std::to_string(j) + " ";
      eq(s.start[j], t.start[j], v + "start");
      eq(s.dur[j], t.dur[j], v + "dur");
      str(s.name[j], t.name[j], v + "name");
      eq(s.ref[j].kind(), t.ref[j].kind(), v + "kind");
      eq(s.ref[j].has_detail(), t.ref[j].has_detail(), v + "has detail");
      if (s.ref[j].has_detail()) compare_detail(s.ref[j], t.ref[j], v);
      const auto aa = a_.args.get(s.args_of(j)), ba = b_.args.get(t.args_of(j));
      eq(aa.size(), ba.size(), v + "arg count");
      for (size_t k = 0; k < aa.size(); ++k) {
        str(aa[k].key, ba[k].key, v + "arg key");
        eq(aa[k].value.type, ba[k].value.type, v + "arg type");
        if (aa[k].value.type == ArgValue::Type::kString || aa[k].value.type == ArgValue::Type::kJson)
          str(aa[k].value.s, ba[k].value.s, v + "arg text");
        else
          eq(aa[k].value == ba[k].value, true, v + "arg value");
      }
    }
    eq(x.counter.time, y.counter.time, w + "counter times");
    eq(x.counter.value.size(), y.counter.value.size(), w + "counter value count");
    for (size_t j = 0; j < x.counter.value.size(); ++j)
      eq(std::memcmp(&x.counter.value[j], &y.counter.value[j], 8) == 0, true, w + "counter value " + std::to_string(j));
  }

  void compare_detail(SliceRef r, SliceRef q, const std::string& v) {
    const uint32_t i = r.index(), j = q.index();
    switch (r.kind()) {
      case SliceKind::kKernel: {
        const KernelInfo &x = a_.kernels[i], &y = b_.kernels[j];
        eq(x.correlation, y.correlation, v + "correlation");
        eq(x.graph_id, y.graph_id, v + "graph id");
        eq(x.graph_node_id.get(), y.graph_node_id.get(), v + "graph node id");
        const LaunchConfig* lx = a_.launch_config(x);
        const LaunchConfig* ly = b_.launch_config(y);
        eq(lx != nullptr, ly != nullptr, v + "launch config presence");
        if (lx) eq(*lx == *ly, true, v + "launch config");
        break;
      }
      case SliceKind::kMemcpy: {
        const MemcpyInfo &x = a_.memcpys[i], &y = b_.memcpys[j];
        eq(x.bytes.get(), y.bytes.get(), v + "bytes");
        eq(x.correlation, y.correlation, v + "correlation");
        eq(x.src_device, y.src_device, v + "src device");
        eq(x.dst_device, y.dst_device, v + "dst device");
        eq(x.copy_kind, y.copy_kind, v + "copy kind");
        eq(x.mechanism, y.mechanism, v + "mechanism");
        eq(x.src_memory, y.src_memory, v + "src memory");
        eq(x.dst_memory, y.dst_memory, v + "dst memory");
        break;
      }
      case SliceKind::kMemset: {
        const MemsetInfo &x = a_.memsets[i], &y = b_.memsets[j];
        eq(x.bytes.get(), y.bytes.get(), v + "bytes");
        eq(x.correlation, y.correlation, v + "correlation");
        eq(x.value, y.value, v + "value");
        eq(x.memory, y.memory, v + "memory");
        break;
      }
      case SliceKind::kSync: {
        const SyncInfo &x = a_.syncs[i], &y = b_.syncs[j];
        eq(x.correlation, y.correlation, v + "correlation");
        eq(x.event_id, y.event_id, v + "event id");
        eq(x.stream, y.stream, v + "stream");
        eq(x.kind, y.kind, v + "sync kind");
        break;
      }
      case SliceKind::kNvtxRange: {
        const NvtxInfo &x = a_.nvtx[i], &y = b_.nvtx[j];
        str(x.domain, y.domain, v + "domain");
        str(x.category, y.category, v + "category");
        eq(x.color_argb, y.color_argb, v + "colour");
        eq(x.payload.get(), y.payload.get(), v + "payload");
        eq(x.payload_type, y.payload_type, v + "payload type");
        break;
      }
      case SliceKind::kCpuOp: {
        const CpuOpInfo &x = a_.cpu_ops[i], &y = b_.cpu_ops[j];
        eq(x.external_id.get(), y.external_id.get(), v + "external id");
        eq(x.flops.get(), y.flops.get(), v + "flops");
        eq(x.sequence, y.sequence, v + "sequence");
        break;
      }
      case SliceKind::kRuntimeApi: {
        const ApiInfo &x = a_.api_calls[i], &y = b_.api_calls[j];
        eq(x.correlation, y.correlation, v + "correlation");
        eq(x.cbid, y.cbid, v + "cbid");
        eq(x.result, y.result, v + "result");
        break;
      }
      case SliceKind::kSmSpan: {
        const SmSpanInfo &x = a_.sm_spans[i], &y = b_.sm_spans[j];
        eq(x.block, y.block, v + "block");
        eq(x.tag, y.tag, v + "tag");
        eq(x.launch_id, y.launch_id, v + "launch id");
        eq(x.kernel, y.kernel, v + "kernel");
        eq(x.warp, y.warp, v + "warp");
        eq(x.role, y.role, v + "role");
        break;
      }
      default: break;
    }
  }

  const Trace& a_;
  const Trace& b_;
};

inline std::string trace_difference(const Trace& a, const Trace& b) { return TraceComparer(a, b).difference(); }

}  // namespace parascope::test
