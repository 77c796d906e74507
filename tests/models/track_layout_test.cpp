#include <catch2/catch.hpp>

#include "models/track_layout.h"
#include "test_paths.h"
#include "trace/io/load_trace.h"

using namespace parascope;
using namespace parascope::models;

TEST_CASE("TrackLayout orders rank, GPU, streams with annotations, then CPU threads", "[app][layout]") {
  const Trace t = load_trace({test::sample_path("allreduce_matmul_2xh200")});
  LayoutOptions o;
  const TrackLayout l(t, o);
  const auto& rows = l.rows();
  REQUIRE(rows[0].kind == TimelineRow::Kind::kProcess);
  REQUIRE(rows[0].label.rfind("rank 0", 0) == 0);
  REQUIRE(rows[1].kind == TimelineRow::Kind::kDevice);
  REQUIRE(rows[1].label == "GPU 0  NVIDIA H200");
  REQUIRE(rows[2].label == "stream 7");
  REQUIRE(rows[3].label == "stream 7 annotations");
  REQUIRE(rows[3].indent == 3);
  // y is contiguous and row_at finds every row
  double y = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    REQUIRE(rows[i].y == y);
    REQUIRE(l.row_at(y + rows[i].height / 2) == static_cast<int>(i));
    y += rows[i].height;
  }
  REQUIRE(l.total_height() == y);
  REQUIRE(l.row_at(-1) == -1);
  REQUIRE(l.row_at(y + 1) == -1);
  SECTION("collapsing a rank hides its devices and threads") {
    LayoutOptions c;
    c.collapsed.insert(process_key(rows[0].process));
    const TrackLayout lc(t, c);
    REQUIRE(lc.rows()[1].kind == TimelineRow::Kind::kProcess);  // rank 1 follows directly
    REQUIRE(lc.row_of_track(rows[2].track) == -1);
  }
}

#include "bench/synthetic_trace.h"

TEST_CASE("TrackLayout folds SM lanes into a heat strip and follows hide and reorder", "[app][layout]") {
  bench::SyntheticOptions so;
  so.ranks = 2;
  so.sms = 8;
  so.steps = 1;
  const Trace t = bench::make_synthetic_trace(so);
  LayoutOptions o;
  const TrackLayout l(t, o);
  const auto& rows = l.rows();
  // rank 0: header, GPU, stream 7, stream 17 (NCCL), stream 21 (copies), SM strip, 2 NVLink counters
  // the clock as clock_alignment.h says it: rank 0 is the reference, its details in the tooltip
  REQUIRE(rows[0].label == "rank 0  pid 4000  node0  ·  clock reference");
  // (the generator's times are epoch times, so each rank is on the wall clock)
  REQUIRE(rows[0].details == "clock reference: file times as recorded, already wall-clock time (UTC); importer: sync event");
  REQUIRE(rows[1].label == "GPU 0  NVIDIA H200");
  REQUIRE(rows[2].label == "stream 7");
  REQUIRE(rows[3].label == "stream 17 (NCCL)");
  REQUIRE(rows[4].label == "stream 21 (copies)");
  REQUIRE(rows[5].kind == TimelineRow::Kind::kSmGroup);
  REQUIRE(rows[5].label == "SM lanes (8)");
  REQUIRE(rows[5].height == o.heat_strip_height);
  REQUIRE(rows[6].label == "NVLink tx");
  REQUIRE(rows[6].height == 2 * o.row_height);  // counters are double height
  REQUIRE(rows[7].label == "NVLink rx");
  // rank 1's clock is 1234 ns ahead of rank 0's (the generator's offsets)
  const auto r1 = std::find_if(rows.begin() + 1, rows.end(), [](const TimelineRow& r) { return r.kind == TimelineRow::Kind::kProcess; });
  REQUIRE(r1->label == "rank 1  pid 4001  node0  ·  clock +1.234 us vs rank 0");
  REQUIRE(r1->details ==
          "clock aligned to rank 0, +1.234 us: file times +1.234 us (+1234 ns), already wall-clock time (UTC); importer: sync event");

  SECTION("expanding the strip adds one row per SM with 4 role sub-rows") {
    LayoutOptions e;
    e.expanded_sm.insert(0);
    const TrackLayout le(t, e);
    REQUIRE(!le.rows()[5].collapsed);
    for (int sm = 0; sm < 8; ++sm) {
      const auto& r = le.rows()[static_cast<size_t>(6 + sm)];
      REQUIRE(r.label == "SM " + std::to_string(sm));
      REQUIRE(r.sub_rows == kSmRoleCount);
      REQUIRE(r.height == kSmRoleCount * e.sm_sub_row_height);
    }
    REQUIRE(le.rows()[14].label == "NVLink tx");
  }
  SECTION("hiding a track removes its row; moving one swaps it with its neighbour") {
    LayoutOptions h;
    h.hidden_tracks.insert(rows[3].track);
    const TrackLayout lh(t, h);
    REQUIRE(lh.rows()[3].label == "stream 21 (copies)");
    REQUIRE(lh.row_of_track(rows[3].track) == -1);

    LayoutOptions m;
    REQUIRE(TrackLayout::move_track(t, m, rows[4].track, -1));  // copies above NCCL
    const TrackLayout lm(t, m);
    REQUIRE(lm.rows()[3].label == "stream 21 (copies)");
    REQUIRE(lm.rows()[4].label == "stream 17 (NCCL)");
    REQUIRE(!TrackLayout::move_track(t, m, rows[2].track, +5));  // past the end of its siblings
    REQUIRE(TrackLayout::move_process(t, m, 1, -1));            // rank 1 first
    const TrackLayout lp(t, m);
    REQUIRE(lp.rows()[0].label.rfind("rank 1", 0) == 0);
  }
}
