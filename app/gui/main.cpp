// parascope [options] [INPUT...] — the Parascope GUI.
//   --render-png OUT   render INPUT's timeline offscreen to OUT (no window; works without a display)
//   --screenshot OUT   open the window on INPUT, save a screenshot of it to OUT, then quit
//   --size WxH         image/window size for the two above (default 1600x900)
// The first view of INPUT, in the window or its screenshot (scripts/run passes the sample's):
//   --find NAME        select the first slice whose name contains NAME and zoom to it
//   --expand-sm        with --find: expand the SM lanes of that slice's GPU
//   --show DOCK[,DOCK] raise those docks (links, topology, roofline, overlap, whatif, ...)
//   --whatif "K=V ..." with --show whatif: set the knobs and run the prediction
//   --machine NAME     with --show whatif: predict on that preset (alone: the plain replay there)
//   --whatif-step RE   with --show whatif: step ranges named RE when there is no ProfilerStep#N
//   --compare TRACE    with --show diff: diff INPUT against TRACE
//   --dock-size PX     with --show: the last dock's height (bottom) or width (side)
//   --pkb-suite DIR    open a ParallelKernelBench suite folder (`parascope-cli pkb run`) in the PKB
//                      suite dock; with --screenshot, its first task (largest gap) and its trace
// A first view is not an edit: the trace's view state in the settings is not rewritten for it.
#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QSaveFile>
#include <QScreen>
#include <QTimer>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "gui/diff_view.h"
#include "gui/main_window.h"
#include "gui/overlap_view.h"
#include "gui/pkb_suite_view.h"
#include "gui/timeline_view.h"
#include "gui/whatif_view.h"
#include "render/timeline_painter.h"
#include "trace/io/load_trace.h"

