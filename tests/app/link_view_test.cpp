#include <catch2/catch.hpp>

#include <QItemSelectionModel>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTest>

#include "app/qt_app.h"
#include "app/sample_copy.h"
#include "gui/data_table_model.h"
#include "gui/link_view.h"
#include "gui/main_window.h"
#include "gui/timeline_view.h"
#include "render/chart_view.h"

using namespace parascope;

namespace {

void open_and_wait(gui::MainWindow& w, const QStringList& inputs) {
  QSignalSpy loaded(&w, &gui::MainWindow::trace_loaded);
  w.open_inputs(inputs);
  REQUIRE(loaded.wait(30000));
}

int row_named(const gui::DataTableModel& m, const std::string& name) {
  for (size_t i = 0; i < m.table().rows.size(); ++i)
    if (m.table().rows[i][0].text == name) return static_cast<int>(i);
  return -1;
}

}  // namespace

TEST_CASE("The links dock charts and tabulates the collector's measured NVLink counters", "[app][views][links]") {
  test::qt_app();
  gui::MainWindow w;
  w.set_interactive(false);
  w.resize(1500, 950);
  w.show();
  w.raise_dock("links");
  const test::InputCopy copy("views-links", "resources/samples/record_torch_nccl_2xh200");
  open_and_wait(w, {test::qpath(copy.path())});
  gui::LinkView* links = w.links();
  links->set_scope(gui::LinkView::Scope::kTrace);
  links->wait();
  const auto& table = links->model()->table();
  // `parascope-cli links`: 4 measured series (rx/tx of each rank's GPU) and 5 estimated ones
  REQUIRE(table.rows.size() == 9);
  const int tx0 = row_named(*links->model(), "rank 0 GPU 0 \xE2\x86\x92 fabric (NVLink tx)");
  REQUIRE(tx0 >= 0);
  // peak 117.5 GB/s of 425.0 GB/s, 2.577 GB (parascope-cli info)
  CHECK(table.rows[static_cast<size_t>(tx0)][4].value == Approx(117.5e9).margin(0.05e9));
  CHECK(table.rows[static_cast<size_t>(tx0)][11].value == Approx(2.577e9).margin(0.0005e9));
  CHECK(table.rows[static_cast<size_t>(tx0)][1].text == "measured");

  const models::ChartSpec& spec = links->chart_spec();
  REQUIRE(spec.series.size() == 9);
  size_t solid = 0, dashed = 0;
  for (const auto& s : spec.series) {
    CHECK(s.kind == models::SeriesKind::kBand);
    solid += s.style == models::SeriesStyle::kSolid;
    dashed += s.style == models::SeriesStyle::kDashed;
  }
  CHECK(solid == 4);   // measured
  CHECK(dashed == 5);  // estimated
  // the measured tx series peaks at 117.5 GB/s: its envelope's maximum is that sample
  double peak = 0;
  for (const auto& s : spec.series)
    if (s.name == "rank 0 GPU 0 \xE2\x86\x92 fabric (NVLink tx)")
      for (const models::ChartPoint& p : s.points) peak = std::max(peak, p.y);
  CHECK(peak == Approx(117.5).margin(0.05));

  SECTION("selecting a row charts only that link") {
    auto* view = links->table();
    auto* proxy = static_cast<QSortFilterProxyModel*>(view->model());
    view->selectionModel()->select(proxy->mapFromSource(links->model()->index(tx0, 0)),
                                   QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    links->wait();
    REQUIRE(links->chart_spec().series.size() == 1);
    CHECK(links->chart_spec().series[0].name == table.rows[static_cast<size_t>(tx0)][0].text);
  }
  SECTION("following the timeline: zooming narrows the window and the statistics") {
    links->set_scope(gui::LinkView::Scope::kView);
    const auto [s, e] = w.timeline()->trace()->time_span();
    w.timeline()->set_view(s + (e - s) / 2, s + (e - s) / 2 + 1'000'000);
    links->wait();
    CHECK(links->window().end - links->window().start == 1'000'000);
  }
  SECTION("clicking the chart centres the timeline on that time") {
    QWidget* chart = links->chart()->widget();
    auto* viewport = static_cast<QAbstractScrollArea*>(chart)->viewport();
    const QPoint pos(chart->width() / 2, chart->height() / 2);
    const QPointF value = links->chart()->value_at(pos);
    REQUIRE(std::isfinite(value.x()));
    QSignalSpy clicked(links, &gui::LinkView::time_clicked);
    QTest::mouseClick(viewport, Qt::LeftButton, {}, pos);
    REQUIRE(clicked.size() == 1);
    const auto [s, e] = w.timeline()->trace()->time_span();
    const TimeNs expected = s + static_cast<TimeNs>(std::llround(value.x() * 1e6));
    const auto& m = w.timeline()->mapping();
    CHECK(std::llabs((m.start() + m.end()) / 2 - expected) <= m.duration() / 1000 + 2);
  }
}
