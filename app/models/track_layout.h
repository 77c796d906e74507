// TrackLayout: which rows the timeline shows, in what order and how tall — the track tree
// rank → GPU → streams (+ annotations), collectives, SM lanes (a heat strip, expandable into one
// row per SM), copy engines, links, counters, then host threads and NVTX. Pure data computed from a
// Trace and the user's choices (collapse, hide, reorder); painters and hit-testing both read it,
// so what is drawn is what is clicked. Rows are contiguous: row i+1 starts where row i ends.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "models/track_lod.h"
#include "trace/core/trace.h"

namespace parascope::models {

struct TimelineRow {
  enum class Kind : uint8_t { kProcess, kDevice, kSmGroup, kTrack };
  Kind kind = Kind::kTrack;
  int32_t track = -1;       // kTrack: index into Trace::tracks
  uint32_t process = 0;
  int32_t device = -1;
  std::string label;
  std::string details;      // more than the label holds, for its tooltip (a rank: how its clock was aligned)
  int indent = 0;           // nesting level in the tree
  double y = 0;             // top, in layout coordinates (0 = first row)
  double height = 0;
  int sub_rows = 1;         // slice depth levels (or SM roles) shown
  bool collapsed = false;   // headers: children hidden; SM groups: lanes folded into the heat strip
};

struct LayoutOptions {
  double row_height = 18;
  double header_height = 20;
  double sm_sub_row_height = 5;     // an expanded SM lane is kSmRoleCount sub-rows of this height
  double heat_strip_height = 64;    // the folded SM lanes of one device
  int max_sub_rows = kMaxSubRows;   // deeper slices are drawn at the last sub-row
  std::set<uint64_t> collapsed;     // header keys (process_key / device_key) the user collapsed
  std::set<int32_t> expanded_sm;    // devices whose SM lanes are shown one row per SM
  std::set<int32_t> hidden_tracks;
  std::map<int32_t, int> track_order;     // user order among siblings (position), else the default
  std::map<uint32_t, int> process_order;  // user order of ranks, else by rank
  bool show_cpu = true;
  bool hide_empty = true;           // tracks with neither slices nor counter samples get no row
  bool operator==(const LayoutOptions&) const = default;
};

// Stable keys for collapse state.
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
  // The process order shown and, for a track, its siblings in shown order (hidden ones included).
  const std::vector<uint32_t>& process_order() const { return process_order_; }
  const std::vector<int32_t>& siblings(int32_t track) const;

  // Moves a track (or, with track < 0, process `process`) by `delta` places among its siblings,
  // writing the new order into `options`. Returns false when it cannot move that way.
  static bool move_track(const Trace& trace, LayoutOptions& options, int32_t track, int delta);
  static bool move_process(const Trace& trace, LayoutOptions& options, uint32_t process, int delta);

 private:
  std::vector<TimelineRow> rows_;
  std::vector<int> row_of_track_;
  std::vector<uint32_t> process_order_;
  std::vector<std::vector<int32_t>> groups_;  // sibling groups in shown order
  std::vector<int> group_of_track_;
  double total_height_ = 0;
};

}  // namespace parascope::models
