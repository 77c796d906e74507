// What the details dock says about a selection, as HTML: for a slice, every typed field (kernel
// launch config and registers, CUDA graph ids, NCCL collective annotation, copy bytes and devices,
// SM span role), every free-form arg, its flows, and for a kernel the SM lanes it ran on (time
// per probe role, from window_activity.h), for a matched collective its instances on the other
// ranks and how late each arrived (collective_peers.h); for a box-selected range, its duration and what is
// inside (range_summary.h). Plain functions of the trace and library results.
#pragma once

#include <QString>

#include "trace/core/analysis/collective_peers.h"
#include "trace/core/analysis/range_summary.h"
#include "trace/core/analysis/window_activity.h"
#include "trace/core/classify.h"
#include "trace/core/trace.h"

namespace parascope::gui {

// `origin`: times are shown relative to it (the trace start).
QString slice_details_html(const Trace& trace, const SliceClassifier& classify, EventRef ref, TimeNs origin);
// The SM lanes of a kernel's device over the kernel's span; empty when the device has none.
// Links "sm:DEVICE" (show the lanes) and "overlap:" (the overlap dock) can be followed.
QString kernel_sm_lanes_html(const Trace& trace, EventRef kernel, const std::vector<SmWindowShare>& shares);
// The matched instance of a selected collective: op, group, how it was matched, and per rank its
// slice and start skew after the first arrival; empty when `peers` found none.
QString collective_peers_html(const Trace& trace, const CollectiveMatch& match, const CollectivePeers& peers);
QString range_summary_html(const Trace& trace, const RangeSummary& summary, TimeNs origin);

}  // namespace parascope::gui
