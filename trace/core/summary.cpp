#include "trace/core/summary.h"

#include <algorithm>
#include <limits>
#include <set>

#include "trace/core/classify.h"
#include "trace/core/saturating.h"

namespace parascope {

TraceSummary summarize(const Trace& trace) {
  TraceSummary out;
  std::tie(out.start, out.end) = trace.time_span();
  out.slices = static_cast<int64_t>(trace.slice_count());
  out.flows = static_cast<int64_t>(trace.flows.size());
  out.tracks = static_cast<int64_t>(trace.tracks.size());
  const SliceClassifier classify(trace);

  out.processes.resize(trace.processes.size());
  for (uint32_t p = 0; p < trace.processes.size(); ++p) out.processes[p].process = p;
  std::vector<int32_t> device_slot(trace.devices.size(), -1);
  for (uint32_t d = 0; d < trace.devices.size(); ++d) {
    auto& devs = out.processes.at(trace.devices[d].process).devices;
    device_slot[d] = static_cast<int32_t>(devs.size());
    DeviceSummary ds;
    ds.device = d;
    ds.first = std::numeric_limits<TimeNs>::max();
    ds.last = std::numeric_limits<TimeNs>::min();
    devs.push_back(ds);
  }
  auto counter_summary = [](uint32_t ti, const Track& t) {
    CounterSummary c;
    c.track = ti;
    const auto& k = t.counter;
    c.samples = static_cast<int64_t>(k.size());
    c.first = k.time.front();
    c.last = k.time.back();
    for (size_t i = 0; i < k.size(); ++i) {
      c.peak = std::max(c.peak, k.value[i]);
      if (i + 1 < k.size()) c.integral += k.value[i] * static_cast<double>(k.time[i + 1] - k.time[i]) * 1e-9;
    }
    return c;
  };
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    out.counters += static_cast<int64_t>(t.counter.size());
    ProcessSummary& ps = out.processes.at(t.key.process);
    if (t.key.device < 0) {
      if (t.slices.empty()) {
        if (t.counter.size()) ps.counters.push_back(counter_summary(ti, t));
        continue;
      }
      if (t.key.kind == TrackKind::kCpuThread) {
        ++ps.cpu_tracks;
        ps.cpu_slices += static_cast<int64_t>(t.slices.size());
      } else if (t.key.kind == TrackKind::kNvtx) {
        ++ps.nvtx_tracks;
      }
      for (const SliceRef r : t.slices.ref) switch (r.kind()) {
          case SliceKind::kRuntimeApi: ++ps.api_calls; break;
          case SliceKind::kNvtxRange: ++ps.nvtx; break;
          case SliceKind::kCpuOp: ++ps.cpu_ops; break;
          case SliceKind::kOverhead: ++ps.overhead; break;
          default: break;
        }
      continue;
    }
    DeviceSummary& ds = ps.devices.at(static_cast<size_t>(device_slot.at(static_cast<size_t>(t.key.device))));
    if (!t.slices.empty() || t.counter.size()) ds.has_events = true;
    if (t.counter.size()) ds.counters.push_back(counter_summary(ti, t));
    if (t.key.kind == TrackKind::kSmLane && !t.slices.empty()) {
      const auto n = static_cast<int64_t>(t.slices.size());
      ds.sm_spans_min = ds.sm_lanes == 0 ? n : std::min(ds.sm_spans_min, n);
      ds.sm_spans_max = std::max(ds.sm_spans_max, n);
      ++ds.sm_lanes;
    }
    StreamSummary ss;
    ss.track = ti;
    ss.stream_id = t.key.id;
    ss.first = std::numeric_limits<TimeNs>::max();
    ss.last = std::numeric_limits<TimeNs>::min();
    const auto& s = t.slices;
    for (uint32_t i = 0; i < s.size(); ++i) {
      ss.first = std::min(ss.first, s.start[i]);
      ss.last = std::max(ss.last, s.start[i] + s.dur[i]);
      switch (s.ref[i].kind()) {
        case SliceKind::kKernel:
          ++ss.kernels;
          ds.kernel_busy_ns = add_saturating(ds.kernel_busy_ns, s.dur[i]);
          if (classify.is_communication(ti, i)) ++ss.comm_kernels;
          break;
        case SliceKind::kMemcpy:
          ++ss.memcpys;
          if (s.ref[i].has_detail()) {
            const MemcpyInfo& m = trace.memcpys[s.ref[i].index()];
            ds.memcpy_bytes += m.bytes.get();
            if (m.copy_kind == CopyKind::kPtoP) ++ds.peer_memcpys;
          }
          break;
        case SliceKind::kMemset: ++ss.memsets; break;
        case SliceKind::kSync: ++ss.syncs; break;
        case SliceKind::kSmSpan: ++ds.sm_spans; break;
        default: ++ss.other; break;
      }
    }
    if (!s.empty()) {
      ds.first = std::min(ds.first, ss.first);
      ds.last = std::max(ds.last, ss.last);
    }
    ds.kernels += ss.kernels;
    ds.memcpys += ss.memcpys;
    ds.memsets += ss.memsets;
    ds.syncs += ss.syncs;
    ds.comm_kernels += ss.comm_kernels;
    if (t.key.kind == TrackKind::kGpuStream && !s.empty()) ds.streams.push_back(ss);
  }
  for (const CollectiveInfo& c : trace.collectives) {
    if (!c.kernel.valid()) continue;
    const int32_t dev = trace.tracks[c.kernel.track].key.device;
    if (dev < 0) continue;
    auto& ds = out.processes[trace.devices[static_cast<size_t>(dev)].process].devices[static_cast<size_t>(device_slot[static_cast<size_t>(dev)])];
    ++ds.collectives;
  }
  for (auto& ps : out.processes)
    for (auto& ds : ps.devices) {
      if (ds.first > ds.last) ds.first = ds.last = 0;
      std::sort(ds.streams.begin(), ds.streams.end(),
                [](const StreamSummary& a, const StreamSummary& b) { return a.stream_id < b.stream_id; });
      for (auto& ss : ds.streams)
        if (ss.first > ss.last) ss.first = ss.last = 0;
    }
  return out;
}

size_t rank_count(const Trace& trace) {
  std::set<int32_t> ranks;
  for (const Process& p : trace.processes)
    if (p.rank >= 0) ranks.insert(p.rank);
  return ranks.size();
}

}  // namespace parascope
