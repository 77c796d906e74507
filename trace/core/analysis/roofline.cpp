#include "trace/core/analysis/roofline.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "trace/core/analysis/collective_bandwidth.h"
#include "trace/core/analysis/kernel_stats.h"
#include "trace/core/analysis/op_flops.h"
#include "trace/core/json.h"

namespace parascope {

std::string_view to_string(WorkSource s) {
  switch (s) {
    case WorkSource::kNone: return "none";
    case WorkSource::kKernelArgs: return "kernel args";
    case WorkSource::kProfilerFlops: return "PyTorch flops";
    case WorkSource::kOpShapes: return "op shapes";
    case WorkSource::kNvtxPayload: return "NVTX payload";
    case WorkSource::kNvtxOpShapes: return "NVTX op shapes";
  }
  return "?";
}

std::string_view to_string(Bound b) {
  switch (b) {
    case Bound::kUnknown: return "unknown";
    case Bound::kCompute: return "compute";
    case Bound::kHbm: return "HBM";
    case Bound::kLink: return "link";
  }
  return "?";
}

double RooflineCeilings::compute_for(const std::string& dtype) const {
  const bool fp32 = dtype == "float" || dtype == "c10::Float" || dtype == "double" || dtype == "f32";
  return fp32 && fp32_flops > 0 ? fp32_flops : bf16_flops;
}

RooflineCeilings ceilings_from(const Topology& topology, int32_t gpu_index) {
  RooflineCeilings c;
  const int32_t node = topology.gpu_node(gpu_index);
  if (node < 0) return c;
  const TopoNode& n = topology.nodes[static_cast<size_t>(node)];
  if (n.gpu) {
    c.gpu = n.gpu->model;
    c.bf16_flops = n.gpu->bf16_flops;
    c.fp32_flops = n.gpu->fp32_flops;
    c.hbm_bytes_per_s = n.gpu->hbm_bytes_per_s;
  }
  double nvlink = 0, pcie = 0;
  for (const TopoLink& l : topology.links) {
    if (static_cast<int32_t>(l.a) != node && static_cast<int32_t>(l.b) != node) continue;
    if (l.medium == Medium::kNvLink) nvlink += l.bandwidth_bytes_per_s;
    else if (l.medium == Medium::kPcie) pcie += l.bandwidth_bytes_per_s;
  }
  c.link_bytes_per_s = nvlink > 0 ? nvlink : pcie;
  if (!topology.name.empty()) c.gpu += " (" + topology.name + ")";
  return c;
}

RooflineCeilings ceilings_with_datasheet(const Topology& machine, const std::vector<Topology>& others) {
  RooflineCeilings c = ceilings_from(machine, 0);
  const int32_t node = machine.gpu_node(0);
  if (node < 0 || !machine.nodes[static_cast<size_t>(node)].gpu) return c;
  const std::string& model = machine.nodes[static_cast<size_t>(node)].gpu->model;
  for (const Topology& o : others) {
    if (o.calibration != Calibration::kDatasheet) continue;
    const int32_t g = o.gpu_node(0);
    if (g < 0 || !o.nodes[static_cast<size_t>(g)].gpu || o.nodes[static_cast<size_t>(g)].gpu->model != model) continue;
    const GpuSpec& spec = *o.nodes[static_cast<size_t>(g)].gpu;
    bool raised = false;
    if (spec.bf16_flops > c.bf16_flops) c.bf16_flops = spec.bf16_flops, raised = true;
    if (spec.fp32_flops > c.fp32_flops) c.fp32_flops = spec.fp32_flops, raised = true;
    if (spec.hbm_bytes_per_s > c.hbm_bytes_per_s) c.hbm_bytes_per_s = spec.hbm_bytes_per_s, raised = true;
    if (raised) c.peaks_from = "datasheet (" + o.name + ")";
    break;
  }
  return c;
}

RooflinePlacement place_on_roofline(double flops, double hbm_bytes, double link_bytes, double seconds,
                                    double compute_ceiling, const RooflineCeilings& c) {
  RooflinePlacement p;
  if (seconds > 0 && flops > 0) p.achieved_flops_per_s = flops / seconds;
  if (flops <= 0) return p;
  if (hbm_bytes > 0) p.hbm_intensity = flops / hbm_bytes;
  if (link_bytes > 0) p.link_intensity = flops / link_bytes;
  // the lowest ceiling binds; ties go to compute, then HBM
  auto consider = [&](double ceiling, Bound b) {
    if (ceiling <= 0) return;
    if (p.bound == Bound::kUnknown || ceiling < p.attainable_flops_per_s) {
      p.attainable_flops_per_s = ceiling;
      p.bound = b;
    }
  };
  consider(compute_ceiling, Bound::kCompute);
  if (p.hbm_intensity > 0) consider(p.hbm_intensity * c.hbm_bytes_per_s, Bound::kHbm);
  if (p.link_intensity > 0) consider(p.link_intensity * c.link_bytes_per_s, Bound::kLink);
  if (p.attainable_flops_per_s > 0) p.efficiency = p.achieved_flops_per_s / p.attainable_flops_per_s;
  return p;
}

namespace {

double element_size(std::string_view t) {
  if (t == "c10::BFloat16" || t == "c10::Half" || t == "short int") return 2;
  if (t == "float" || t == "int" || t == "unsigned int") return 4;
  if (t == "double" || t == "long int" || t == "long long int" || t == "c10::complex<float>") return 8;
  if (t.find("Float8") != std::string_view::npos || t == "signed char" || t == "unsigned char" || t == "bool") return 1;
  return 0;
}

// A tensor's dims; empty for anything else (scalars, tensor lists: nested arrays).
TensorDims dims_of(const JsonValue& v) {
  TensorDims out;
  if (!v.is_array()) return out;
  for (const JsonValue& d : v.items()) {
    if (!d.is_number()) return {};
    out.push_back(static_cast<int64_t>(d.as_double()));
  }
  return out;
}

}  // namespace

bool op_shape_work(std::string_view op, std::string_view dims_json, std::string_view types_json, KernelWork& out) {
  // Most ops around a launch have no shapes at all: answered without a parse. An exception per op
  // cost ~1 us each and serialises threads on the unwinder's lock (it stalled the GUI thread while
  // the roofline dock computed in the background; docs/reliability.md, "4. Scale").
  const size_t first = dims_json.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || dims_json[first] != '[') return false;
  JsonValue dims, types;
  try {
    dims = parse_json(dims_json, "Input Dims");
    types = types_json.empty() ? JsonValue::array() : parse_json(types_json, "Input type");
  } catch (const std::exception&) {
    return false;
  }
  if (!dims.is_array()) return false;
  std::vector<TensorDims> inputs;
  for (const JsonValue& d : dims.items()) inputs.push_back(dims_of(d));
  std::string dtype;
  if (types.is_array())
    for (const JsonValue& t : types.items())
      if (t.is_string() && element_size(t.text()) > 0) {
        dtype = t.text();
        break;
      }
  const OpFlops f = op_flops(op, inputs);
  if (f.status != OpFlopsStatus::kCounted) return false;
  out.flops = f.flops;
  out.flop_source = WorkSource::kOpShapes;
  out.dtype = dtype;
  out.op = std::string(op);
  const double es = element_size(dtype);
  out.hbm_bytes = es > 0 && f.elements_known ? (f.elements_read + f.elements_written) * es : 0;
  return true;
}

