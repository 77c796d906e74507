// The window at 1280 px stays 1280 px whatever it shows: no table column, status line or load error
// raises the main window's minimum width above the screen (issue 18: the collector sample asked for
// 1511 px, a long Diff error for 4482 px). Each case loads a real input offscreen and compares the
// window's minimum width with 1280; a failure lists the widgets that ask for more.
#include <catch2/catch.hpp>

#include <QApplication>
#include <QLineEdit>
#include <QSignalSpy>
#include <QStatusBar>
#include <QWidget>
#include <filesystem>
#include <fstream>
#include <string>

#include "app/qt_app.h"
#include "skip.h"
#include "app/sample_copy.h"
#include "gui/main_window.h"
#include "gui/pkb_suite_view.h"
#include "gui/roofline_view.h"
#include "gui/status_line.h"
#include "gui/whatif_view.h"

using namespace parascope;

namespace {

// the widgets whose minimum width is above `limit`, deepest first: the one to blame
std::string wide_widgets(const QWidget& root, int limit) {
  std::string out;
  for (const QWidget* w : root.findChildren<QWidget*>()) {
    if (!w->isVisible()) continue;
    const int min_w = std::max(w->minimumSizeHint().width(), w->minimumWidth());
    if (min_w <= limit) continue;
    out += std::string(w->metaObject()->className()) + " '" + w->objectName().toStdString() + "' " + std::to_string(min_w) + "\n";
  }
  return out;
}

// opens `input` in a 1280x720 window and raises each dock in turn: the window stays 1280 px
void check_every_dock_fits(const QString& input) {
  test::qt_app();
  gui::MainWindow w;
  w.set_interactive(false);
  w.resize(1280, 720);
  w.show();
  QSignalSpy loaded(&w, &gui::MainWindow::trace_loaded);
  w.open_inputs({input});
  REQUIRE(loaded.wait(30000));
  for (const char* dock : {"stats", "links", "roofline", "diff", "whatif", "pkb", "details", "overlap", "topology"}) {
    INFO(input.toStdString() << ", the " << dock << " dock raised");
    REQUIRE(w.raise_dock(dock));
    QApplication::processEvents();
    w.roofline()->wait();
    w.whatif()->wait();
    QApplication::processEvents();
    INFO(wide_widgets(w, 1280));
    CHECK(w.minimumSizeHint().width() <= 1280);
    CHECK(w.width() == 1280);
  }
}

}  // namespace

TEST_CASE("Every dock of the bundled samples fits a 1280 px window", "[app][gui][layout]") {
  // before: the collector sample's Roofline note ("0 of 346 kernels have a FLOP count …", one
  // unwrapped line) asked for 1511 px, so the window opened wider than the screen
  const std::string input = GENERATE(std::string("resources/samples/record_torch_nccl_2xh200"),
                                     std::string("resources/samples/allreduce_matmul_2xh200"),
                                     std::string("resources/samples/fused_probe_2xh200"),
                                     std::string("resources/captures/h200x2_2026-11-30/tp_serial_b1"));
  const test::InputCopy in("window-width", input);
  check_every_dock_fits(test::qpath(in.path()));
}

TEST_CASE("Every dock of traces nobody here wrote fits a 1280 px window", "[app][gui][layout][real]") {
  // HTA's timeline_analysis trace (194 kernels with long template names) and a 2-GPU Nsight export;
  // read in place: the window writes nothing beside a trace (issue 18 item 11)
  const std::string rel = GENERATE(std::string("external/hta_testdata/timeline_analysis__sampled_rank-0.json.gz"),
                                   std::string("data/nsys/h100_2gpu_1s.sqlite"));
  const std::string path = test::shared_path(rel);
  if (!std::filesystem::exists(path)) PARASCOPE_SKIP("../shared/" + rel + " is not present");
  check_every_dock_fits(QString::fromStdString(path));
}

