// FlowBinder: turns Chrome trace flow events into Flows between slices, with the binding rules of
// Perfetto's JSON importer (what ui.perfetto.dev shows), but after all slices of a file are known:
//  - v1 events (ph s/t/f, identity = (id, cat, name)): 's' and 't' bind to the deepest slice on
//    their thread that encloses their timestamp; 'f' too when "bp": "e", otherwise to the first
//    slice on the thread starting at or after it. 's' opens the flow (a second 's' is a duplicate),
//    't' links from the previous point and moves it, 'f' links from it (the flow stays open).
//  - v2 (bind_id + flow_out / flow_in on a slice): flow_out opens, flow_in closes, both steps.
//  - arrows point from the earlier slice to the later one; events are replayed in (ts, file order).
// Ids are namespaced per binder (one per file). Cost: a sort of each involved track's rows plus a
// linear sweep: O((slices + flow events) log n), independent of how flows interleave.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/core/trace_builder.h"

namespace parascope {

struct FlowBindStats {
  int64_t flows = 0;              // Flows added
  int64_t unbound = 0;            // flow events with no slice to bind to
  int64_t without_start = 0;      // 't'/'f' (or flow_in) whose id was never opened
  int64_t duplicate_starts = 0;   // 's' (or flow_out) for an id already open
};

class FlowBinder {
 public:
  // Flow identity of a v1 event: the id (numeric or hex/decimal text; other text is interned) plus
  // category and name.
  struct V1Key {
    uint64_t id = 0;
    bool id_is_string = false;  // id holds a StringId of the raw text
    StringId cat = kEmptyString;
    StringId name = kEmptyString;
    friend bool operator==(const V1Key&, const V1Key&) = default;
  };

  // `thread` is the caller's dense thread number; tracks_of(thread) are the tracks whose slices came
  // from that thread (a Kineto GPU stream thread feeds a stream track and its annotation track).
  void add_v1(char ph, const V1Key& key, bool bind_enclosing, TimeNs ts, uint32_t thread, FlowKind kind);
  // A slice carrying bind_id with flow_in and/or flow_out.
  void add_v2(uint64_t bind_id, bool flow_in, bool flow_out, EventRef slice, TimeNs slice_start);
  void set_thread_tracks(uint32_t thread, std::vector<uint32_t> tracks);
  // Only rows at or after first_row of a track take part (rows of an earlier file on a shared track
  // keep their own flows).
  void set_first_row(uint32_t track, uint32_t first_row);
  bool empty() const { return v1_.empty() && v2_.empty(); }

  // Binds and adds the Flows to `builder` (provisional refs, remapped by finish()). `ts_offset` is
  // added to the events' timestamps first (the file's clock offset, already applied to its slices).
  FlowBindStats bind(TraceBuilder& builder, TimeNs ts_offset = 0);

 private:
  struct V1Event {
    TimeNs ts;
    V1Key key;
    uint32_t thread;
    uint32_t order;
    char ph;
    bool enclosing;
    FlowKind kind;
  };
  struct V2Event {
    TimeNs ts;
    uint64_t id;
    EventRef slice;
    uint32_t order;
    bool in, out;
  };
  std::vector<V1Event> v1_;
  std::vector<V2Event> v2_;
  std::vector<std::vector<uint32_t>> thread_tracks_;
  std::vector<std::pair<uint32_t, uint32_t>> first_rows_;
  uint32_t order_ = 0;
};

}  // namespace parascope
