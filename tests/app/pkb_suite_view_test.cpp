#include <catch2/catch.hpp>

#include <QDockWidget>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>

#include "app/qt_app.h"
#include "gui/data_table_model.h"
#include "gui/main_window.h"
#include "gui/pkb_suite_view.h"
#include "gui/timeline_view.h"
#include "pkb/pkb_suite_fixture.h"
#include "test_paths.h"

using namespace parascope;

TEST_CASE("The PKB suite dock lists the tasks by gap and opens a task's trace on click", "[app][views][pkb]") {
  test::qt_app();
  const auto dir = test::temp_dir("pkb-view");
  test::make_pkb_suite(dir.string());
  gui::MainWindow w;
  w.set_interactive(false);
  w.resize(1600, 1000);
  w.show();
  REQUIRE(w.raise_dock("pkb", 480));
  gui::PkbSuiteView* v = w.pkb_suite();
  v->open_suite(QString::fromStdString(dir.string()), "h200x2");
  v->wait();
  REQUIRE(v->report());
  // the library's table as `pkb report` prints it: the analysed task first, the failed one last
  const DataTable& t = v->suite_model()->table();
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[0][1].text == "1_allreduce");
  CHECK(t.rows[0][6].text == "link");
  CHECK(t.rows[1][2].text == "failed");
  CHECK(v->status_text().contains("1 ok, 1 failed, on h200x2"));

  QSignalSpy open(v, &gui::PkbSuiteView::open_trace);
  QSignalSpy loaded(&w, &gui::MainWindow::trace_loaded);
  v->select_task(0);
  REQUIRE(open.size() == 1);
  CHECK(open[0][0].toString().endsWith("tasks/1_allreduce/trace.pstrace"));
  REQUIRE(loaded.wait(30000));
  CHECK(w.timeline()->trace() != nullptr);
  // the alternatives of the all-reduce: the NCCL model and 26 direct designs
  CHECK(v->designs_model()->table().rows.size() == 27);
  CHECK(v->tabs()->currentIndex() == 0);
  // the task's line keeps to its figures; the design targets' reasons are its tooltip
  CHECK(v->task_text().startsWith("1_allreduce: PKB 30.0"));
  CHECK(v->task_text().contains("Best: all-reduce #1"));
  CHECK(!v->task_text().contains("predicted against"));
  CHECK(v->task_tooltip().contains("predicted against"));
  v->select_task(1);
  CHECK(v->task_text().startsWith("61_gsplat_3d_gaussian_splatting: failed: missing Python package"));
  CHECK(v->task_tooltip().isEmpty());
  const QString png = QString::fromStdString(test::binary_path("pkb_suite_view.png"));
  CHECK(w.grab().save(png));
  std::filesystem::remove_all(dir);
}