namespace {

uint64_t key(EventRef r) { return (static_cast<uint64_t>(r.track) << 32) | r.index; }

double numeric_arg(const Trace& t, uint32_t set, std::string_view name, bool* found) {
  if (set == kNone32) return 0;
  for (const Arg& a : t.args.get(set)) {
    if (t.str(a.key) != name) continue;
    const ArgValue v = a.value;
    *found = true;
    switch (v.type) {
      case ArgValue::Type::kInt: return static_cast<double>(v.i);
      case ArgValue::Type::kUInt: return static_cast<double>(v.u);
      case ArgValue::Type::kDouble: return v.d;
      default: *found = false; return 0;
    }
  }
  return 0;
}

std::string_view string_arg(const Trace& t, uint32_t set, std::string_view name) {
  if (set == kNone32) return {};
  for (const Arg& a : t.args.get(set))
    if (t.str(a.key) == name && (a.value.type == ArgValue::Type::kJson || a.value.type == ArgValue::Type::kString)) return t.str(a.value.s);
  return {};
}

bool contains_flop(std::string_view s) {
  for (size_t i = 0; i + 4 <= s.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) == 'f' && std::tolower(static_cast<unsigned char>(s[i + 1])) == 'l' &&
        std::tolower(static_cast<unsigned char>(s[i + 2])) == 'o' && std::tolower(static_cast<unsigned char>(s[i + 3])) == 'p')
      return true;
  return false;
}

