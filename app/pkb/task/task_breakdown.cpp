#include "pkb/task/task_breakdown.h"

#include <map>

#include "trace/core/analysis/busy_idle.h"

namespace parascope::pkb {

TaskBreakdown task_breakdown(const Trace& t, const TaskWindow& w, const SliceClassifier& classify) {
  TaskBreakdown b;
  b.iterations = static_cast<int>(w.iterations.size());
  if (!w.found || b.iterations == 0 || w.gpu_end <= w.gpu_start) return b;
  double host = 0;
  for (const Iteration& it : w.iterations) host += static_cast<double>(it.host_end - it.host_start);
  b.host_ns = host / b.iterations;
  // the device that ran most of the loop's ops
  std::map<int32_t, size_t> per_device;
  for (const Iteration& it : w.iterations)
    for (const EventRef& r : it.gpu_ops) ++per_device[t.tracks[r.track].key.device];
  size_t most = 0;
  for (const auto& [d, n] : per_device)
    if (n > most && d >= 0) most = n, b.device = d;
  if (b.device < 0) return b;
  BusyIdleOptions o;
  o.window = Interval{w.gpu_start, w.gpu_end};
  const std::vector<BusyIdle> all = busy_idle(device_activity(t, classify), o);
  for (const BusyIdle& x : all) {
    if (static_cast<int32_t>(x.device) != b.device) continue;
    const double n = b.iterations;
    b.window_ns = static_cast<double>(x.window_ns()) / n;
    b.compute_ns = static_cast<double>(x.compute_only_ns) / n;
    b.comm_hidden_ns = static_cast<double>(x.overlapped_ns) / n;
    b.comm_exposed_ns = static_cast<double>(x.communication_only_ns) / n;
    b.memory_ns = static_cast<double>(x.memory_only_ns) / n;
    b.sync_ns = static_cast<double>(x.sync_only_ns) / n;
    b.host_gap_ns = static_cast<double>(x.idle_ns) / n;
  }
  return b;
}

}  // namespace parascope::pkb
