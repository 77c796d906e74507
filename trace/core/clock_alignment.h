// ClockAlignment: how one process (rank) was put on the trace's common timeline, in words a user
// reads — relative to a reference (the lowest rank), and what was added to the file's own times
// (an epoch base such as Kineto's baseTimeNanoseconds shown as a UTC date, never as "+1790857026 s").
// Decided from the numbers alone (Process::clock_offset_ns and where the process's times lie);
// the importer's reason is quoted, never parsed. The timeline's rank headers, `parascope-cli info`
// and the report all print these texts, so the three say the same thing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/core/trace.h"

namespace parascope {

enum class ClockBasis : uint8_t {
  kWallClock,  // its times on the trace clock are epoch times (UTC): comparable with any wall-clock file
  kShifted,    // its own clock moved by an offset (a sync event, a user's shift): aligned on purpose
  kOwnClock,   // its own clock as recorded (offset 0, not epoch times): comparable with nothing else
};
const char* to_string(ClockBasis b);  // "wall clock", "shifted", "own clock"

struct ClockAlignment {
  uint32_t process = 0;
  uint32_t reference = 0;   // the process the others are aligned to: the lowest rank, else process 0
  ClockBasis basis = ClockBasis::kOwnClock;
  bool aligned = false;     // on one clock with the reference (the reference: some process is on its clock)
  TimeNs offset_ns = 0;     // Process::clock_offset_ns, added to the file's times
  TimeNs shift_ns = 0;      // offset_ns minus the reference's: what this process got beyond the reference
  // Short, for a rank header: "clock reference", "clock +12.30 us vs rank 0" (aligned to it), "clock
  // not aligned" (its own clock), "clock not aligned to rank 0"; "" when the trace has one process.
  std::string label;
  // What was applied: "file times + 2026-10-01 12:17:06 UTC (+1790857026000000000 ns); importer: baseTimeNanoseconds".
  std::string details;
  // Both in one line, what the CLI, the report and the header's tooltip print: "clock aligned to rank
  // 0, +12.30 us: file times + …", "clock reference: …", "clock not aligned (own clock): …", "clock: …".
  std::string text;
};

// One per process, in process order.
std::vector<ClockAlignment> clock_alignments(const Trace& trace);

}  // namespace parascope
