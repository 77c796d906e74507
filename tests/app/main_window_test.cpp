#include <catch2/catch.hpp>

#include <QSignalSpy>
#include <QTest>

#include "app/qt_app.h"
#include "gui/main_window.h"
#include "gui/timeline_view.h"
#include "test_paths.h"

using namespace parascope;

TEST_CASE("The main window opens the bundled sample and shows all its kernels", "[app][gui]") {
  test::qt_app();
  gui::MainWindow w;
  w.set_interactive(false);
  w.resize(1400, 800);
  w.show();
  QSignalSpy loaded(&w, &gui::MainWindow::trace_loaded);
  w.open_inputs({QString::fromStdString(test::sample_path("allreduce_matmul_2xh200"))});
  REQUIRE(loaded.wait(30000));
  // 21 kernels per rank, counted independently with Python (resources/samples/.../README.md)
  REQUIRE(w.timeline()->kernel_count() == 42);
  REQUIRE(w.timeline()->trace()->processes.size() == 2);

  SECTION("zooming with keys changes the visible range around the centre") {
    const TimeNs before = w.timeline()->mapping().duration();
    QTest::keyClick(w.timeline(), Qt::Key_W);
    REQUIRE(w.timeline()->mapping().duration() < before);
    QTest::keyClick(w.timeline(), Qt::Key_0);
    REQUIRE(w.timeline()->mapping().duration() == before);
  }
  SECTION("selecting a kernel fills the details dock") {
    const Trace& t = *w.timeline()->trace();
    EventRef nccl;
    for (uint32_t ti = 0; ti < t.tracks.size() && !nccl.valid(); ++ti)
      for (uint32_t i = 0; i < t.tracks[ti].slices.size(); ++i)
        if (t.str(t.tracks[ti].slices.name[i]).rfind("ncclDevKernel_AllReduce", 0) == 0) {
          nccl = {ti, i};
          break;
        }
    REQUIRE(nccl.valid());
    w.timeline()->select(nccl);
    const QString html = w.details_html();
    REQUIRE(html.contains("ncclDevKernel_AllReduce"));
    REQUIRE(html.contains("allreduce"));
    REQUIRE(html.contains("[24, 1, 1]"));
  }
  SECTION("clicking in the timeline selects the slice under the cursor") {
    const auto& layout = w.timeline()->layout();
    const auto& t = *w.timeline()->trace();
    // the first stream row of rank 0 and its longest kernel
    const auto& row = layout.rows()[2];
    const auto& s = t.tracks[static_cast<size_t>(row.track)].slices;
    size_t longest = 0;
    for (size_t i = 0; i < s.size(); ++i)
      if (s.depth_of(i) == 0 && s.dur[i] > s.dur[longest]) longest = i;
    const auto& m = w.timeline()->mapping();
    const double x = 260 + m.x_of(s.start[longest] + s.dur[longest] / 2);
    const double y = 26 + row.y + 4;
    QTest::mouseClick(w.timeline()->viewport(), Qt::LeftButton, {}, QPoint(static_cast<int>(x), static_cast<int>(y)));
    REQUIRE(w.timeline()->selected() == EventRef{static_cast<uint32_t>(row.track), static_cast<uint32_t>(longest)});
  }
}

TEST_CASE("A bad file is reported naming the file, and the window stays usable", "[app][gui]") {
  test::qt_app();
  gui::MainWindow w;
  w.set_interactive(false);
  QSignalSpy failed(&w, &gui::MainWindow::load_failed);
  w.open_inputs({"/nonexistent/trace.json"});
  REQUIRE(failed.wait(10000));
  REQUIRE(w.last_error() == "/nonexistent/trace.json: no such file or directory");
  REQUIRE(w.timeline()->trace() == nullptr);
}
