#include <catch2/catch.hpp>

#include "render/track_layout.h"
#include "test_paths.h"
#include "trace/io/load_trace.h"

using namespace parascope;
using namespace parascope::render;

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
