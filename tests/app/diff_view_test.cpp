// The Diff dock on two real TP runs (NCCL default channels against 4 channels): the tables hold
// the numbers of trace_diff_test (raw Kineto durations), selecting rows moves both timelines,
// and B's GPU streams are marked with their change in kernel time.
#include <catch2/catch.hpp>

#include <QApplication>
#include <QLabel>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTest>
#include <filesystem>
#include <fstream>

#include "app/qt_app.h"
#include "app/sample_copy.h"
#include "cli/run_command.h"
#include "gui/data_table_model.h"
#include "gui/diff_view.h"
#include "gui/main_window.h"
#include "gui/message_label.h"
#include "gui/timeline_view.h"

using namespace parascope;

TEST_CASE("The diff dock compares two TP runs and moves both timelines to a selected row", "[app][views][diff]") {
  test::qt_app();
  gui::MainWindow w;
  w.set_interactive(false);
  w.resize(1500, 950);
  w.show();
  REQUIRE(w.raise_dock("diff", 480));
  const test::InputCopy a("views-diff", "resources/captures/h200x2_2026-11-30/tp_serial_b1");
  QSignalSpy loaded(&w, &gui::MainWindow::trace_loaded);
  w.open_inputs({test::qpath(a.path())});
  REQUIRE(loaded.wait(30000));
  gui::DiffView* v = w.diff();
  v->open_b({QString::fromStdString(test::source_path("resources/captures/h200x2_2026-11-30/tp_serial_b1_nch4"))});
  v->wait();
  INFO(v->status().toStdString());
  REQUIRE(v->trace_b());
  const DataTable& steps = v->model(gui::DiffView::kSteps)->table();
  REQUIRE(steps.rows.size() == 4);
  CHECK(steps.rows[0][0].text == "ProfilerStep#3");
  CHECK(steps.rows[0][2].value == 3936866);  // host A: rank 1's ProfilerStep#3
  CHECK(steps.rows[0][3].value == 5089086);  // host B
  const DataTable& kernels = v->model(gui::DiffView::kKernels)->table();
  REQUIRE(!kernels.rows.empty());
  CHECK(kernels.rows[0][4].value == 2064466);  // the all-reduce, the largest change
  CHECK(v->model(gui::DiffView::kCollectives)->table().rows.size() == 3);
  CHECK(v->model(gui::DiffView::kStreams)->table().rows.size() == 2);
  CHECK(v->model(gui::DiffView::kLinks)->table().rows.size() == 2);  // tx estimates of both GPUs
  CHECK(v->status().contains("4 steps paired by name"));
  // B's two compute streams are ~31 % busier: both marked, in red
  const auto& marks = v->timeline_b()->track_marks();
  REQUIRE(marks.size() == 2);
  for (const auto& [track, m] : marks) {
    CHECK(m.text.startsWith("+31."));
    CHECK(m.color.red() > m.color.green());
  }

  SECTION("selecting a step shows it in both timelines") {
    const StepDiff& s = v->diff().steps[1];
    QSignalSpy range(v, &gui::DiffView::range_activated);
    v->table(gui::DiffView::kSteps)->selectRow(1);  // unsorted: ProfilerStep#4
    REQUIRE(range.size() == 1);
    CHECK(w.timeline()->has_range());
    CHECK(w.timeline()->range().first == s.start_a);
    CHECK(w.timeline()->range().second == s.end_a);
    CHECK(w.timeline()->mapping().start() == s.start_a);
    CHECK(v->offset() == s.start_b - s.start_a);
    CHECK(v->timeline_b()->mapping().start() == s.start_b);
    CHECK(v->timeline_b()->range().first == s.start_b);
    // panning the main timeline moves B's by the same amount
    w.timeline()->set_view(s.start_a + 1000000, s.end_a + 1000000);
    CHECK(v->timeline_b()->mapping().start() == s.start_b + 1000000);
  }
  SECTION("selecting a kernel row selects its first instance in both traces") {
    v->tabs()->setCurrentIndex(gui::DiffView::kKernels);
    v->table(gui::DiffView::kKernels)->selectRow(0);
    const EventRef sa = w.timeline()->selected(), sb = v->timeline_b()->selected();
    REQUIRE(sa.valid());
    REQUIRE(sb.valid());
    const Trace& ta = *w.timeline()->trace();
    const Trace& tb = *v->timeline_b()->trace();
    const std::string name(ta.str(ta.tracks[sa.track].slices.name[sa.index]));
    CHECK(name.rfind("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 0) == 0);
    CHECK(tb.str(tb.tracks[sb.track].slices.name[sb.index]) == name);
    CHECK(sa == v->diff().kernels[0].example_a);
  }
}

TEST_CASE("The diff dock reports an unreadable B and keeps working", "[app][views][diff]") {
  test::qt_app();
  gui::MainWindow w;
  w.set_interactive(false);
  const test::SampleCopy a("views-diff-bad");
  QSignalSpy loaded(&w, &gui::MainWindow::trace_loaded);
  w.open_inputs({test::qpath(a.path())});
  REQUIRE(loaded.wait(30000));
  w.diff()->open_b({QString::fromStdString(test::source_path("README.md"))});
  w.diff()->wait();
  CHECK(w.diff()->status().startsWith("Could not read B"));
  CHECK(w.diff()->trace_b() == nullptr);
  // then a good B: the sample against itself, no differences, no marks
  w.diff()->open_b({test::qpath(a.path())});
  w.diff()->wait();
  REQUIRE(w.diff()->diff().steps.size() == 3);
  CHECK(w.diff()->timeline_b()->track_marks().empty());
  // a bad step pattern is reported; the pair and its diff stay
  w.diff()->set_step_pattern("(unclosed");
  w.diff()->wait();
  CHECK(w.diff()->status().contains("not a valid regular expression"));
  CHECK(w.diff()->diff().steps.size() == 3);
}

TEST_CASE("The diff dock compares two multi-rank runs as `parascope-cli diff A B` does and says when the ranks differ",
          "[app][views][diff]") {
  // issue 18 item 3: Compare With took one file, so B was one rank of a 2-rank run, and every
  // kernel read -52 % with no warning
  test::qt_app();
  const std::string dir = "resources/captures/h200x2_2026-11-30/";
  const std::string a = test::source_path(dir + "tp_serial_b1"), b = test::source_path(dir + "tp_serial_b1_nch4");
  const std::string csv = (test::temp_dir("views-diff-cli") / "csv").string();
  const auto cli = test::run_command(test::binary_path("app/cli/parascope-cli") + " diff -q --csv " + csv + " " + a + " " + b);
  INFO(cli.err);
  REQUIRE(cli.exit_code == 0);
  CHECK(cli.out.find("the rank counts differ") == std::string::npos);

  gui::MainWindow w;
  w.set_interactive(false);
  const test::InputCopy copy("views-diff-ranks", dir + "tp_serial_b1");
  QSignalSpy loaded(&w, &gui::MainWindow::trace_loaded);
  w.open_inputs({test::qpath(copy.path())});
  REQUIRE(loaded.wait(30000));
  gui::DiffView* v = w.diff();
  // before B: B's empty timeline says how to fill it, not 'Open a trace' with A open (issue 18 item 10)
  CHECK(v->timeline_b()->empty_text().startsWith("B's timeline: Compare With"));
  CHECK(w.timeline()->empty_text().startsWith("Open a trace"));
  const char* ids[gui::DiffView::kTableCount] = {"diff_steps", "diff_kernels", "diff_collectives", "diff_tracks", "diff_links"};
  auto same_as_cli = [&] {
    for (int i = 0; i < gui::DiffView::kTableCount; ++i) {
      INFO(ids[i]);
      std::ifstream f(csv + "/" + ids[i] + ".csv", std::ios::binary);
      REQUIRE(f);
      const std::string want((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      CHECK(v->model(i)->table().to_csv() == want);
    }
  };

  SECTION("B as a folder of per-rank files") {
    v->open_b({QString::fromStdString(b)});
    v->wait();
    INFO(v->status().toStdString());
    REQUIRE(v->trace_b());
    CHECK(v->trace_b()->processes.size() == 2);
    same_as_cli();
    CHECK(v->rank_warning().isEmpty());
    CHECK(v->status().startsWith("B: tp_serial_b1_nch4"));
  }
  SECTION("B as the run's two files, picked together") {
    QStringList files;
    for (const auto& e : std::filesystem::directory_iterator(b)) files << QString::fromStdString(e.path().string());
    REQUIRE(files.size() == 2);
    v->open_b(files);
    v->wait();
    INFO(v->status().toStdString());
    same_as_cli();
    CHECK(v->status().startsWith("B: tp_serial_b1_nch4 (2 files)"));
  }
  SECTION("B as one rank's file: the dock and the CLI say that the ranks differ") {
    std::string rank0;
    for (const auto& e : std::filesystem::directory_iterator(b))
      if (e.path().filename().string().rfind("rank0.", 0) == 0) rank0 = e.path().string();
    REQUIRE(!rank0.empty());
    v->open_b({QString::fromStdString(rank0)});
    v->wait();
    INFO(v->status().toStdString());
    REQUIRE(v->trace_b());
    const QString said = v->rank_warning();
    CHECK(said.startsWith("⚠ The rank counts differ: A has 2 ranks with GPU work (0, 1), B has 1 (0); only in A: rank 1"));
    CHECK(v->findChild<QLabel*>("diff_rank_mismatch")->isVisibleTo(v));
    const auto one = test::run_command(test::binary_path("app/cli/parascope-cli") + " diff -q " + a + " " + rank0);
    REQUIRE(one.exit_code == 0);
    CHECK(one.out.find("the rank counts differ: " + v->diff().rank_mismatch) != std::string::npos);
    // a new A clears the statement
    const test::InputCopy other("views-diff-ranks-2", dir + "tp_serial_b1_nch4");
    w.open_inputs({test::qpath(other.path())});
    REQUIRE(loaded.wait(30000));
    CHECK(v->rank_warning().isEmpty());
  }
}

TEST_CASE("A 2000-character error in the Diff dock wraps: neither the pane nor the window gets wider", "[app][views][diff]") {
  // issue 18: "A long Diff error widens the window" — the status label did not wrap, and a B under a
  // long path made the main window wider than the screen
  test::qt_app();
  gui::MainWindow w;
  w.set_interactive(false);
  w.resize(1280, 720);
  w.show();
  REQUIRE(w.raise_dock("diff", 300));
  const test::SampleCopy a("views-diff-long-error");
  QSignalSpy loaded(&w, &gui::MainWindow::trace_loaded);
  w.open_inputs({test::qpath(a.path())});
  REQUIRE(loaded.wait(30000));
  gui::DiffView* v = w.diff();
  QApplication::processEvents();
  const QSize pane_before = v->minimumSizeHint(), window_before = w.minimumSizeHint();
  // B: a cut-short Kineto file nine folders of 220 characters deep (no spaces: one long word)
  std::filesystem::path dir = test::temp_dir("views-diff-long-path");
  const std::filesystem::path root = dir;
  for (char c : std::string("abcdefghi")) dir /= std::string(220, c);
  std::filesystem::create_directories(dir);
  const std::filesystem::path b = dir / "rank0.json";
  {
    std::ifstream in(test::sample_path("allreduce_matmul_2xh200/rank0.json"));
    std::string head(3000, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    std::ofstream(b) << head;
  }
  v->open_b({QString::fromStdString(b.string())});
  v->wait();
  QApplication::processEvents();
  const QString error = v->status();
  INFO(error.left(200).toStdString());
  CHECK(error.startsWith("Could not read B: "));
  CHECK(error.contains(QString::fromStdString(b.string())));  // the whole message is kept
  CHECK(error.size() > 2000);
  auto* label = v->findChild<QLabel*>("diff_status");
  REQUIRE(label != nullptr);
  CHECK(label->toolTip() == error);
  CHECK(label->wordWrap());
  CHECK(v->minimumSizeHint().width() <= pane_before.width());
  CHECK(v->minimumSizeHint().height() <= pane_before.height());
  CHECK(w.minimumSizeHint().width() <= window_before.width());
  CHECK(w.width() == 1280);
  std::filesystem::remove_all(root);
}

TEST_CASE("A message label shows at most 600 characters, with line breaks in long words", "[app][views][diff]") {
  // U+200B (zero-width space) after each path separator and every 40 characters without a space
  CHECK(gui::MessageLabel::shown_text("short message") == "short message");
  CHECK(gui::MessageLabel::shown_text("/a/b") == QString("/\u200Ba/\u200Bb"));
  const QString word(100, 'x');
  const QString shown = gui::MessageLabel::shown_text(word);
  CHECK(shown.count(QChar(0x200B)) == 2);  // after characters 40 and 80
  CHECK(QString(shown).remove(QChar(0x200B)) == word);
  const QString cut = gui::MessageLabel::shown_text(QString("word ").repeated(400)).remove(QChar(0x200B));
  CHECK(cut.size() == gui::MessageLabel::kShownChars);
  CHECK(cut.endsWith(QChar(0x2026)));
}
