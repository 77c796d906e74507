// A task's communication-aware roofline bound on a machine: no implementation can run one
// iteration faster than the largest of
//   compute = FLOPs / peak FLOP/s,   HBM = bytes / HBM bandwidth,
//   link    = Σ over its collectives (latency floor + bytes one rank sends / link bandwidth),
// where the latency floor of a collective is the machine's fixed cost of a communication kernel
// (kernel_latency_ns: the launch floor) plus one cross-GPU signal (signal_latency_ns, else the
// route's link latencies). At PKB's default sizes (M = N = 1024 bf16: 2 MiB) that latency is most
// of the link term. The gap is PKB's measured time ÷ the bound; the binding resource is the term
// that sets it. FLOPs and bytes are those the shapes account for (task_ops.h), so with ops lacking
// shapes the bound stays a lower bound.
#pragma once

#include <string>

#include "pkb/task/task_ops.h"
#include "trace/core/analysis/roofline.h"
#include "trace/core/topology.h"

namespace parascope::pkb {

enum class Resource : uint8_t { kUnknown, kCompute, kHbm, kLink };
std::string_view to_string(Resource r);  // "unknown", "compute", "HBM", "link"

struct TaskBound {
  double compute_s = 0, hbm_s = 0, link_s = 0;
  double link_latency_s = 0, link_bytes_s = 0;  // the link term's two parts
  double latency_floor_s = 0;                   // per collective
  double bound_s = 0;
  Resource binds = Resource::kUnknown;
  double reference_s = 0;
  double gap = 0;                               // reference / bound; 0 when either is unknown
  bool complete = true;                         // every compute/memory op's work is known (else the bound leaves some out)
  RooflineCeilings ceilings;
  std::string note;
};

// Per collective: the machine's latency floor (seconds).
double collective_latency_floor_s(const Topology& machine);

TaskBound task_bound(const TaskOps& ops, double reference_s, const Topology& machine, const RooflineCeilings& ceilings,
                     const std::string& dtype);

}  // namespace parascope::pkb
