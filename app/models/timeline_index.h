// TimelineIndex: everything the timeline precomputes for one trace, built once (on the loader
// thread, tracks spread over the cores) and read-only afterwards: per-track level of detail
// (track_lod.h; the SM lanes of a device share one grid so the heat strip samples them together),
// per-counter maximum pyramids, each device's activity for folded rows (activity_summary.h), flows
// ordered by time, the trace's span. Its memory is reported,
// so the GUI's cost on top of the model can be measured. No Qt.
#pragma once

#include <atomic>
#include <utility>
#include <string>
#include <vector>

#include "models/activity_summary.h"
#include "models/track_lod.h"

namespace parascope::models {

// Maximum of counter values over index ranges in O(log n): level k holds maxima of 8^(k+1) samples.
class CounterLod {
 public:
  CounterLod() = default;
  explicit CounterLod(const CounterColumns& c);
  double max_in(const CounterColumns& c, size_t first, size_t last) const;  // [first, last), 0 when empty
  double max() const { return max_; }
  size_t memory_bytes() const;

 private:
  std::vector<std::vector<double>> levels_;
  double max_ = 0;
};

// Flows ordered by the earlier of their two ends; a flow runs from the end of its source slice
// to the start of its target slice.
class FlowIndex {
 public:
  struct Entry {
    TimeNs t0 = 0, t1 = 0;  // t0 ≤ t1
    uint32_t flow = 0;
  };
  FlowIndex() = default;
  explicit FlowIndex(const Trace& trace);
  const std::vector<Entry>& entries() const { return entries_; }
  // Entries [first, last) that may touch [lo, hi]; callers skip those with t1 < lo.
  std::pair<size_t, size_t> candidates(TimeNs lo, TimeNs hi) const;
  size_t memory_bytes() const { return entries_.capacity() * sizeof(Entry) + ends_.memory_bytes(); }

 private:
  std::vector<Entry> entries_;
  EndIndex ends_;
};

class TimelineIndex {
 public:
  // Throws IndexBuildCancelled when `cancel` becomes true.
  explicit TimelineIndex(const Trace& trace, const std::atomic<bool>* cancel = nullptr, int threads = 0);
  TimelineIndex(const TimelineIndex&) = delete;
  TimelineIndex& operator=(const TimelineIndex&) = delete;

  const Trace& trace() const { return trace_; }
  const SliceClassifier& classifier() const { return classify_; }
  const TrackLod& lod(uint32_t track) const { return lods_[track]; }
  const CounterLod& counter(uint32_t track) const { return counters_[track]; }
  // The line under a counter row's name: "measured  ·  peak 1.947 GB", the peak in the track's unit.
  std::string counter_info(uint32_t track) const;
  const FlowIndex& flows() const { return flows_; }
  TimeNs start() const { return start_; }
  TimeNs end() const { return end_; }
  // SM lane tracks of a device in SM order (empty when it has none).
  const std::vector<uint32_t>& sm_lanes(int32_t device) const;
  // The grid all SM lanes of a device share.
  const LodGrid& sm_grid(int32_t device) const { return sm_grids_[static_cast<size_t>(device)]; }
  // Heat pyramid of SM group `group` of `size` consecutive SMs (size a power of two ≥ 2, groups in
  // SM order, the last one possibly short); nullptr when not built. Size 1 is TrackLod::combined().
  const CoveragePyramid* sm_group(int32_t device, size_t size, size_t group) const;
  // A device's GPU activity, what its folded rank or GPU row shows (empty when it never worked).
  const ActivitySummary& activity(int32_t device) const;
  // The devices of a process that did busy work: the bands of its folded row, in device order.
  std::vector<int32_t> active_devices(uint32_t process) const;
  // ActivitySummary::sample for that device, over the index's own levels of detail.
  void sample_activity(int32_t device, double t0, double ns_per_px, int n, Coverage* out, size_t* walked = nullptr) const;
  size_t memory_bytes() const;
  double build_seconds() const { return build_seconds_; }

 private:
  const Trace& trace_;
  SliceClassifier classify_;
  std::vector<TrackLod> lods_;
  std::vector<CounterLod> counters_;
  std::vector<std::vector<uint32_t>> sm_lanes_;  // per device
  std::vector<LodGrid> sm_grids_;
  std::vector<std::vector<std::vector<CoveragePyramid>>> sm_groups_;  // [device][log2(size) - 1][group]
  std::vector<ActivitySummary> activity_;  // per device
  FlowIndex flows_;
  TimeNs start_ = 0, end_ = 0;
  double build_seconds_ = 0;
};

struct IndexBuildCancelled : std::exception {
  const char* what() const noexcept override { return "cancelled"; }
};

}  // namespace parascope::models
