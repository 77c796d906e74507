// The unit of a counter track's values, read once from Track::unit (the text a file carries:
// "bytes", "bytes/s", "%", "count"), and the one formatter every view and export writes a counter
// value with: the timeline's label and tooltip, the reports' timelines, `info`. Sizes and rates use
// decimal units as every DataTable does (data_table.h: 7.23 GB, 425.0 GB/s); a unit this list does
// not know is written after the plain number ("3 per sample"), none at all leaves the number bare.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "trace/core/trace.h"

namespace parascope {

enum class CounterUnit : uint8_t { kNone, kBytes, kBytesPerS, kPercent, kCount, kOther };

// "bytes"/"B" → kBytes, "bytes/s"/"B/s" → kBytesPerS, "%"/"percent" → kPercent, "count" → kCount,
// "" → kNone, anything else → kOther.
CounterUnit parse_counter_unit(std::string_view text);
CounterUnit counter_unit(const Trace& trace, const Track& track);

// "7.23 GB", "425.0 GB/s", "87.6 %", "1234", "3 per sample" (kOther: the track's own unit text).
std::string format_counter_value(double value, CounterUnit unit, std::string_view unit_text = {});
std::string format_counter_value(const Trace& trace, const Track& track, double value);

}  // namespace parascope