TEST_CASE("A long load error keeps the window at 1280 px and its whole text in the status line's tooltip", "[app][gui][layout]") {
  // issue 18: the status bar's label took the error on one line, so a cut-short file under a long
  // path (here nine folders of 220 characters, no spaces) made the window as wide as the message
  test::qt_app();
  gui::MainWindow w;
  w.set_interactive(false);
  w.resize(1280, 720);
  w.show();
  QApplication::processEvents();
  const int min_before = w.minimumSizeHint().width();
  std::filesystem::path dir = test::temp_dir("window-width-long-error");
  const std::filesystem::path root = dir;
  for (char c : std::string("abcdefghi")) dir /= std::string(220, c);
  std::filesystem::create_directories(dir);
  const std::filesystem::path bad = dir / "rank0.json";
  {
    std::ifstream in(test::sample_path("allreduce_matmul_2xh200/rank0.json"));
    std::string head(3000, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    std::ofstream(bad) << head;
  }
  QSignalSpy failed(&w, &gui::MainWindow::load_failed);
  w.open_inputs({test::qpath(bad)});
  REQUIRE(failed.wait(30000));
  QApplication::processEvents();
  const QString error = w.last_error();
  INFO(error.left(300).toStdString());
  CHECK(error.contains(test::qpath(bad)));  // the whole path is kept in the message
  CHECK(error.size() > 2000);
  auto* line = w.statusBar()->findChild<gui::StatusLine*>();
  REQUIRE(line != nullptr);
  CHECK(line->message() == error);
  CHECK(line->toolTip() == error);  // cut in the bar, whole in the tooltip
  CHECK(line->text().contains(QChar(0x2026)));
  CHECK(line->text().size() < 400);
  CHECK(line->text().startsWith(error.left(20)));  // the head says what, the tail why
  CHECK(line->text().endsWith(error.right(8)));
  INFO(wide_widgets(w, 1280));
  CHECK(w.minimumSizeHint().width() <= min_before);
  CHECK(w.width() == 1280);
  std::filesystem::remove_all(root);
}

TEST_CASE("A long bad knob in the what-if dock keeps the window at 1280 px", "[app][gui][layout]") {
  // the what-if status line took "bad knob: …" on one line; a pasted 3000-character value asked
  // the window for the whole line's width
  test::qt_app();
  gui::MainWindow w;
  w.set_interactive(false);
  w.resize(1280, 720);
  w.show();
  REQUIRE(w.raise_dock("whatif", 400));
  const test::InputCopy in("window-width-knob", "resources/captures/h200x2_2026-11-30/tp_serial_b1");
  QSignalSpy loaded(&w, &gui::MainWindow::trace_loaded);
  w.open_inputs({test::qpath(in.path())});
  REQUIRE(loaded.wait(30000));
  gui::WhatIfView* v = w.whatif();
  v->wait();
  QApplication::processEvents();
  const int min_before = w.minimumSizeHint().width();
  auto* channels = qobject_cast<QLineEdit*>(v->knob_editor("channels"));
  REQUIRE(channels != nullptr);
  channels->setText(QString(3000, '9') + "x");
  v->run();
  v->wait();
  QApplication::processEvents();
  INFO(v->status().left(300).toStdString());
  CHECK(v->status().startsWith("bad knob: "));
  CHECK(v->status().size() > 3000);  // the whole message is kept
  INFO(wide_widgets(w, 1280));
  CHECK(w.minimumSizeHint().width() <= min_before);
  CHECK(w.width() == 1280);
}

TEST_CASE("A PKB suite folder under a long path keeps the window at 1280 px", "[app][gui][layout]") {
  // the suite dock's line names the folder ("analysing DIR…", "DIR: not a suite …"); word wrap alone
  // cannot break a path without spaces, so its width became the window's
  test::qt_app();
  gui::MainWindow w;
  w.set_interactive(false);
  w.resize(1280, 720);
  w.show();
  REQUIRE(w.raise_dock("pkb", 300));
  QApplication::processEvents();
  const int min_before = w.minimumSizeHint().width();
  std::filesystem::path dir = test::temp_dir("window-width-pkb");
  const std::filesystem::path root = dir;
  for (char c : std::string("abcdefghi")) dir /= std::string(220, c);
  std::filesystem::create_directories(dir);
  gui::PkbSuiteView* v = w.pkb_suite();
  v->open_suite(test::qpath(dir), "h200x2");
  v->wait();
  QApplication::processEvents();
  INFO(v->status_text().left(300).toStdString());
  CHECK(v->report() == nullptr);
  CHECK(v->status_text().contains(test::qpath(dir)));  // the whole message is kept
  INFO(wide_widgets(w, 1280));
  CHECK(w.minimumSizeHint().width() <= min_before);
  CHECK(w.width() == 1280);
  std::filesystem::remove_all(root);
}
