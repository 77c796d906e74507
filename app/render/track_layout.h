// TrackLayout: which rows the timeline shows, in what order and how tall — the track tree
// rank → GPU → streams (+ annotations), SM lanes, copy engines, links, counters, then CPU threads.
// Pure data computed from a Trace and the user's collapse/hide choices; painters and hit-testing
// both read it, so what is drawn is what is clicked.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "trace/core/trace.h"

namespace parascope::render {

struct TimelineRow {
  enum class Kind : uint8_t { kProcess, kDevice, kTrack };
  Kind kind = Kind::kTrack;
  int32_t track = -1;       // kTrack: index into Trace::tracks
  uint32_t process = 0;
  int32_t device = -1;
  std::string label;
  int indent = 0;           // nesting level in the tree
  double y = 0;             // top, in layout coordinates (0 = first row)
  double height = 0;
  int sub_rows = 1;         // slice depth levels shown (track rows)
  bool collapsed = false;   // headers: children hidden
};

struct LayoutOptions {
  double row_height = 18;
  double header_height = 20;
  int max_sub_rows = 8;             // deeper slices are drawn at the last sub-row
  std::set<uint64_t> collapsed;     // header keys (see header_key) the user collapsed
  std::set<int32_t> hidden_tracks;
  bool show_cpu = true;
};

// Stable keys for collapse state: survives reloading the same trace.
uint64_t process_key(uint32_t process);
uint64_t device_key(int32_t device);

class TrackLayout {
 public:
  TrackLayout() = default;
  TrackLayout(const Trace& trace, const LayoutOptions& options);
  const std::vector<TimelineRow>& rows() const { return rows_; }
  double total_height() const { return total_height_; }
  // Index of the row at layout y, or -1.
  int row_at(double y) const;
  // Row index of a track, or -1 when hidden/collapsed.
  int row_of_track(int32_t track) const;

 private:
  std::vector<TimelineRow> rows_;
  std::vector<int> row_of_track_;
  double total_height_ = 0;
};

}  // namespace parascope::render
