// Test helpers: import Chrome/Kineto JSON text held in memory, and find slices by name.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "trace/core/trace_builder.h"
#include "trace/io/json/byte_source.h"
#include "trace/io/json/kineto_importer.h"

namespace parascope::test {

inline Trace import_text(const std::string& json, FileImportReport* report = nullptr, ImportOptions o = {},
                         const std::string& name = "t.json") {
  auto src = memory_byte_source(json, name);
  TraceBuilder b;
  FileImportReport r = import_chrome_json(*src, b, o);
  if (report) *report = r;
  return b.finish();
}

// The first slice (in track order, then time order) with this name; invalid ref when none.
inline EventRef find_slice(const Trace& t, std::string_view name) {
  for (uint32_t ti = 0; ti < t.tracks.size(); ++ti) {
    const auto& s = t.tracks[ti].slices;
    for (uint32_t i = 0; i < s.size(); ++i)
      if (t.str(s.name[i]) == name) return EventRef{ti, i};
  }
  return {};
}

inline std::string_view slice_name(const Trace& t, EventRef r) { return t.str(t.tracks[r.track].slices.name[r.index]); }

// "a->b" for every flow of a kind, in the trace's flow order.
inline std::vector<std::string> flow_names(const Trace& t, FlowKind kind) {
  std::vector<std::string> out;
  for (const Flow& f : t.flows)
    if (f.kind == kind) out.push_back(std::string(slice_name(t, f.from)) + "->" + std::string(slice_name(t, f.to)));
  return out;
}

inline bool has_warning(const Trace& t, std::string_view part) {
  for (const auto& w : t.warnings)
    if (w.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace parascope::test
