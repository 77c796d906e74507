#include "trace/core/analysis/kernel_stats.h"
#include "trace/core/saturating.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace parascope {

TimeNs nearest_rank_percentile(const std::vector<TimeNs>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double rank = std::ceil(q / 100.0 * static_cast<double>(sorted.size()));
  const size_t i = static_cast<size_t>(std::clamp(rank, 1.0, static_cast<double>(sorted.size()))) - 1;
  return sorted[i];
}

namespace {

struct Accumulator {
  Category category = Category::kCompute;
  std::vector<TimeNs> durations;
};

KernelStatsTable finish_table(const Trace& trace, int32_t device, std::unordered_map<StringId, Accumulator>& acc) {
  KernelStatsTable t;
  t.device = device;
  for (auto& [name, a] : acc) {
    std::sort(a.durations.begin(), a.durations.end());
    KernelStat s;
    s.name = name;
    s.category = a.category;
    s.count = static_cast<int64_t>(a.durations.size());
    for (TimeNs d : a.durations) s.total_ns = add_saturating(s.total_ns, d);
    s.mean_ns = static_cast<double>(s.total_ns) / static_cast<double>(s.count);
    s.min_ns = a.durations.front();
    s.max_ns = a.durations.back();
    s.p50_ns = nearest_rank_percentile(a.durations, 50);
    s.p95_ns = nearest_rank_percentile(a.durations, 95);
    t.kernels += s.count;
    t.total_ns = add_saturating(t.total_ns, s.total_ns);
    t.rows.push_back(s);
  }
  std::sort(t.rows.begin(), t.rows.end(), [&](const KernelStat& a, const KernelStat& b) {
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    return trace.str(a.name) < trace.str(b.name);
  });
  return t;
}

}  // namespace

KernelStats kernel_stats(const Trace& trace, const SliceClassifier& classify) {
  std::unordered_map<StringId, Accumulator> overall;
  std::vector<std::unordered_map<StringId, Accumulator>> per_device(trace.devices.size());
  int64_t collector_all = 0;
  std::vector<int64_t> collector_device(trace.devices.size());
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    if (t.key.kind != TrackKind::kGpuStream) continue;
    for (uint32_t i = 0; i < t.slices.size(); ++i) {
      if (t.slices.ref[i].kind() != SliceKind::kKernel) continue;
      const StringId n = t.slices.name[i];
      if (trace.str(n) == kCollectorClockSyncKernel) {
        ++collector_all;
        if (t.key.device >= 0 && static_cast<size_t>(t.key.device) < collector_device.size()) ++collector_device[static_cast<size_t>(t.key.device)];
        continue;
      }
      const Category c = classify.category(ti, i);
      Accumulator& a = overall[n];
      a.category = c;
      a.durations.push_back(t.slices.dur[i]);
      if (t.key.device >= 0 && static_cast<size_t>(t.key.device) < per_device.size()) {
        Accumulator& ad = per_device[static_cast<size_t>(t.key.device)][n];
        ad.category = c;
        ad.durations.push_back(t.slices.dur[i]);
      }
    }
  }
  KernelStats out;
  out.overall = finish_table(trace, -1, overall);
  out.overall.collector_kernels = collector_all;
  for (size_t d = 0; d < per_device.size(); ++d) {
    out.per_device.push_back(finish_table(trace, static_cast<int32_t>(d), per_device[d]));
    out.per_device.back().collector_kernels = collector_device[d];
  }
  return out;
}

KernelStats kernel_stats(const Trace& trace) { return kernel_stats(trace, SliceClassifier(trace)); }

}  // namespace parascope
