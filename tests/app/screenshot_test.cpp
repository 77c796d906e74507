#include <catch2/catch.hpp>

#include <QImage>
#include <QScrollBar>
#include <QSignalSpy>
#include <filesystem>
#include <map>

#include "app/qt_app.h"
#include "cli/run_command.h"
#include "gui/main_window.h"
#include "gui/timeline_view.h"
#include "render/timeline_painter.h"
#include "app/sample_copy.h"
#include "test_paths.h"

using namespace parascope;

namespace {

QRgb cat(Category c) { return render::category_color(c).rgb(); }

// Pixels of each colour inside a rectangle of the image.
std::map<QRgb, int> histogram(const QImage& img, QRect r) {
  std::map<QRgb, int> h;
  r = r.intersected(img.rect());
  for (int y = r.top(); y <= r.bottom(); ++y)
    for (int x = r.left(); x <= r.right(); ++x) ++h[img.pixel(x, y) | 0xff000000u];
  return h;
}

}  // namespace

TEST_CASE("A screenshot of the window shows each sample track in its category colours", "[app][screenshot]") {
  test::qt_app();
  gui::MainWindow w;
  w.set_interactive(false);
  w.resize(1500, 850);
  w.show();
  QSignalSpy loaded(&w, &gui::MainWindow::trace_loaded);
  const test::SampleCopy copy("gui-screenshot");
  w.open_inputs({test::qpath(copy.path())});
  REQUIRE(loaded.wait(30000));
  QApplication::processEvents();
  const QImage img = w.grab().toImage();
  REQUIRE(img.size() == QSize(1500, 850));
  const auto* view = w.timeline();
  const QPoint origin = view->viewport()->mapTo(&w, QPoint(0, 0));
  const int scroll = view->verticalScrollBar()->value();
  // each row of rank 0: the band of the data area it covers in the window image
  auto band = [&](size_t row) {
    const auto& r = view->layout().rows()[row];
    return QRect(origin.x() + 260, origin.y() + 26 + static_cast<int>(r.y) - scroll + 1,
                 view->viewport()->width() - 260, static_cast<int>(r.height) - 2);
  };
  const auto& rows = view->layout().rows();
  REQUIRE(rows[2].label == "stream 7");
  REQUIRE(rows[3].label == "stream 7 annotations");
  REQUIRE(rows[4].label == "stream 17");
  REQUIRE(rows[6].label == "thread 727 (python)");
  // stream 7: the GEMMs (compute), the all-reduce of step 2 (communication) and the 4 MiB
  // device → host copies (memory) — the sample's README lists them
  const auto s7 = histogram(img, band(2));
  REQUIRE(s7.count(cat(Category::kCompute)));
  REQUIRE(s7.at(cat(Category::kCompute)) > 100);
  REQUIRE(s7.count(cat(Category::kMemory)));
  REQUIRE(s7.at(cat(Category::kMemory)) > 50);
  REQUIRE(s7.count(cat(Category::kCommunication)));
  // stream 17: NCCL only
  const auto s17 = histogram(img, band(4));
  REQUIRE(s17.count(cat(Category::kCommunication)));
  REQUIRE(s17.at(cat(Category::kCommunication)) > 100);
  REQUIRE(!s17.count(cat(Category::kCompute)));
  // annotations in grey, the CPU thread in the host colour
  const auto ann = histogram(img, band(3));
  REQUIRE(ann.count(cat(Category::kAnnotation)));
  const auto cpu = histogram(img, band(6));
  REQUIRE(cpu.count(cat(Category::kHost)));
  REQUIRE(cpu.at(cat(Category::kHost)) > 2'000);
  // the label column has the two rank headers' band colour at the rows the layout puts them
  int rank_rows = 0;
  for (const auto& r : rows)
    if (r.kind == models::TimelineRow::Kind::kProcess && r.y - scroll + 26 + 10 < view->viewport()->height()) {
      ++rank_rows;
      REQUIRE(img.pixel(origin.x() + 3, origin.y() + 26 + static_cast<int>(r.y) - scroll + 3) == 0xffdde3ea);
    }
  REQUIRE(rank_rows == 2);
}

TEST_CASE("parascope --screenshot writes a PNG with the expected tracks and colours", "[app][screenshot]") {
  const auto dir = test::temp_dir("screenshot");
  const std::string out = (dir / "shot.png").string();
  const std::string cmd = "XDG_CONFIG_HOME=" + dir.string() + " QT_QPA_PLATFORM=offscreen " +
                          test::binary_path("app/gui/parascope") + " --screenshot " + out +
                          " --size 1500x850 " + test::sample_path("allreduce_matmul_2xh200");
  const auto r = test::run_command(cmd);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  REQUIRE(r.out == out + "\n");
  QImage img(QString::fromStdString(out));
  REQUIRE(img.size() == QSize(1500, 850));
  const auto h = histogram(img, img.rect());
  for (Category c : {Category::kCompute, Category::kCommunication, Category::kMemory, Category::kHost, Category::kAnnotation}) {
    INFO(to_string(c));
    REQUIRE(h.count(cat(c)));
    REQUIRE(h.at(cat(c)) > 50);
  }
  // two rank header bands down the left edge
  int bands = 0;
  bool in = false;
  for (int y = 0; y < img.height(); ++y) {
    const bool header = (img.pixel(3, y) | 0xff000000u) == 0xffdde3eau;
    bands += header && !in;
    in = header;
  }
  REQUIRE(bands == 2);
  std::filesystem::remove_all(dir);
}
