#include "trace/io/collector/collector_notes.h"

#include <algorithm>
#include <cctype>

namespace parascope {

namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

// "collector: 237 CUPTI records, 0 dropped by CUPTI, 0 buffer requests refused (exit)"; a process
// that ended by a signal ("(SIGABRT)") stays a warning: its trace stops at the crash
bool clean_run_summary(std::string_view line) {
  constexpr std::string_view kHead = "collector: ";
  constexpr std::string_view kNothingLost = " CUPTI records, 0 dropped by CUPTI, 0 buffer requests refused (exit)";
  if (!line.starts_with(kHead) || !line.ends_with(kNothingLost)) return false;
  const size_t at = line.find(kNothingLost);
  return at != std::string_view::npos && all_digits(line.substr(kHead.size(), at - kHead.size()));
}

}  // namespace

bool is_collector_note(std::string_view line) {
  if (clean_run_summary(line)) return true;
  // what the chip offers and what is sampled; refusals, overflows and failures say otherwise
  if (line.starts_with("nvlink sampling: PM sampling counters on ") ||
      line.starts_with("nvlink sampling: PM sampling on device "))
    return true;
  // "clock sync device 0: host window [...] ... -> CUPTI - globaltimer = ... (method)"; a failed
  // one reads "clock sync on device 0 failed"
  if (line.starts_with("clock sync device "))
    return line.find("; the host window and the kernel brackets miss each other") == std::string_view::npos;
  return false;
}

}  // namespace parascope
