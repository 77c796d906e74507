// What names a training step in a trace: PyTorch profiler's ProfilerStep#N ranges (N all digits).
// The one rule the diff's step pairing (trace_diff.cpp) and the what-if graph's step ranges
// (sim/whatif/dep_graph.cpp) both apply before a user's --step pattern.
#pragma once

#include <algorithm>
#include <string_view>

namespace parascope {

inline bool is_profiler_step_name(std::string_view n) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  if (n.size() <= kPrefix.size() || n.substr(0, kPrefix.size()) != kPrefix) return false;
  return std::all_of(n.begin() + kPrefix.size(), n.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace parascope
