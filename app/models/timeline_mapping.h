// TimelineMapping: the time ↔ pixel arithmetic of every timeline (GUI, offscreen PNG, reports),
// as a value type with no Qt and no window, so zoom and pan are unit-tested exactly.
// Invariant: end > start (at least 1 ns visible) and width_px >= 1.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "trace/core/time.h"

namespace parascope::models {

class TimelineMapping {
 public:
  TimelineMapping() = default;
  TimelineMapping(TimeNs start, TimeNs end, double width_px) { set(start, end, width_px); }

  void set(TimeNs start, TimeNs end, double width_px) {
    start_ = start;
    end_ = std::max(end, start + 1);
    width_ = std::max(width_px, 1.0);
  }
  TimeNs start() const { return start_; }
  TimeNs end() const { return end_; }
  TimeNs duration() const { return end_ - start_; }
  double width() const { return width_; }
  double ns_per_px() const { return static_cast<double>(duration()) / width_; }

  double x_of(TimeNs t) const { return static_cast<double>(t - start_) * width_ / static_cast<double>(duration()); }
  TimeNs time_at(double x) const { return start_ + static_cast<TimeNs>(std::llround(x * ns_per_px())); }

  // Zooms by `factor` (> 1 zooms in) keeping the time under pixel x fixed; at least `min_ns` stay visible.
  void zoom(double factor, double x, TimeNs min_ns = 100) {
    const TimeNs anchor = time_at(x);
    double new_dur = static_cast<double>(duration()) / factor;
    new_dur = std::max(new_dur, static_cast<double>(min_ns));
    const double left = (x / width_) * new_dur;
    const TimeNs s = anchor - static_cast<TimeNs>(std::llround(left));
    set(s, s + static_cast<TimeNs>(std::llround(new_dur)), width_);
  }
  void pan_px(double dx) {
    const TimeNs d = static_cast<TimeNs>(std::llround(dx * ns_per_px()));
    start_ -= d;
    end_ -= d;
  }
  // Keeps the view inside [lo, hi] (when the view is smaller than that range).
  void clamp_to(TimeNs lo, TimeNs hi) {
    const TimeNs d = duration();
    if (d >= hi - lo) {
      set(lo, std::max(hi, lo + 1), width_);
      return;
    }
    if (start_ < lo) set(lo, lo + d, width_);
    if (end_ > hi) set(hi - d, hi, width_);
  }

 private:
  TimeNs start_ = 0;
  TimeNs end_ = 1;
  double width_ = 1;
};

// Ruler ticks: a step of 1, 2 or 5 × 10^k ns giving at least `min_px` pixels between ticks.
TimeNs tick_step(const TimelineMapping& m, double min_px);
// "12.5 ms" style label for a tick relative to `origin`, with precision suited to `step`.
std::string tick_label(TimeNs t, TimeNs origin, TimeNs step);
// Label of an absolute tick: the time of day (UTC) "10:31:02.1235" for epoch-based clocks
// (t ≥ kEpochLike), else the trace clock's own seconds "12.500 ms" as tick_label(t, 0, step).
std::string tick_label_absolute(TimeNs t, TimeNs step);

}  // namespace parascope::models