double nvtx_payload(const NvtxInfo& n) {
  const uint64_t bits = n.payload.get();
  switch (n.payload_type) {
    case 1: return static_cast<double>(bits);
    case 2: return static_cast<double>(static_cast<int64_t>(bits));
    case 3: {
      double d;
      std::memcpy(&d, &bits, sizeof d);
      return d;
    }
    case 4: return static_cast<double>(static_cast<uint32_t>(bits));
    case 5: return static_cast<double>(static_cast<int32_t>(bits));
    case 6: {
      float f;
      const auto lo = static_cast<uint32_t>(bits);
      std::memcpy(&f, &lo, sizeof f);
      return f;
    }
    default: return 0;
  }
}

// Work from the slices enclosing the launch call on its CPU thread, innermost first; `op_range`: the
// innermost PyTorch NVTX op range among them (invalid: none), for NvtxOpWork.
void work_from_launch(const Trace& t, EventRef call, KernelWork& w, NvtxOpWork& ops, EventRef& op_range) {
  const Track& tr = t.tracks[call.track];
  const auto& s = tr.slices;
  int depth = s.depth_of(call.index);
  const TimeNs at = s.start[call.index], end = s.end(call.index);
  constexpr size_t kMaxWalk = 20000;  // enclosing slices start before the call; stop looking far back
  for (size_t i = call.index, walked = 0; i-- > 0 && depth > 0 && walked < kMaxWalk; ++walked) {
    if (s.depth_of(i) >= depth || s.end(i) < end || s.start[i] > at) continue;
    depth = s.depth_of(i);
    const SliceRef r = s.ref[i];
    if (r.kind() == SliceKind::kCpuOp && r.has_detail() && w.flop_source == WorkSource::kNone) {
      const CpuOpInfo& op = t.cpu_ops[r.index()];
      const std::string_view name = t.str(s.name[i]);
      const uint32_t set = s.args_of(i);
      KernelWork shapes;
      const bool has_shapes = op_shape_work(name, string_arg(t, set, "Input Dims"), string_arg(t, set, "Input type"), shapes);
      if (op.flops.get() > 0) {
        w.flops = static_cast<double>(op.flops.get());
        w.flop_source = WorkSource::kProfilerFlops;
        w.op = std::string(name);
        if (has_shapes) {
          w.hbm_bytes = shapes.hbm_bytes;
          w.dtype = shapes.dtype;
        }
      } else if (has_shapes) {
        const double link = w.link_bytes;
        w = shapes;
        w.link_bytes = link;
      }
    } else if (r.kind() == SliceKind::kNvtxRange && !op_range.valid() && ops.is_op_range({call.track, static_cast<uint32_t>(i)})) {
      op_range = {call.track, static_cast<uint32_t>(i)};
    } else if (r.kind() == SliceKind::kNvtxRange && r.has_detail() && w.flop_source == WorkSource::kNone &&
               contains_flop(t.str(s.name[i]))) {
      const double v = nvtx_payload(t.nvtx[r.index()]);
      if (v > 0) {
        w.flops = v;
        w.flop_source = WorkSource::kNvtxPayload;
        w.op = std::string(t.str(s.name[i]));
      }
    }
  }
}

}  // namespace

