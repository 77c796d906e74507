#include <catch2/catch.hpp>

#include "models/roofline_chart.h"
#include "test_paths.h"
#include "trace/core/topology_json.h"
#include "trace/io/load_trace.h"

using namespace parascope;

TEST_CASE("The roofline chart reads in TFLOP/s and FLOP/byte, not 1e+15", "[models][roofline]") {
  const Trace t = load_trace({test::source_path("resources/captures/h200x2_2026-11-30/tp_serial_b1")});
  const Topology h200x2 = load_topology_file(test::source_path("resources/topologies/h200x2.json"));
  const Topology hgx = load_topology_file(test::source_path("resources/topologies/hgx_h200x8.json"));
  const Roofline r = compute_roofline(t, ceilings_with_datasheet(h200x2, {h200x2, hgx}));
  std::vector<int> point_of_series;
  const models::ChartSpec spec = models::roofline_chart_spec(t, r, &point_of_series);
  CHECK(spec.y.title == "performance (TFLOP/s)");
  CHECK(spec.x.title == "arithmetic intensity (FLOP/byte)");
  // the axis spans TFLOP/s: 1 .. twice the 989 TFLOP/s peak
  CHECK(spec.y.min == Approx(1));
  CHECK(spec.y.max == Approx(2 * 989));
  // the HBM roof flattens at the peak; the biggest GEMM sits at its achieved rate, in TFLOP/s
  REQUIRE(spec.series.size() == 5);
  CHECK(spec.series[0].points.back().y == Approx(989));
  REQUIRE(point_of_series[2] == 0);
  const RooflinePoint& g = r.points[0];
  CHECK(spec.series[2].points[0].x == Approx(2048));
  CHECK(spec.series[2].points[0].y == Approx(g.placement.achieved_flops_per_s / 1e12));
  // the tooltip gives the rate with its unit and the intensity as a plain number
  REQUIRE(spec.series[2].labels.size() == 1);
  CHECK(spec.series[2].labels[0].find("TFLOP/s") != std::string::npos);
  CHECK(spec.series[2].labels[0].find("2048.0 FLOP/byte") != std::string::npos);
  CHECK(spec.series[2].labels[0].find("e+") == std::string::npos);
}
