// TraceBuilder: the one way importers, the collector's converter and the simulator make a Trace.
// Events may be added in any order (real files are unsorted and nested); finish() sorts every
// track by (start, longer first), computes nesting depths, and rewrites every EventRef handed out
// by add_slice (flows, collective annotations, SM-span kernel links) to the sorted position.
// Before finish(), EventRefs are provisional: (track, insertion order).
#pragma once

#include <map>
#include <memory>
#include <span>
#include <string_view>
#include <unordered_map>

#include "trace/core/trace.h"

namespace parascope {

class TraceBuilder {
 public:
  TraceBuilder();

  StringId intern(std::string_view s) { return trace_->strings.intern(s); }
  StringTable& strings() { return trace_->strings; }
  Trace& trace() { return *trace_; }  // direct access for metadata (topology, warnings, sources)

  uint32_t add_process(Process p);
  uint32_t add_device(Device d);
  // Finds or creates the track with this key; `name` is used when it is created.
  uint32_t track(const TrackKey& key, std::string_view name = {});
  void set_track_name(uint32_t track, std::string_view name);
  void set_track_parent(uint32_t track, int32_t parent) { trace_->tracks[track].parent = parent; }
  uint32_t add_link(const Link& link);  // dedups identical links

  uint32_t add_launch_config(const LaunchConfig& c);  // interned
  // Detail records (inline: readers call these once per event).
  SliceRef add_kernel(const KernelInfo& k) { return push_detail(trace_->kernels, k, SliceKind::kKernel); }
  SliceRef add_memcpy(const MemcpyInfo& m) { return push_detail(trace_->memcpys, m, SliceKind::kMemcpy); }
  SliceRef add_memset(const MemsetInfo& m) { return push_detail(trace_->memsets, m, SliceKind::kMemset); }
  SliceRef add_sync(const SyncInfo& s) { return push_detail(trace_->syncs, s, SliceKind::kSync); }
  SliceRef add_nvtx(const NvtxInfo& n) { return push_detail(trace_->nvtx, n, SliceKind::kNvtxRange); }
  SliceRef add_cpu_op(const CpuOpInfo& c) { return push_detail(trace_->cpu_ops, c, SliceKind::kCpuOp); }
  SliceRef add_api_call(const ApiInfo& a) { return push_detail(trace_->api_calls, a, SliceKind::kRuntimeApi); }
  SliceRef add_sm_span(const SmSpanInfo& s) { return push_detail(trace_->sm_spans, s, SliceKind::kSmSpan); }

  // Appends a slice; dur < 0 is clamped to 0 with a warning count. Returns a provisional ref.
  EventRef add_slice(uint32_t track, TimeNs start, TimeNs dur, StringId name, SliceRef ref,
                     std::span<const Arg> args = {});
  // The same with an argument set already in trace().args (kNone32: none), so readers of
  // deduplicated input skip the per-slice lookup (ArgStore::append).
  EventRef add_slice_with_arg_set(uint32_t track, TimeNs start, TimeNs dur, StringId name, SliceRef ref,
                                  uint32_t arg_set);
  // Readers of columnar input (.pstrace): room for `n` more slices on a track (a hint the caller
  // bounds by the bytes it holds; `with_args`: the args column too), and a run of slices appended
  // column by column in one go, with exactly the result of add_slice_with_arg_set row by row
  // (`arg_sets` empty: none of them has args). Returns the provisional row of the first.
  void reserve_slices(uint32_t track, size_t n, bool with_args);
  uint32_t append_slices(uint32_t track, std::span<const TimeNs> start, std::span<const TimeNs> dur,
                         std::span<const StringId> name, std::span<const SliceRef> ref,
                         std::span<const uint32_t> arg_sets);
  void add_counter_sample(uint32_t track, TimeNs t, double value);
  // Columnar readers: room for `n` more samples on a counter track (a bounded hint), and a run
  // of samples appended in one go (the same result as add_counter_sample one by one).
  void reserve_counter_samples(uint32_t track, size_t n);
  void append_counter_samples(uint32_t track, std::span<const TimeNs> time, std::span<const double> value);
  void add_flow(EventRef from, EventRef to, FlowKind kind);
  uint32_t add_collective(const CollectiveInfo& c);  // kernel/cpu_op refs provisional until finish()
  void warn(std::string message);  // Trace::warnings: something may be wrong with the data
  void note(std::string message);  // Trace::notes: how the trace was made, no problem
  size_t negative_durations() const { return negative_durations_; }

  // Sorts, computes depths, remaps refs. The builder is empty afterwards.
  Trace finish();

 private:
  [[noreturn]] static void detail_table_full(SliceKind kind);
  template <class T>
  SliceRef push_detail(std::vector<T>& table, const T& value, SliceKind kind) {
    if (table.size() > SliceRef::kMaxIndex) [[unlikely]]
      detail_table_full(kind);
    table.push_back(value);
    return SliceRef(kind, static_cast<uint32_t>(table.size() - 1));
  }

  std::unique_ptr<Trace> trace_;
  struct KeyHash {
    size_t operator()(const TrackKey& k) const noexcept;
  };
  std::unordered_map<TrackKey, uint32_t, KeyHash> track_index_;
  std::unordered_map<uint64_t, std::vector<uint32_t>> config_index_;
  size_t negative_durations_ = 0;
};

}  // namespace parascope
