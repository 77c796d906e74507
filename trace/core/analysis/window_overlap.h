// Overlap at a glance for one device in a window (a selected kernel, a box-selected range, a
// `window --from --to`): per SM lane the share of the window in each probe role
// (sm_window_shares), communication hidden under compute against exposed for the device and each
// stream (compute_overlap on device_activity_in), and the SMs' mean shares. The overlap chart, the
// reports and `parascope-cli window` all take this one composition, so they show the same numbers.
#pragma once

#include <vector>

#include "trace/core/analysis/overlap.h"
#include "trace/core/analysis/window_activity.h"

namespace parascope {

struct WindowOverlap {
  uint32_t device = 0;
  Interval window;
  std::vector<SmWindowShare> sms;  // by SM
  DeviceOverlap overlap;           // the device's and its streams' compute, communication and overlap in the window
  // means over the SMs, as shares of the window (0 without SM lanes)
  double compute = 0, communicate = 0, wait = 0, idle = 0;
  // No kernel record on the device's streams in the window, only SM-lane spans (a probe-only
  // file): the device's activity is those spans, compute on SMs without probes (a fused kernel's
  // GEMM SMs) is not seen, so the hidden part is a lower bound and the exposed part an upper one.
  bool spans_only = false;
};

WindowOverlap window_overlap(const Trace& trace, const SliceClassifier& classify, uint32_t device, Interval window);

}  // namespace parascope