Roofline compute_roofline(const Trace& trace, const SliceClassifier& classify, const RooflineCeilings& ceilings) {
  Roofline out;
  out.ceilings = ceilings;
  std::unordered_map<uint64_t, EventRef> launch;  // kernel → the API call that launched it
  for (const Flow& f : trace.flows)
    if (f.kind == FlowKind::kLaunch && f.from.valid() && f.to.valid()) launch.emplace(key(f.to), f.from);
  std::unordered_map<uint64_t, double> link_bytes;
  for (const CollectiveInfo& c : trace.collectives)
    if (c.kernel.valid()) link_bytes[key(c.kernel)] += static_cast<double>(collective_wire_bytes(trace, c));
  std::unordered_map<StringId, size_t> by_name;
  NvtxOpWork nvtx_ops(trace);
  std::vector<std::pair<size_t, EventRef>> from_op_ranges;  // (point, kernel) awaiting NvtxOpWork
  auto add_flops = [&](RooflinePoint& p, TimeNs dur, const KernelWork& w) {
    ++p.with_flops;
    ++out.kernels_with_flops;
    p.flops_ns += dur;
    p.flops += w.flops;
    p.hbm_bytes += w.hbm_bytes;
    if (p.flop_source == WorkSource::kNone) {
      p.flop_source = w.flop_source;
      p.dtype = w.dtype;
      p.op = w.op;
    }
  };
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& tr = trace.tracks[ti];
    if (tr.key.kind != TrackKind::kGpuStream) continue;
    const auto& s = tr.slices;
    for (uint32_t i = 0; i < s.size(); ++i) {
      if (s.ref[i].kind() != SliceKind::kKernel) continue;
      if (trace.str(s.name[i]) == kCollectorClockSyncKernel) {
        ++out.collector_kernels;
        continue;
      }
      const EventRef ref{ti, i};
      KernelWork w;
      const uint32_t set = s.args_of(i);
      bool found = false;
      const double f = numeric_arg(trace, set, "flops", &found);
      if (found && f > 0) {
        w.flops = f;
        w.flop_source = WorkSource::kKernelArgs;
        bool hb = false;
        w.hbm_bytes = numeric_arg(trace, set, "hbm_bytes", &hb);
        if (!hb) w.hbm_bytes = numeric_arg(trace, set, "bytes", &hb);
      }
      bool lb = false;
      w.link_bytes = numeric_arg(trace, set, "link_bytes", &lb);
      if (const auto it = link_bytes.find(key(ref)); it != link_bytes.end()) w.link_bytes += it->second;
      EventRef op_range;
      if (w.flop_source == WorkSource::kNone)
        if (const auto it = launch.find(key(ref)); it != launch.end() && it->second.track < trace.tracks.size())
          work_from_launch(trace, it->second, w, nvtx_ops, op_range);
      auto [slot, fresh] = by_name.try_emplace(s.name[i], out.points.size());
      if (fresh) {
        RooflinePoint p;
        p.name = s.name[i];
        p.category = classify.category(ti, i);
        p.example = ref;
        out.points.push_back(p);
      }
      RooflinePoint& p = out.points[slot->second];
      ++p.count;
      ++out.kernels;
      p.total_ns += s.dur[i];
      p.link_bytes += w.link_bytes;
      if (w.flop_source != WorkSource::kNone) {
        add_flops(p, s.dur[i], w);
      } else if (op_range.valid()) {
        nvtx_ops.add_kernel(ref, op_range);
        from_op_ranges.emplace_back(slot->second, ref);
      }
    }
  }
  // the kernels whose only source is an NVTX op range: attributed once every kernel of each op is known
  const auto op_work = nvtx_ops.attribute();
  for (const auto& [point, ref] : from_op_ranges) {
    const OpRangeWork& o = op_work.at(key(ref));
    RooflinePoint& p = out.points[point];
    if (o.outcome == OpRangeOutcome::kCounted) {
      KernelWork w;
      w.flops = o.flops;
      w.flop_source = WorkSource::kNvtxOpShapes;
      w.op = std::string(o.op);
      add_flops(p, trace.tracks[ref.track].slices.dur[ref.index], w);
      continue;
    }
    if (o.outcome == OpRangeOutcome::kWithoutShapes) ++out.kernels_in_ops_without_shapes;
    if (!p.op_range_gap) {
      p.op_range_gap = o.outcome;
      p.gap_op = std::string(o.op);
    }
  }
  for (RooflinePoint& p : out.points) {
    // link bytes of the instances with FLOPs: all of them when every instance has FLOPs
    const double link_share = p.count ? p.link_bytes * static_cast<double>(p.with_flops) / static_cast<double>(p.count) : 0;
    p.placement = place_on_roofline(p.flops, p.hbm_bytes, link_share, static_cast<double>(p.flops_ns) * 1e-9,
                                    ceilings.compute_for(p.dtype), ceilings);
    if (p.total_ns > 0) p.link_bytes_per_s = p.link_bytes / (static_cast<double>(p.total_ns) * 1e-9);
  }
  std::sort(out.points.begin(), out.points.end(), [&](const RooflinePoint& a, const RooflinePoint& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : trace.str(a.name) < trace.str(b.name);
  });
  return out;
}

Roofline compute_roofline(const Trace& trace, const RooflineCeilings& ceilings) {
  return compute_roofline(trace, SliceClassifier(trace), ceilings);
}

