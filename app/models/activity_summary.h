// ActivitySummary: what a folded rank's or GPU's row shows in place of its tracks (Perfetto and
// Nsight summarise a collapsed process too): over time, the share of the GPU that was busy and the
// kind of work that took most of it. Busy is device_activity.h's rule — the device's activity
// tracks (its streams; a probe-only device's SM lanes), compute, communication or memory work,
// each moment once however many streams overlap, sync never — so the strip agrees with
// `parascope-cli stats`' busy/idle. Built once per device (a coverage pyramid whose share is the
// union of the work and whose category is the one covering most of it, overlaps counted for each
// kind); sampled per pixel from the pyramid, or walked slice by slice when a pixel is finer than a
// bucket. No Qt.
#pragma once

#include <cstdint>
#include <vector>

#include "models/track_lod.h"

namespace parascope::models {

inline constexpr double kActivityWalkBudget = 20'000;  // slices a fine strip may walk before sampling level 0

class ActivitySummary {
 public:
  ActivitySummary() = default;
  ActivitySummary(const Trace& trace, const SliceClassifier& classify, uint32_t device);

  bool empty() const { return pyramid_.empty(); }  // the device never did busy work
  const std::vector<uint32_t>& tracks() const { return tracks_; }
  const CoveragePyramid& pyramid() const { return pyramid_; }
  size_t busy_slices() const { return busy_slices_; }
  TimeNs busy_ns() const { return busy_ns_; }  // the measure of the union: busy_idle's busy_ns over the device's own window
  size_t memory_bytes() const { return pyramid_.memory_bytes() + tracks_.capacity() * sizeof(uint32_t); }

  // Pixel i covers [t0 + i·ns_per_px, t0 + (i+1)·ns_per_px): fills out[0..n) with the busy share
  // and the category covering most of it. From the pyramid when a pixel holds a bucket or more;
  // finer, from the slices in view (per pixel the work summed over the tracks, capped at 1: exact
  // where the work fills the pixel or does not overlap), unless there are more than
  // kActivityWalkBudget of them, then from level 0. `walked` counts the slices looked at.
  void sample(const Trace& trace, const SliceClassifier& classify, const std::vector<TrackLod>& lods, double t0, double ns_per_px,
              int n, Coverage* out, size_t* walked = nullptr) const;

 private:
  std::vector<uint32_t> tracks_;  // the device's activity tracks with slices
  CoveragePyramid pyramid_;
  size_t busy_slices_ = 0;
  TimeNs busy_ns_ = 0;
};

}  // namespace parascope::models