int main(int argc, char** argv) {
  // a write past the file size limit fails with EFBIG (and a message) instead of SIGXFSZ killing us
  std::signal(SIGXFSZ, [](int) {});
  // --render-png needs no display: use the offscreen platform unless one was chosen
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "--render-png" && !std::getenv("QT_QPA_PLATFORM")) ::setenv("QT_QPA_PLATFORM", "offscreen", 1);
  QApplication app(argc, argv);
  QApplication::setOrganizationName("Parascope");
  QApplication::setApplicationName("Parascope");
  QApplication::setApplicationVersion("0.1.0");
  QCommandLineParser cli;
  cli.setApplicationDescription("Multi-GPU trace viewer, analyser and what-if simulator");
  cli.addHelpOption();
  cli.addVersionOption();
  cli.addOption({"render-png", "Render the timeline of INPUT offscreen to <file> and exit.", "file"});
  cli.addOption({"screenshot", "Open INPUT in the window, save a screenshot to <file> and exit.", "file"});
  cli.addOption({"size", "Size for --render-png/--screenshot, WxH.", "size", "1600x900"});
  cli.addOption({"find", "First view: select the first slice whose name contains <name> and zoom to it.", "name"});
  cli.addOption({"expand-sm", "First view, with --find: expand the SM lanes of that slice's GPU."});
  cli.addOption({"show", "First view: raise the docks <names> (comma list: links, topology, roofline, overlap, diff, whatif).", "names"});
  cli.addOption({"dock-size", "With --show: the last dock's height (bottom docks) or width (side docks) in pixels.", "pixels"});
  cli.addOption({"whatif", "First view, with --show whatif: set these knobs (\"k=v k=v\") and run the prediction.", "knobs"});
  cli.addOption({"machine", "First view, with --show whatif: predict on the topology preset <name> (hgx_h200x8, ...).", "name"});
  cli.addOption({"whatif-step", "First view, with --show whatif: step ranges are those named <regex> when the trace has no "
                                "ProfilerStep#N (as parascope-cli whatif --step).", "regex"});
  cli.addOption({"compare", "First view, with --show diff: compare INPUT with <trace> (a file or directory).", "trace"});
  cli.addOption({"pkb-suite", "Open a ParallelKernelBench suite folder in the PKB suite dock (with --screenshot: its first task too).", "dir"});
  cli.addPositionalArgument("INPUT", "Trace files or directories of per-rank files.", "[INPUT...]");
  cli.process(app);
  const QStringList inputs = cli.positionalArguments();
  const QStringList wh = cli.value("size").split('x');
  const QSize size(wh.value(0).toInt() > 0 ? wh.value(0).toInt() : 1600, wh.value(1).toInt() > 0 ? wh.value(1).toInt() : 900);

  if (cli.isSet("render-png")) {
    if (inputs.isEmpty()) {
      std::fprintf(stderr, "parascope: --render-png needs an INPUT\n");
      return 2;
    }
    try {
      std::vector<std::string> paths;
      for (const auto& s : inputs) paths.push_back(s.toStdString());
      const parascope::Trace trace = parascope::load_trace(paths);
      const QImage img = parascope::render::render_timeline_image(trace, size);
      const QString out = cli.value("render-png");
      QSaveFile file(out);  // atomic: a failed write leaves nothing under OUT
      if (!file.open(QIODevice::WriteOnly) || !img.save(&file, QFileInfo(out).suffix().toLatin1().constData()) ||
          !file.commit()) {
        std::fprintf(stderr, "parascope: cannot write %s\n", qPrintable(out));
        return 1;
      }
      std::printf("%s\n", qPrintable(out));
      return 0;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "parascope: %s\n", e.what());
      return 1;
    }
  }

  parascope::gui::MainWindow window;
  const bool shot = cli.isSet("screenshot");
  if (shot) {
    window.set_interactive(false);
    window.resize(size);
  }
  bool first = true;  // the view options are for the trace of the command line, not a later File → Open
  QObject::connect(&window, &parascope::gui::MainWindow::trace_loaded, &window, [&] {
    if (!first) return;
    first = false;
    if (cli.isSet("find")) {
      if (!window.show_first_view(cli.value("find"), cli.isSet("expand-sm")))
        std::fprintf(stderr, "parascope: --find: no slice's name contains %s\n", qPrintable(cli.value("find")));
      if (shot) window.overlap()->wait();
    }
    if (cli.isSet("show")) {
      const QStringList docks = cli.value("show").split(',', Qt::SkipEmptyParts);
      for (qsizetype i = 0; i < docks.size(); ++i) {
        const int px = i + 1 == docks.size() && cli.isSet("dock-size") ? cli.value("dock-size").toInt() : 0;
        if (!window.raise_dock(docks[i], px)) std::fprintf(stderr, "parascope: --show: no dock named %s\n", qPrintable(docks[i]));
      }
    }
    if (cli.isSet("whatif") || cli.isSet("machine") || cli.isSet("whatif-step")) {  // steps, machine, knobs, then one run
      parascope::gui::WhatIfView* v = window.whatif();
      v->wait();
      if (cli.isSet("whatif-step")) {
        v->set_step_pattern(cli.value("whatif-step"));
        v->wait();
      }
      if (cli.isSet("machine") && !v->set_machine(cli.value("machine"))) {
        std::fprintf(stderr, "parascope: --machine: no preset %s\n", qPrintable(cli.value("machine")));
        if (shot) QApplication::exit(2);
        return;
      }
      for (const QString& kv : cli.value("whatif").split(' ', Qt::SkipEmptyParts)) {
        const qsizetype eq = kv.indexOf('=');
        if (eq <= 0 || !v->set_knob(kv.left(eq), kv.mid(eq + 1))) {
          std::fprintf(stderr, "parascope: --whatif: cannot set %s\n", qPrintable(kv));
          if (shot) QApplication::exit(2);
          return;
        }
      }
      v->run();
      if (shot) v->wait();
    }
    if (cli.isSet("compare")) {
      window.diff()->open_b({cli.value("compare")});
      if (shot) window.diff()->wait();
    }
    if (shot) {
      const QString out = cli.value("screenshot");
      QTimer::singleShot(600, &window, [&window, out] {
        const bool ok = window.grab().save(out);
        std::printf("%s\n", qPrintable(out));
        QApplication::exit(ok ? 0 : 1);
      });
    }
  });
  if (shot)
    QObject::connect(&window, &parascope::gui::MainWindow::load_failed, &window, [](const QString& msg) {
      std::fprintf(stderr, "parascope: %s\n", qPrintable(msg));
      QApplication::exit(1);
    });
  window.show();
  if (cli.isSet("pkb-suite")) {
    parascope::gui::PkbSuiteView* v = window.pkb_suite();
    if (shot && inputs.isEmpty()) {
      // the first task's trace opens through the dock; a suite without one is shot as it is
      QObject::connect(v, &parascope::gui::PkbSuiteView::updated, &window, [&window, v, &cli] {
        window.raise_dock("pkb", cli.isSet("dock-size") ? cli.value("dock-size").toInt() : 0);
        const bool has_trace = v->report() && !v->report()->tasks.empty() && !v->report()->tasks.front().trace_path.empty();
        v->select_task(0);
        if (!has_trace)
          QTimer::singleShot(600, &window, [&window, &cli] {
            const QString out = cli.value("screenshot");
            const bool ok = window.grab().save(out);
            std::printf("%s\n", qPrintable(out));
            QApplication::exit(ok ? 0 : 1);
          });
      });
    }
    v->open_suite(cli.value("pkb-suite"));
    window.raise_dock("pkb", cli.isSet("dock-size") ? cli.value("dock-size").toInt() : 0);
  }
  window.open_inputs(inputs);
  return QApplication::exec();
}
