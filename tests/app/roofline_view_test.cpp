#include <catch2/catch.hpp>

#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTest>

#include "app/qt_app.h"
#include "app/sample_copy.h"
#include "gui/data_table_model.h"
#include "gui/main_window.h"
#include "gui/roofline_view.h"
#include "gui/timeline_view.h"

using namespace parascope;

TEST_CASE("The roofline dock places the TP capture's GEMMs and selects a kernel on click", "[app][views][roofline]") {
  test::qt_app();
  gui::MainWindow w;
  w.set_interactive(false);
  w.resize(1500, 950);
  w.show();
  w.raise_dock("roofline", 420);
  const test::InputCopy copy("views-roofline", "resources/captures/h200x2_2026-11-30/tp_serial_b1");
  QSignalSpy loaded(&w, &gui::MainWindow::trace_loaded);
  w.open_inputs({test::qpath(copy.path())});
  REQUIRE(loaded.wait(30000));
  gui::RooflineView* v = w.roofline();
  v->wait();
  const Roofline& r = v->roofline();
  // as roofline_test / parascope-cli roofline: 32 of 64 kernels with FLOPs, the datasheet's peak
  CHECK(r.kernels == 64);
  CHECK(r.kernels_with_flops == 32);
  CHECK(r.ceilings.bf16_flops == Approx(989e12));
  REQUIRE(v->model()->table().rows.size() == 7);
  CHECK(v->model()->table().rows[0][0].text == "nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NNT");
  CHECK(v->model()->table().rows[0][11].value == Approx(16 * 549755813888.0 / 11.957771e-3 / 989e12));
  // two roofs and one circle per GEMM name (3): no GEMM moves link bytes
  const auto& spec = v->chart_spec();
  REQUIRE(spec.series.size() == 5);
  CHECK(spec.x.log);
  CHECK(spec.series[2].kind == models::SeriesKind::kScatter);
  CHECK(spec.series[2].points[0].x == Approx(2048));

  SECTION("clicking the biggest GEMM's point selects its first instance") {
    QSignalSpy activated(v, &gui::RooflineView::kernel_activated);
    v->chart()->on_click(render::ChartHit{2, 0, spec.series[2].points[0]});
    REQUIRE(activated.size() == 1);
    const EventRef sel = w.timeline()->selected();
    REQUIRE(sel.valid());
    const Trace& t = *w.timeline()->trace();
    CHECK(t.str(t.tracks[sel.track].slices.name[sel.index]) == "nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NNT");
  }
  SECTION("double-clicking a table row selects that kernel") {
    auto* table = v->table();
    const QModelIndex idx = table->model()->index(0, 0);  // sorted by time: the biggest GEMM
    QSignalSpy activated(v, &gui::RooflineView::kernel_activated);
    emit table->doubleClicked(idx);
    REQUIRE(activated.size() == 1);
    CHECK(w.timeline()->selected().valid());
  }
}
