// A trace cut down to some time ranges: every slice that overlaps one of them (whole, not clipped),
// the counter samples inside them (and the one before each range, which holds into it), the flows
// and collective annotations whose events survive, and everything else (processes, devices, tracks,
// links, topology, warnings, notes) as it was. Used to keep a long run's interesting parts (a benchmark's
// first call and timed loop) without its warm-up; the result says what was cut in a note.
#pragma once

#include <utility>
#include <vector>

#include "trace/core/trace.h"

namespace parascope {

// `ranges`: [start, end) on the trace clock, any order. The input is consumed (its strings and
// argument sets move into the result, so every id stays valid).
Trace cut_trace(Trace&& trace, std::vector<std::pair<TimeNs, TimeNs>> ranges);

}  // namespace parascope
