// What every fuzz target checks on a trace a reader accepted: the model's invariants (tracks sorted,
// every reference — flows, collectives, SM spans, detail records, launch configs, arg sets, parents,
// devices — inside its table), then the analyses `parascope-cli info` and `stats` run, so a reader
// that lets odd values through (negative durations, huge times) cannot crash what comes after it.
// A broken invariant traps (libFuzzer reports it as a crash with the input).
#pragma once

#include <string>

#include "trace/core/analysis/busy_idle.h"
#include "trace/core/analysis/collective_bandwidth.h"
#include "trace/core/analysis/collective_matcher.h"
#include "trace/core/analysis/exposed_communication.h"
#include "trace/core/analysis/kernel_stats.h"
#include "trace/core/analysis/link_traffic.h"
#include "trace/core/analysis/overlap.h"
#include "trace/core/summary.h"
#include "trace/core/trace.h"

namespace parascope::fuzz {

inline void require(bool ok) {
  if (!ok) __builtin_trap();
}

inline bool ref_ok(const Trace& t, EventRef r) {
  return r.track < t.tracks.size() && r.index < t.tracks[r.track].slices.size();
}

inline size_t detail_rows(const Trace& t, SliceKind k) {
  switch (k) {
    case SliceKind::kKernel: return t.kernels.size();
    case SliceKind::kMemcpy: return t.memcpys.size();
    case SliceKind::kMemset: return t.memsets.size();
    case SliceKind::kSync: return t.syncs.size();
    case SliceKind::kNvtxRange: return t.nvtx.size();
    case SliceKind::kCpuOp: return t.cpu_ops.size();
    case SliceKind::kRuntimeApi: return t.api_calls.size();
    case SliceKind::kSmSpan: return t.sm_spans.size();
    default: return 0;
  }
}

inline void check_trace(const Trace& t) {
  const size_t devices = t.devices.size();
  for (const Device& d : t.devices) require(d.process < t.processes.size());
  for (const Track& tr : t.tracks) {
    const SliceColumns& s = tr.slices;
    require(s.dur.size() == s.size() && s.name.size() == s.size() && s.ref.size() == s.size());
    require(s.depth.empty() || s.depth.size() == s.size());
    require(s.args.empty() || s.args.size() == s.size());
    require(tr.parent < 0 || static_cast<size_t>(tr.parent) < t.tracks.size());
    require(tr.key.process < t.processes.size());
    require(tr.key.device < 0 || static_cast<size_t>(tr.key.device) < devices);
    for (size_t i = 0; i < s.size(); ++i) {
      if (i) require(s.start[i - 1] <= s.start[i]);
      const SliceRef r = s.ref[i];
      if (r.has_detail()) require(r.index() < detail_rows(t, r.kind()));
      const uint32_t a = s.args_of(i);
      require(a == kNone32 || a < t.args.set_count());
      require(s.name[i] < t.strings.size());
    }
    require(tr.counter.value.size() == tr.counter.time.size());
    for (size_t i = 1; i < tr.counter.time.size(); ++i) require(tr.counter.time[i - 1] <= tr.counter.time[i]);
  }
  for (const KernelInfo& k : t.kernels) require(k.launch_config == kNone32 || k.launch_config < t.launch_configs.size());
  for (const MemcpyInfo& m : t.memcpys)
    require((m.src_device == kNoDevice || m.src_device < devices) && (m.dst_device == kNoDevice || m.dst_device < devices));
  for (const Link& l : t.links)
    require((l.src_device == kNoDevice || l.src_device < devices) && (l.dst_device == kNoDevice || l.dst_device < devices));
  for (const Flow& f : t.flows) require(ref_ok(t, f.from) && ref_ok(t, f.to));
  for (const CollectiveInfo& c : t.collectives)
    require((!c.kernel.valid() || ref_ok(t, c.kernel)) && (!c.cpu_op.valid() || ref_ok(t, c.cpu_op)));
  for (const SmSpanInfo& s : t.sm_spans) require(!s.kernel.valid() || ref_ok(t, s.kernel));

  // what `info` and `stats` compute
  (void)t.time_span();
  (void)summarize(t);
  (void)kernel_stats(t);
  (void)busy_idle(t);
  (void)compute_overlap(t);
  (void)exposed_communication(t);
  (void)collective_bandwidth(t);
  (void)match_collectives(t);
  (void)estimate_link_traffic(t);
}

}  // namespace parascope::fuzz
