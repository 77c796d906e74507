#include "trace/core/trace.h"

#include <algorithm>
#include <limits>

namespace parascope {

std::pair<TimeNs, TimeNs> Trace::time_span() const {
  TimeNs lo = std::numeric_limits<TimeNs>::max();
  TimeNs hi = std::numeric_limits<TimeNs>::min();
  for (const Track& t : tracks) {
    const auto& s = t.slices;
    if (!s.empty()) {
      lo = std::min(lo, s.start.front());  // sorted by start
      for (size_t i = 0; i < s.size(); ++i) hi = std::max(hi, s.start[i] + s.dur[i]);
    }
    if (t.counter.size()) {
      lo = std::min(lo, t.counter.time.front());
      hi = std::max(hi, t.counter.time.back());
    }
  }
  if (lo > hi) return {0, 0};
  return {lo, hi};
}

size_t Trace::slice_count() const {
  size_t n = 0;
  for (const Track& t : tracks) n += t.slices.size();
  return n;
}

size_t Trace::memory_bytes() const {
  size_t b = strings.memory_bytes() + args.memory_bytes();
  for (const Track& t : tracks) {
    const auto& s = t.slices;
    b += s.start.capacity() * sizeof(TimeNs) + s.dur.capacity() * sizeof(TimeNs) +
         s.name.capacity() * sizeof(StringId) + s.ref.capacity() * sizeof(SliceRef) + s.depth.capacity() +
         s.args.capacity() * sizeof(uint32_t);
    b += t.counter.time.capacity() * sizeof(TimeNs) + t.counter.value.capacity() * sizeof(double);
  }
  b += launch_configs.capacity() * sizeof(LaunchConfig) + kernels.capacity() * sizeof(KernelInfo) +
       memcpys.capacity() * sizeof(MemcpyInfo) + memsets.capacity() * sizeof(MemsetInfo) +
       syncs.capacity() * sizeof(SyncInfo) + nvtx.capacity() * sizeof(NvtxInfo) +
       cpu_ops.capacity() * sizeof(CpuOpInfo) + api_calls.capacity() * sizeof(ApiInfo) +
       sm_spans.capacity() * sizeof(SmSpanInfo) + collectives.capacity() * sizeof(CollectiveInfo) +
       flows.capacity() * sizeof(Flow) + tracks.capacity() * sizeof(Track);
  return b;
}

}  // namespace parascope
