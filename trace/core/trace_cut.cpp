#include "trace/core/trace_cut.h"

#include <algorithm>
#include <string>

#include "trace/core/trace_builder.h"

namespace parascope {

namespace {

struct Ranges {
  std::vector<std::pair<TimeNs, TimeNs>> r;  // sorted, merged
  bool overlaps(TimeNs s, TimeNs e) const {  // [s, e] (zero-length slices count at their instant)
    auto it = std::upper_bound(r.begin(), r.end(), s, [](TimeNs x, const auto& p) { return x < p.second; });
    return it != r.end() && it->first <= e;
  }
  bool contains(TimeNs t) const { return overlaps(t, t); }
};

}  // namespace

Trace cut_trace(Trace&& in, std::vector<std::pair<TimeNs, TimeNs>> ranges) {
  Ranges keep;
  std::sort(ranges.begin(), ranges.end());
  for (const auto& x : ranges) {
    if (x.second < x.first) continue;
    if (!keep.r.empty() && x.first <= keep.r.back().second) keep.r.back().second = std::max(keep.r.back().second, x.second);
    else keep.r.push_back(x);
  }
  TraceBuilder b;
  Trace& out = b.trace();
  out.strings = std::move(in.strings);
  out.args = std::move(in.args);
  out.topology = std::move(in.topology);
  out.source_files = std::move(in.source_files);
  out.source_format = std::move(in.source_format);
  out.warnings = std::move(in.warnings);
  out.notes = std::move(in.notes);
  for (auto& p : in.processes) b.add_process(std::move(p));
  for (auto& d : in.devices) b.add_device(std::move(d));
  for (const auto& l : in.links) b.add_link(l);

  // new provisional ref of every kept slice, by (track, row)
  std::vector<std::vector<uint32_t>> moved(in.tracks.size());
  constexpr uint32_t kDropped = kNone32;
  size_t kept = 0, dropped = 0;
  for (uint32_t ti = 0; ti < in.tracks.size(); ++ti) {
    const Track& tr = in.tracks[ti];
    const uint32_t nt = b.track(tr.key, out.str(tr.name));
    Track& dst = out.tracks[nt];
    dst.parent = tr.parent;
    dst.simulated = tr.simulated;
    dst.counter_source = tr.counter_source;
    dst.unit = tr.unit;
    dst.sort_index = tr.sort_index;
    const SliceColumns& s = tr.slices;
    moved[ti].assign(s.size(), kDropped);
    for (uint32_t i = 0; i < s.size(); ++i) {
      if (!keep.overlaps(s.start[i], s.end(i))) {
        ++dropped;
        continue;
      }
      SliceRef ref = s.ref[i];
      if (ref.has_detail()) {
        const uint32_t x = ref.index();
        switch (ref.kind()) {
          case SliceKind::kKernel: {
            KernelInfo k = in.kernels[x];
            if (k.launch_config < in.launch_configs.size()) k.launch_config = b.add_launch_config(in.launch_configs[k.launch_config]);
            ref = b.add_kernel(k);
            break;
          }
          case SliceKind::kMemcpy: ref = b.add_memcpy(in.memcpys[x]); break;
          case SliceKind::kMemset: ref = b.add_memset(in.memsets[x]); break;
          case SliceKind::kSync: ref = b.add_sync(in.syncs[x]); break;
          case SliceKind::kNvtxRange: ref = b.add_nvtx(in.nvtx[x]); break;
          case SliceKind::kCpuOp: ref = b.add_cpu_op(in.cpu_ops[x]); break;
          case SliceKind::kRuntimeApi: ref = b.add_api_call(in.api_calls[x]); break;
          case SliceKind::kSmSpan: ref = b.add_sm_span(in.sm_spans[x]); break;  // kernel link fixed below
          default: break;
        }
      }
      const EventRef e = b.add_slice_with_arg_set(nt, s.start[i], s.dur[i], s.name[i], ref, s.args_of(i));
      moved[ti][i] = e.index;
      ++kept;
    }
    const CounterColumns& c = tr.counter;
    for (size_t i = 0; i < c.size(); ++i) {
      const bool next_inside = i + 1 < c.size() && keep.overlaps(c.time[i], c.time[i + 1]);
      if (keep.contains(c.time[i]) || next_inside) b.add_counter_sample(nt, c.time[i], c.value[i]);
    }
  }
  auto remap = [&](EventRef r) -> EventRef {
    if (!r.valid() || r.track >= moved.size() || r.index >= moved[r.track].size()) return {};
    const uint32_t row = moved[r.track][r.index];
    return row == kDropped ? EventRef{} : EventRef{r.track, row};
  };
  for (SmSpanInfo& s : out.sm_spans) s.kernel = remap(s.kernel);
  for (const Flow& f : in.flows) {
    const EventRef a = remap(f.from), z = remap(f.to);
    if (a.valid() && z.valid()) b.add_flow(a, z, f.kind);
  }
  for (CollectiveInfo c : in.collectives) {
    const bool had = c.kernel.valid() || c.cpu_op.valid();
    c.kernel = remap(c.kernel);
    c.cpu_op = remap(c.cpu_op);
    if (had && !c.kernel.valid() && !c.cpu_op.valid()) continue;
    b.add_collective(c);
  }
  std::string note = "cut to " + std::to_string(keep.r.size()) + " time range" + (keep.r.size() == 1 ? "" : "s") + ": " +
                     std::to_string(kept) + " slices kept, " + std::to_string(dropped) + " left out";
  b.note(note);  // how the trace was made, no problem
  return b.finish();
}

}  // namespace parascope
