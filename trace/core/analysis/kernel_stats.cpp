#include "trace/core/analysis/kernel_stats.h"
#include "trace/core/saturating.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
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

// One probe launch on a device: its spans' name (the probe buffer's kernel), first start, last end.
struct ProbeLaunchSpan {
  size_t device = 0;
  StringId name = kEmptyString;
  TimeNs start = 0, end = 0;
  bool computes = false, communicates = false;  // a span with the compute role; one communicating or waiting
};

// The probe launches of the devices `has_kernels` says have no kernel record, in a deterministic
// order (device, name id, launch id). Spans already inside a kernel record, and spans named only
// by their role (no kernel name in the probe buffer), are left out.
std::vector<ProbeLaunchSpan> probe_launches(const Trace& trace, const std::vector<bool>& has_kernels) {
  std::map<std::tuple<size_t, StringId, uint32_t>, ProbeLaunchSpan> launches;
  for (const Track& t : trace.tracks) {
    if (t.key.kind != TrackKind::kSmLane || t.key.device < 0 || static_cast<size_t>(t.key.device) >= has_kernels.size()) continue;
    const auto d = static_cast<size_t>(t.key.device);
    if (has_kernels[d]) continue;
    for (uint32_t i = 0; i < t.slices.size(); ++i) {
      const SliceRef r = t.slices.ref[i];
      if (r.kind() != SliceKind::kSmSpan || r.index() >= trace.sm_spans.size()) continue;
      const SmSpanInfo& s = trace.sm_spans[r.index()];
      const StringId n = t.slices.name[i];
      if (s.kernel.valid() || trace.str(n) == to_string(s.role)) continue;
      const TimeNs start = t.slices.start[i], end = t.slices.start[i] + t.slices.dur[i];
      auto [it, inserted] = launches.try_emplace({d, n, s.launch_id}, ProbeLaunchSpan{d, n, start, end});
      ProbeLaunchSpan& l = it->second;
      if (!inserted) {
        l.start = std::min(l.start, start);
        l.end = std::max(l.end, end);
      }
      l.computes |= s.role == SmRole::kCompute;
      l.communicates |= s.role == SmRole::kCommunicate || s.role == SmRole::kWait;
    }
  }
  std::vector<ProbeLaunchSpan> out;
  out.reserve(launches.size());
  for (const auto& [key, l] : launches) out.push_back(l);
  return out;
}

}  // namespace

KernelStats kernel_stats(const Trace& trace, const SliceClassifier& classify) {
  std::unordered_map<StringId, Accumulator> overall;
  std::vector<std::unordered_map<StringId, Accumulator>> per_device(trace.devices.size());
  int64_t collector_all = 0;
  std::vector<int64_t> collector_device(trace.devices.size());
  std::vector<bool> has_kernels(trace.devices.size());  // any kernel record (the clock sync too)
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    if (t.key.kind != TrackKind::kGpuStream) continue;
    for (uint32_t i = 0; i < t.slices.size(); ++i) {
      if (t.slices.ref[i].kind() != SliceKind::kKernel) continue;
      if (t.key.device >= 0 && static_cast<size_t>(t.key.device) < has_kernels.size()) has_kernels[static_cast<size_t>(t.key.device)] = true;
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
  // devices without kernel records: their probe launches are the kernels
  const std::vector<ProbeLaunchSpan> probed = probe_launches(trace, has_kernels);
  std::vector<int64_t> probe_device(trace.devices.size());
  for (const ProbeLaunchSpan& l : probed) {
    // as the classifier takes an SM span's role: probes that only communicate or wait are communication
    const bool comm = is_communication_kernel_name(trace.str(l.name)) || (l.communicates && !l.computes);
    const Category c = comm ? Category::kCommunication : Category::kCompute;
    Accumulator& a = overall[l.name];
    a.category = c;
    a.durations.push_back(l.end - l.start);
    Accumulator& ad = per_device[l.device][l.name];
    ad.category = c;
    ad.durations.push_back(l.end - l.start);
    ++probe_device[l.device];
  }
  KernelStats out;
  out.overall = finish_table(trace, -1, overall);
  out.overall.collector_kernels = collector_all;
  out.overall.probe_kernels = static_cast<int64_t>(probed.size());
  for (size_t d = 0; d < per_device.size(); ++d) {
    out.per_device.push_back(finish_table(trace, static_cast<int32_t>(d), per_device[d]));
    out.per_device.back().collector_kernels = collector_device[d];
    out.per_device.back().probe_kernels = probe_device[d];
  }
  return out;
}

KernelStats kernel_stats(const Trace& trace) { return kernel_stats(trace, SliceClassifier(trace)); }

}  // namespace parascope
