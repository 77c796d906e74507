#include "trace/core/clock_alignment.h"

#include <algorithm>
#include <limits>

namespace parascope {

namespace {

constexpr TimeNs kNoTime = std::numeric_limits<TimeNs>::max();

// The earliest event of each process on the trace clock (kNoTime: none).
std::vector<TimeNs> first_times(const Trace& trace) {
  std::vector<TimeNs> first(trace.processes.size(), kNoTime);
  for (const Track& t : trace.tracks) {
    if (t.key.process >= first.size()) continue;
    TimeNs& f = first[t.key.process];
    if (!t.slices.empty()) f = std::min(f, t.slices.start.front());
    if (t.counter.size()) f = std::min(f, t.counter.time.front());
  }
  return first;
}

std::string process_name(const Process& p) {
  if (p.rank >= 0) return "rank " + std::to_string(p.rank);
  if (!p.name.empty()) return p.name;
  return "pid " + std::to_string(p.pid);
}

std::string signed_duration(TimeNs d) { return (d >= 0 ? "+" : "") + format_duration(d); }
std::string signed_ns(TimeNs d) { return (d >= 0 ? "+" : "") + std::to_string(d) + " ns"; }

ClockBasis basis_of(const Process& p, TimeNs first) {
  // a process without events: its offset alone says whether it was put on the wall clock
  const TimeNs at = first != kNoTime ? first : p.clock_offset_ns;
  if (at >= kEpochLike) return ClockBasis::kWallClock;
  return p.clock_offset_ns != 0 ? ClockBasis::kShifted : ClockBasis::kOwnClock;
}

// Two processes are on one clock when both are on the wall clock, or when neither is and at
// least one was shifted (a sync put it on the other's clock); two own clocks are unrelated.
bool same_clock(ClockBasis a, ClockBasis b) {
  const bool wa = a == ClockBasis::kWallClock, wb = b == ClockBasis::kWallClock;
  if (wa || wb) return wa && wb;
  return a == ClockBasis::kShifted || b == ClockBasis::kShifted;
}

std::string applied(const Process& p, ClockBasis basis) {
  const TimeNs off = p.clock_offset_ns;
  std::string s;
  if (off >= kEpochLike) s = "file times + " + format_utc(off) + " (" + signed_ns(off) + ")";
  else if (off != 0) s = "file times " + signed_duration(off) + " (" + signed_ns(off) + ")";
  else s = "file times as recorded";
  if (basis == ClockBasis::kWallClock && off < kEpochLike) s += ", already wall-clock time (UTC)";
  if (basis != ClockBasis::kWallClock && off == 0) s += ", on the file's own clock";
  if (!p.clock_offset_reason.empty()) s += "; importer: " + p.clock_offset_reason;
  return s;
}

}  // namespace

const char* to_string(ClockBasis b) {
  switch (b) {
    case ClockBasis::kWallClock: return "wall clock";
    case ClockBasis::kShifted: return "shifted";
    case ClockBasis::kOwnClock: return "own clock";
  }
  return "?";
}

std::vector<ClockAlignment> clock_alignments(const Trace& trace) {
  const size_t n = trace.processes.size();
  std::vector<ClockAlignment> out(n);
  if (n == 0) return out;
  const std::vector<TimeNs> first = first_times(trace);
  uint32_t ref = 0;
  for (uint32_t p = 1; p < n; ++p) {
    const int32_t r = trace.processes[p].rank, rr = trace.processes[ref].rank;
    if (r >= 0 && (rr < 0 || r < rr)) ref = p;
  }
  for (uint32_t p = 0; p < n; ++p) {
    ClockAlignment& a = out[p];
    const Process& proc = trace.processes[p];
    a.process = p;
    a.reference = ref;
    a.basis = basis_of(proc, first[p]);
    a.offset_ns = proc.clock_offset_ns;
    a.shift_ns = proc.clock_offset_ns - trace.processes[ref].clock_offset_ns;
    a.details = applied(proc, a.basis);
  }
  const ClockBasis ref_basis = out[ref].basis;
  for (uint32_t p = 0; p < n; ++p)
    if (p != ref) out[p].aligned = same_clock(out[p].basis, ref_basis);
  out[ref].aligned = std::any_of(out.begin(), out.end(), [&](const ClockAlignment& a) { return a.process != ref && a.aligned; });
  if (n == 1) {  // nothing to align: no label, the details say what was applied
    out[0].text = "clock: " + out[0].details;
    return out;
  }
  const std::string ref_name = process_name(trace.processes[ref]);
  for (uint32_t p = 0; p < n; ++p) {
    ClockAlignment& a = out[p];
    std::string status;
    if (p == ref && (a.aligned || a.basis != ClockBasis::kOwnClock)) {
      status = "reference";
      a.label = "clock reference";
    } else if (p != ref && a.aligned) {
      // the shift first: a 260 px label column cuts the end of "rank 1  pid 728  ·  …"
      status = "aligned to " + ref_name + ", " + signed_duration(a.shift_ns);
      a.label = "clock " + signed_duration(a.shift_ns) + " vs " + ref_name;
    } else if (a.basis == ClockBasis::kOwnClock) {
      status = "not aligned (own clock)";
      a.label = "clock not aligned";
    } else {
      status = "not aligned to " + ref_name;
      a.label = "clock " + status;
    }
    a.text = "clock " + status + ": " + a.details;
  }
  return out;
}

}  // namespace parascope
