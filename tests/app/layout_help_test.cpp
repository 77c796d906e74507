// The window as a first-time user meets it at 1280x720 (issue 18 item 9): the timeline gets most
// of the height, Details is wide and tall enough to read, every bottom dock fits beside it, and
// Help lists the real shortcuts (from the window's actions) and the category colours the
// timeline paints with.
#include <catch2/catch.hpp>

#include <QAction>
#include <QDockWidget>
#include <QMenuBar>
#include <QSettings>
#include <QSignalSpy>
#include <QTest>
#include <QTextBrowser>

#include "app/qt_app.h"
#include "app/sample_copy.h"
#include "gui/help_dialogs.h"
#include "gui/main_window.h"
#include "gui/timeline_view.h"
#include "render/timeline_painter.h"

using namespace parascope;

namespace {

QDockWidget* dock(gui::MainWindow& w, const QString& name) { return w.findChild<QDockWidget*>(name + "_dock"); }

QAction* menu_action(QMenuBar* bar, const QString& menu, const QString& text) {
  for (QAction* m : bar->actions())
    if (m->menu() && m->text().remove(QChar(0x26)) == menu)
      for (QAction* a : m->menu()->actions())
        if (a->text().remove(QChar(0x26)).contains(text)) return a;
  return nullptr;
}

}  // namespace

TEST_CASE("At 1280x720 the first layout gives the timeline most of the window and Details room to read", "[app][gui][layout]") {
  test::qt_app();
  QSettings().remove("main");  // a first start
  gui::MainWindow w;
  w.set_interactive(false);
  w.resize(1280, 720);
  w.show();
  REQUIRE(QTest::qWaitForWindowExposed(&w));
  const test::SampleCopy copy("layout-first");
  QSignalSpy loaded(&w, &gui::MainWindow::trace_loaded);
  w.open_inputs({test::qpath(copy.path())});
  REQUIRE(loaded.wait(30000));
  QApplication::processEvents();
  INFO("timeline " << w.timeline()->width() << "x" << w.timeline()->height() << ", details " << dock(w, "details")->width() << "x"
                   << dock(w, "details")->height());
  // before: 340 of 720 px (47 %), Details 430x80 (3-4 fields)
  CHECK(w.timeline()->height() >= 720 / 2);
  CHECK(dock(w, "details")->width() >= 250);
  CHECK(dock(w, "details")->height() >= 250);
  // every bottom dock shares one tab group, and raising any keeps the timeline at half the height
  for (const char* name : {"stats", "links", "roofline", "diff", "whatif", "pkb"}) {
    INFO(name);
    QDockWidget* d = dock(w, name);
    REQUIRE(d);
    CHECK(w.dockWidgetArea(d) == Qt::BottomDockWidgetArea);
    CHECK(d->minimumSizeHint().height() <= 230);
    w.raise_dock(name);
    QApplication::processEvents();
    CHECK(w.timeline()->height() >= 720 / 2);
  }
  SECTION("the side and bottom docks fold away and come back") {
    QAction* bottom = menu_action(w.menuBar(), "View", "Bottom Docks");
    REQUIRE(bottom);
    const int before = w.timeline()->height();
    bottom->trigger();
    QApplication::processEvents();
    CHECK(!dock(w, "stats")->isVisible());
    CHECK(w.timeline()->height() > before + 150);
    bottom->trigger();
    QApplication::processEvents();
    CHECK(dock(w, "stats")->isVisible());
    CHECK(w.timeline()->height() == before);
  }
}

TEST_CASE("Help lists the window's actual shortcuts and the timeline's category colours", "[app][gui][help]") {
  test::qt_app();
  gui::MainWindow w;
  REQUIRE(menu_action(w.menuBar(), "Help", "Keyboard Shortcuts"));
  REQUIRE(menu_action(w.menuBar(), "Help", "Legend"));
  const QString keys = gui::shortcuts_html(w);
  // from the menus' actions, with the platform's text for each key
  CHECK(keys.contains("Open…"));
  CHECK(keys.contains(QKeySequence(QKeySequence::Open).toString(QKeySequence::NativeText).toHtmlEscaped()));
  CHECK(keys.contains("Fit Whole Trace"));
  // the timeline's own keys are actions too (W zooms in when the timeline has focus)
  bool zoom_in = false;
  for (QAction* a : w.timeline()->actions())
    if (a->shortcut() == QKeySequence(Qt::Key_W)) {
      zoom_in = true;
      CHECK(keys.contains(a->text().remove('&').toHtmlEscaped()));
    }
  CHECK(zoom_in);
  // a shortcut changed at run time shows in the list: it is read from the actions, not written down
  QAction* fit = menu_action(w.menuBar(), "View", "Fit Whole Trace");
  REQUIRE(fit);
  fit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_F12));
  CHECK(gui::shortcuts_html(w).contains(QKeySequence(Qt::CTRL | Qt::Key_F12).toString(QKeySequence::NativeText)));

  const QString legend = gui::legend_html();
  for (Category c : {Category::kCompute, Category::kCommunication, Category::kMemory, Category::kSync, Category::kHost}) {
    INFO(std::string(to_string(c)));
    CHECK(legend.contains(render::category_color(c).name()));
    CHECK(legend.contains(QString::fromUtf8(to_string(c).data(), static_cast<qsizetype>(to_string(c).size()))));
  }
}
