#include "trace/core/summary.h"

#include <algorithm>
#include <limits>

#include "trace/core/classify.h"

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
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    out.counters += static_cast<int64_t>(t.counter.size());
    ProcessSummary& ps = out.processes.at(t.key.process);
    if (t.key.device < 0) {
      if (t.key.kind == TrackKind::kCpuThread) {
        ++ps.cpu_tracks;
        ps.cpu_slices += static_cast<int64_t>(t.slices.size());
      }
      continue;
    }
    DeviceSummary& ds = ps.devices.at(static_cast<size_t>(device_slot.at(static_cast<size_t>(t.key.device))));
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
          ds.kernel_busy_ns += s.dur[i];
          if (classify.is_communication(ti, i)) ++ss.comm_kernels;
          break;
        case SliceKind::kMemcpy:
          ++ss.memcpys;
          if (s.ref[i].has_detail()) ds.memcpy_bytes += trace.memcpys[s.ref[i].index()].bytes.get();
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
    if (t.key.kind == TrackKind::kGpuStream) ds.streams.push_back(ss);
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

}  // namespace parascope
