#include "pkb/task/task_bound.h"

#include <algorithm>

namespace parascope::pkb {

std::string_view to_string(Resource r) {
  switch (r) {
    case Resource::kCompute: return "compute";
    case Resource::kHbm: return "HBM";
    case Resource::kLink: return "link";
    case Resource::kUnknown: break;
  }
  return "unknown";
}

double collective_latency_floor_s(const Topology& t) {
  double kernel = 0, signal = 0, route = 0;
  for (const TopoNode& n : t.nodes)
    if (n.gpu) {
      kernel = n.gpu->kernel_latency_ns;
      signal = n.gpu->signal_latency_ns;
      break;
    }
  // GPU -> switch -> GPU (or a direct link): twice the first GPU link's latency
  for (const TopoLink& l : t.links) {
    const bool gpu_end = (t.nodes[l.a].gpu || t.nodes[l.b].gpu);
    if (gpu_end) {
      const bool direct = t.nodes[l.a].gpu && t.nodes[l.b].gpu;
      route = l.latency_ns * (direct ? 1 : 2);
      break;
    }
  }
  return (kernel + std::max(signal, route)) * 1e-9;
}

TaskBound task_bound(const TaskOps& ops, double reference_s, const Topology& machine, const RooflineCeilings& c,
                     const std::string& dtype) {
  TaskBound b;
  b.ceilings = c;
  b.reference_s = reference_s;
  const double peak = c.compute_for(dtype == "float32" ? "float" : "c10::BFloat16");
  if (peak > 0) b.compute_s = ops.flops / peak;
  if (c.hbm_bytes_per_s > 0) b.hbm_s = ops.hbm_bytes / c.hbm_bytes_per_s;
  b.latency_floor_s = collective_latency_floor_s(machine);
  for (const CollectiveUse& u : ops.collectives) {
    if (u.group_size < 2) continue;  // one rank: nothing crosses a link
    b.link_latency_s += b.latency_floor_s;
    if (c.link_bytes_per_s > 0) b.link_bytes_s += static_cast<double>(u.wire_bytes) / c.link_bytes_per_s;
  }
  b.link_s = b.link_latency_s + b.link_bytes_s;
  b.bound_s = std::max({b.compute_s, b.hbm_s, b.link_s});
  if (b.bound_s > 0) {
    b.binds = b.bound_s == b.link_s ? Resource::kLink : b.bound_s == b.hbm_s ? Resource::kHbm : Resource::kCompute;
    if (reference_s > 0) b.gap = reference_s / b.bound_s;
  } else {
    b.note = "no FLOPs, bytes or collectives known for this task";
  }
  b.complete = ops.without_shapes == 0;
  if (ops.without_shapes > 0)
    b.note = std::to_string(ops.without_shapes) + " of " + std::to_string(ops.with_shapes + ops.without_shapes) +
             " compute/memory ops have no shape: the bound leaves their work out";
  return b;
}

}  // namespace parascope::pkb