namespace {

std::string no_flops_text(const RooflinePoint& p) {
  const std::string op = p.gap_op.empty() ? "the op" : p.gap_op;
  if (!p.op_range_gap) return "no FLOP count";
  switch (*p.op_range_gap) {
    case OpRangeOutcome::kWithoutShapes: return "no FLOP count: " + op + "'s NVTX range has no shapes";
    case OpRangeOutcome::kNoFormula: return "no FLOP count: no formula for " + op;
    case OpRangeOutcome::kShapesDoNotFit: return "no FLOP count: " + op + "'s shapes fit no formula";
    case OpRangeOutcome::kOnLongerKernel: return "no FLOP count: " + op + "'s FLOPs are on its longest kernel";
    case OpRangeOutcome::kCounted: break;
  }
  return "no FLOP count";
}

}  // namespace

std::string roofline_flop_coverage(const Roofline& r) {
  std::string s = std::to_string(r.kernels_with_flops) + " of " + std::to_string(r.kernels) + " kernels have a FLOP count";
  if (r.kernels_in_ops_without_shapes > 0)
    s += "; " + std::to_string(r.kernels_in_ops_without_shapes) +
         " were launched inside PyTorch NVTX op ranges recorded without shapes (record them with parascope-cli record "
         "--op-shapes, nsys --pytorch=autograd-shapes-nvtx or emit_nvtx(record_shapes=True))";
  return s;
}

DataTable roofline_table(const Trace& trace, const Roofline& r) {
  DataTable t;
  t.id = "roofline";
  t.title = "Roofline: kernels against the compute, HBM and link ceilings";
  auto rate = [](double v) { return v > 0 ? format_flops(v) : std::string("?"); };
  t.note = r.ceilings.gpu + ": compute " + rate(r.ceilings.bf16_flops) + " (bf16), HBM " +
           (r.ceilings.hbm_bytes_per_s > 0 ? format_rate(r.ceilings.hbm_bytes_per_s) : "?") + ", link " +
           (r.ceilings.link_bytes_per_s > 0 ? format_rate(r.ceilings.link_bytes_per_s) : "?") + " per direction; " +
           (r.ceilings.peaks_from.empty() ? "" : "compute/HBM peaks from the " + r.ceilings.peaks_from + "; ") +
           roofline_flop_coverage(r) +
           (r.collector_kernels ? "; the collector's " + std::string(kCollectorClockSyncKernel) + " (" +
                                      std::to_string(r.collector_kernels) + ") left out"
                                : std::string());
  t.column("kernel").column("kind").column("count", "", true).column("time", "ns", true).column("FLOPs", "FLOP", true)
      .column("achieved", "FLOP/s", true).column("HBM bytes", "bytes", true).column("link bytes", "bytes", true)
      .column("FLOP/HBM byte", "FLOP/byte", true).column("FLOP/link byte", "FLOP/byte", true)
      .column("attainable", "FLOP/s", true).column("of attainable", "fraction", true).column("bound").column("link rate", "bytes/s", true)
      .column("FLOPs from");
  for (const RooflinePoint& p : r.points) {
    const RooflinePlacement& pl = p.placement;
    const bool f = p.with_flops > 0;
    auto opt = [](bool ok, DataCell c) { return ok ? c : text_cell(""); };
    std::string from = f ? std::string(to_string(p.flop_source)) + (p.op.empty() ? "" : " (" + p.op + ")") : no_flops_text(p);
    if (f && p.with_flops < p.count) from += ", " + std::to_string(p.with_flops) + " of " + std::to_string(p.count);
    t.add_row({text_cell(std::string(trace.str(p.name))), text_cell(p.category == Category::kCommunication ? "comm" : "compute"),
               int_cell(p.count), duration_cell(p.total_ns), opt(f, flop_count_cell(p.flops)),
               opt(f, flops_cell(pl.achieved_flops_per_s)), opt(p.hbm_bytes > 0, bytes_cell(p.hbm_bytes)),
               opt(p.link_bytes > 0, bytes_cell(p.link_bytes)), opt(pl.hbm_intensity > 0, number_cell(pl.hbm_intensity, 1)),
               opt(pl.link_intensity > 0, number_cell(pl.link_intensity, 1)),
               opt(pl.attainable_flops_per_s > 0, flops_cell(pl.attainable_flops_per_s)),
               opt(pl.attainable_flops_per_s > 0, percent_cell(pl.efficiency)), text_cell(f ? std::string(to_string(pl.bound)) : ""),
               opt(p.link_bytes > 0, rate_cell(p.link_bytes_per_s)), text_cell(from)});
  }
  return t;
}

}  // namespace parascope
