#include <catch2/catch.hpp>

#include <QAction>
#include <QFile>
#include <QFileInfo>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QStatusBar>
#include <QLineEdit>
#include <QMimeData>
#include <QNativeGestureEvent>
#include <QPointingDevice>
#include <QScrollBar>
#include <QTableView>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTest>
#include <QTextBrowser>
#include <QToolButton>
#include <QTreeWidget>
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "app/qt_app.h"
#include "bench/synthetic_trace.h"
#include "gui/find_bar.h"
#include "gui/kernel_stats_model.h"
#include "gui/main_window.h"
#include "gui/name_delegate.h"
#include "gui/overlap_view.h"
#include "render/overlap_chart.h"
#include "gui/timeline_view.h"
#include "gui/trace_notes.h"
#include "gui/warnings_dialog.h"
#include "cli/run_command.h"
#include "app/sample_copy.h"
#include "skip.h"
#include "test_paths.h"

using namespace parascope;

namespace {

constexpr int kLabelWidth = 260, kRuler = 26;  // TimelineStyle defaults

void open_and_wait(gui::MainWindow& w, const QStringList& inputs) {
  QSignalSpy loaded(&w, &gui::MainWindow::trace_loaded);
  w.open_inputs(inputs);
  REQUIRE(loaded.wait(30000));
}

// The viewport point at the middle of slice `r` (its row must be shown).
QPoint point_of(const gui::TimelineView& v, EventRef r) {
  const auto& s = v.trace()->tracks[r.track].slices;
  const auto& row = v.layout().rows()[static_cast<size_t>(v.layout().row_of_track(static_cast<int32_t>(r.track)))];
  const double x = kLabelWidth + v.mapping().x_of(s.start[r.index] + s.dur[r.index] / 2);
  const double sub_h = row.height / row.sub_rows;
  const double y = kRuler + row.y + (s.depth_of(r.index) + 0.5) * sub_h - v.verticalScrollBar()->value();
  return {static_cast<int>(x), static_cast<int>(y)};
}

EventRef first_named(const Trace& t, std::string_view prefix) {
  for (uint32_t ti = 0; ti < t.tracks.size(); ++ti)
    for (uint32_t i = 0; i < t.tracks[ti].slices.size(); ++i)
      if (t.str(t.tracks[ti].slices.name[i]).rfind(prefix, 0) == 0) return {ti, i};
  return {};
}

}  // namespace

TEST_CASE("The main window opens the bundled sample and shows all its kernels", "[app][gui]") {
  test::qt_app();
  gui::MainWindow w;
  w.set_interactive(false);
  w.resize(1400, 800);
  w.show();
  const test::SampleCopy copy("gui-window");
  const QString sample = test::qpath(copy.path());
  open_and_wait(w, {sample});
  // 21 kernels per rank, counted independently with Python (resources/samples/.../README.md)
  REQUIRE(w.timeline()->kernel_count() == 42);
  REQUIRE(w.timeline()->trace()->processes.size() == 2);
  const Trace& t = *w.timeline()->trace();
  auto* view = w.timeline();

  SECTION("the recent-files list remembers the sample") {
    const QStringList recent = QSettings().value("main/recent").toStringList();
    REQUIRE(!recent.isEmpty());
    REQUIRE(recent.front() == QFileInfo(sample).absoluteFilePath());
  }
  SECTION("zooming with keys, wheel and pinch changes the visible range") {
    const TimeNs before = view->mapping().duration();
    QTest::keyClick(view, Qt::Key_W);
    const TimeNs after_w = view->mapping().duration();
    REQUIRE(after_w < before);
    REQUIRE(std::abs(static_cast<double>(after_w) - static_cast<double>(before) / 1.5) < 2.0);
    QTest::keyClick(view, Qt::Key_S);
    REQUIRE(std::abs(static_cast<double>(view->mapping().duration() - before)) < 3.0);
    // one wheel notch in at the middle of the data area: 1.25×, keeping the time under the cursor
    const QPointF at(kLabelWidth + view->mapping().width() / 2, 200);
    const TimeNs under = view->mapping().time_at(at.x() - kLabelWidth);
    QWheelEvent wheel(at, view->viewport()->mapToGlobal(at), {}, QPoint(0, 120), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(view->viewport(), &wheel);
    REQUIRE(std::abs(static_cast<double>(view->mapping().duration()) - static_cast<double>(before) / 1.25) < 3.0);
    REQUIRE(std::abs(view->mapping().time_at(at.x() - kLabelWidth) - under) <= 2);
    // a touchpad pinch of +50 %
    const TimeNs pinch_before = view->mapping().duration();
    QNativeGestureEvent pinch(Qt::ZoomNativeGesture, QPointingDevice::primaryPointingDevice(), 2, at,
                              at, view->viewport()->mapToGlobal(at), 0.5, QPointF(), 0);
    QApplication::sendEvent(view, &pinch);
    REQUIRE(std::abs(static_cast<double>(view->mapping().duration()) - static_cast<double>(pinch_before) / 1.5) < 3.0);
    QTest::keyClick(view, Qt::Key_0);
    REQUIRE(view->mapping().duration() == before);
    // A/D pan by an eighth of the width
    const TimeNs start = view->mapping().start();
    QTest::keyClick(view, Qt::Key_D);
    REQUIRE(std::abs(static_cast<double>(view->mapping().start() - start) - view->mapping().ns_per_px() * view->mapping().width() / 8) < 2.0);
  }
  SECTION("selecting a kernel fills the details dock with its launch and NCCL annotation") {
    const EventRef nccl = first_named(t, "ncclDevKernel_AllReduce");
    REQUIRE(nccl.valid());
    view->select(nccl);
    const QString html = w.details_html();
    REQUIRE(html.contains("ncclDevKernel_AllReduce"));
    REQUIRE(html.contains("allreduce"));
    REQUIRE(html.contains("[24, 1, 1]"));
    REQUIRE(html.contains("registers/thread"));
    REQUIRE(html.contains("CUDA graph"));
    REQUIRE(html.contains("warps per SM"));  // the free-form args are all there
  }
  SECTION("clicking in the timeline selects the slice under the cursor, hovering names it") {
    const auto& layout = view->layout();
    const auto& row = layout.rows()[2];  // rank 0, GPU 0, stream 7
    const auto& s = t.tracks[static_cast<size_t>(row.track)].slices;
    size_t longest = 0;
    for (size_t i = 0; i < s.size(); ++i)
      if (s.depth_of(i) == 0 && s.dur[i] > s.dur[longest]) longest = i;
    const EventRef r{static_cast<uint32_t>(row.track), static_cast<uint32_t>(longest)};
    const QPoint p = point_of(*view, r);
    REQUIRE(view->tooltip_at(p).contains(QString::fromStdString(std::string(t.str(s.name[longest]))).toHtmlEscaped().left(20)));
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, p);
    REQUIRE(view->selected() == r);
  }
  SECTION("Shift+drag selects a range and the details dock summarises it") {
    QSignalSpy details(&w, &gui::MainWindow::details_changed);
    const QPoint a(kLabelWidth + 100, 200), b(kLabelWidth + 600, 200);
    const TimeNs ta = view->mapping().time_at(100), tb = view->mapping().time_at(600);
    QTest::mousePress(view->viewport(), Qt::LeftButton, Qt::ShiftModifier, a);
    QTest::mouseMove(view->viewport(), QPoint(kLabelWidth + 300, 200));
    QTest::mouseMove(view->viewport(), b);
    QTest::mouseRelease(view->viewport(), Qt::LeftButton, Qt::ShiftModifier, b);
    REQUIRE(view->has_range());
    REQUIRE(std::abs(view->range().first - ta) <= 1);
    REQUIRE(std::abs(view->range().second - tb) <= 1);
    REQUIRE(details.wait(10000));
    REQUIRE(w.details_html().contains("Range"));
    REQUIRE(w.details_html().contains("Most time inside"));
  }
  SECTION("find steps through the matching kernels in time order") {
    auto* find = w.find_bar();
    find->set_pattern("ncclDevKernel_AllReduce", MatchMode::kSubstring);
    view->select({});
    view->fit_all();
    TimeNs last = INT64_MIN;
    std::vector<EventRef> seen;
    for (EventRef r = find->find_next(); r.valid(); r = find->find_next()) {
      REQUIRE(view->selected() == r);
      const TimeNs start = t.tracks[r.track].slices.start[r.index];
      REQUIRE(start >= last);
      last = start;
      seen.push_back(r);
      CHECK(find->status() == QString("%1 of 6").arg(seen.size()));  // which match is shown (issue 18 item 10)
    }
    REQUIRE(seen.size() == 6);  // 3 all-reduces per rank
    REQUIRE(find->status().startsWith("6 matches"));
    REQUIRE(find->find_previous() == seen[4]);
    CHECK(find->status() == "5 of 6");
    find->set_pattern("^ncclDevKernel_SendRecv", MatchMode::kRegex);
    view->select({});
    REQUIRE(find->find_next().valid());
    REQUIRE(find->match_count() == 6);
    find->set_pattern("([", MatchMode::kRegex);
    REQUIRE(!find->find_next().valid());
    REQUIRE(find->status().contains("invalid regular expression"));
  }
  SECTION("the statistics table sorts, filters and jumps to a kernel") {
    auto* proxy = w.stats_proxy();
    REQUIRE(proxy->rowCount() == 6);  // 6 kernel names over both ranks (Python, above)
    w.stats_view()->sortByColumn(gui::KernelStatsModel::kCount, Qt::DescendingOrder);
    REQUIRE(proxy->data(proxy->index(0, gui::KernelStatsModel::kCount)).toInt() == 12);  // the GEMM, 6 per rank
    w.stats_filter()->setText("nccl");
    REQUIRE(proxy->rowCount() == 2);
    const QString name = proxy->data(proxy->index(0, gui::KernelStatsModel::kName)).toString();
    w.activate_stats_row(0);
    const EventRef r = view->selected();
    REQUIRE(r.valid());
    REQUIRE(QString::fromStdString(std::string(t.str(t.tracks[r.track].slices.name[r.index]))) == name);
    w.activate_stats_row(0);  // again: the next instance
    REQUIRE(view->selected() != r);
  }
  SECTION("track tree: collapse a rank by clicking its header, hide and move tracks") {
    const auto rows_before = view->layout().rows().size();
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, QPoint(40, kRuler + 10));
    REQUIRE(view->layout().rows().size() < rows_before);
    REQUIRE(view->layout().rows()[0].collapsed);
    // the folded row is not blank: its GPU's activity, and under the cursor how busy it was
    // (issue 18 item 10); the middle of rank 0's longest stream slice is busy time
    const Trace& tt = *view->trace();
    uint32_t kt = 0, ki = 0;
    TimeNs longest = -1;
    for (uint32_t tr = 0; tr < tt.tracks.size(); ++tr) {
      const Track& track = tt.tracks[tr];
      if (track.key.kind != TrackKind::kGpuStream || track.key.process != view->layout().rows()[0].process) continue;
      for (uint32_t i = 0; i < track.slices.size(); ++i)
        if (track.slices.dur[i] > longest && view->index()->classifier().category(tr, i) == Category::kCompute) {
          longest = track.slices.dur[i];
          kt = tr;
          ki = i;
        }
    }
    REQUIRE(longest > 0);
    view->set_view(tt.tracks[kt].slices.start[ki], tt.tracks[kt].slices.start[ki] + longest);
    const QString folded = view->tooltip_at(QPoint(kLabelWidth + 100, kRuler + 10));
    INFO(folded.toStdString());
    CHECK(folded.contains("<b>rank 0"));
    CHECK(folded.contains("(folded)<br>GPU 0: busy 100 %, mostly compute<br>Click to unfold</p>"));
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, QPoint(40, kRuler + 10));
    REQUIRE(view->layout().rows().size() == rows_before);
    const int32_t stream17 = view->layout().rows()[4].track;
    REQUIRE(view->layout().rows()[4].label == "stream 17");
    REQUIRE(view->move_track(stream17, -1));
    REQUIRE(view->layout().rows()[2].label == "stream 17");
    view->hide_track(stream17);
    REQUIRE(view->layout().row_of_track(stream17) == -1);
    view->show_all_tracks();
    REQUIRE(view->layout().row_of_track(stream17) >= 0);
  }
}

TEST_CASE("Bookmarks and notes are saved beside the trace, the track tree in the settings, and all come back", "[app][gui]") {
  test::qt_app();
  const test::SampleCopy copy("gui-notes");
  const QString input = test::qpath(copy.path());
  const QString notes_file = input + ".parascope-notes.json";
  EventRef noted;
  int32_t hidden = -1;
  TimeNs mark = 0;
  {
    gui::MainWindow w;
    w.set_interactive(false);
    w.show();
    open_and_wait(w, {input});
    REQUIRE(w.notes_path() == notes_file);
    const Trace& t = *w.timeline()->trace();
    mark = w.timeline()->index()->start() + 1'000'000;
    w.timeline()->add_bookmark(mark, "before the first all-reduce");
    noted = first_named(t, "ncclDevKernel_SendRecv");
    w.set_note(noted, "slow on rank 0?");
    hidden = w.timeline()->layout().rows()[3].track;  // stream 7 annotations
    w.timeline()->hide_track(hidden);
    w.timeline()->set_sm_expanded(0, true);
    REQUIRE(w.save_notes());
    REQUIRE(QFile::exists(notes_file));
    QFile f(notes_file);
    REQUIRE(f.open(QIODevice::ReadOnly));
    const QByteArray json = f.readAll();
    CHECK(json.contains("slow on rank 0?"));
    CHECK_FALSE(json.contains("\"view\""));  // the track tree is the user's, in the settings
  }
  gui::MainWindow w2;
  w2.set_interactive(false);
  w2.show();
  open_and_wait(w2, {input});
  REQUIRE(w2.timeline()->bookmarks().size() == 1);
  REQUIRE(w2.timeline()->bookmarks()[0].time == mark);
  REQUIRE(w2.timeline()->bookmarks()[0].label == "before the first all-reduce");
  REQUIRE(w2.notes().note_for(noted) != nullptr);
  REQUIRE(w2.notes().note_for(noted)->text == "slow on rank 0?");
  REQUIRE(w2.timeline()->layout().row_of_track(hidden) == -1);
  w2.timeline()->select(noted);
  REQUIRE(w2.details_html().contains("slow on rank 0?"));

}

TEST_CASE("Folding a rank writes nothing beside the trace and the fold comes back from the settings", "[app][gui]") {
  // issue 18 item 11: folding a rank created TRACE.parascope-notes.json inside resources/samples/
  test::qt_app();
  const test::SampleCopy copy("gui-view-state");
  const QString input = test::qpath(copy.path());
  // qt_catch_main.cpp gave this process a settings folder of its own
  const QString settings_file = QSettings().fileName();
  INFO(settings_file.toStdString());
  REQUIRE(settings_file.contains("parascope-test-settings-"));
  QSettings().remove("trace_views");  // each SECTION's run starts unfolded (one process runs them all)
  size_t rows_folded = 0;
  {
    gui::MainWindow w;
    w.set_interactive(false);
    w.show();
    open_and_wait(w, {input});
    gui::TimelineView* view = w.timeline();
    const size_t rows_open = view->layout().rows().size();
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, QPoint(40, kRuler + 10));  // rank 0's header
    REQUIRE(view->layout().rows()[0].collapsed);
    rows_folded = view->layout().rows().size();
    REQUIRE(rows_folded < rows_open);
    view->set_sm_expanded(1, true);
    QTest::qWait(700);  // past the notes timer (400 ms)
    REQUIRE(w.save_notes());  // and the window's close
  }
  CHECK_FALSE(QFile::exists(input + ".parascope-notes.json"));
  size_t beside = 0;
  for (const auto& e : std::filesystem::directory_iterator(copy.path().parent_path())) beside += e.path() != copy.path();
  CHECK(beside == 0);  // nothing at all beside the trace
  size_t inside = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(copy.path())) ++inside;
  CHECK(inside == 2);  // rank0.json, rank1.json
  QSettings settings;
  const QString key = gui::TraceNotes::view_key({input});
  REQUIRE(key.size() == 40);
  CHECK(settings.value("trace_views/" + key + "/view").toString().contains("collapsed_processes"));

  gui::MainWindow w2;
  w2.set_interactive(false);
  w2.show();
  open_and_wait(w2, {input});
  CHECK(w2.timeline()->layout().rows()[0].collapsed);
  CHECK(w2.timeline()->layout_options().expanded_sm.count(1) == 1);

  SECTION("a changed trace (another size) starts unfolded") {
    std::ofstream(copy.path() / "rank1.json", std::ios::app) << ' ';  // one byte more, still valid JSON
    CHECK(gui::TraceNotes::view_key({input}) != key);
  }
  SECTION("a bookmark is what writes the file") {
    w2.timeline()->add_bookmark(w2.timeline()->index()->start() + 1000, "here");
    REQUIRE(w2.save_notes());
    CHECK(QFile::exists(input + ".parascope-notes.json"));
  }
}

TEST_CASE("The status bar's warnings open a list of the load's warnings, then its notes, the ones `info` prints", "[app][gui][warnings][notes]") {
  // issue 18 item 6: "(10 warnings)" in the status bar could be neither clicked nor hovered, and
  // half of those 10 were no problem but how the trace was made
  test::qt_app();
  const test::InputCopy copy("gui-warnings", "resources/samples/record_torch_nccl_2xh200");
  const auto cli = test::run_command(test::binary_path("app/cli/parascope-cli") + " info --json -q " + copy.path().string());
  INFO(cli.err);
  REQUIRE(cli.exit_code == 0);
  const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(cli.out));
  QStringList expected, expected_notes;
  for (const QJsonValue& v : doc.object().value("warnings").toArray()) expected << v.toString();
  for (const QJsonValue& v : doc.object().value("notes").toArray()) expected_notes << v.toString();
  // the bundled sample: its command exited with status 1, neither rank's file was closed and each
  // has 2 NVTX ranges without end; the notes: torchrun's run summary, NVLink sampling per rank
  REQUIRE(expected.size() == 5);
  REQUIRE(expected.filter("the recorded command exited with status 1").size() == 1);
  REQUIRE(expected.filter("has no end index").size() == 2);
  REQUIRE(expected_notes.size() == 5);
  REQUIRE(expected_notes.filter("collector: 237 CUPTI records").size() == 1);
  REQUIRE(expected_notes.filter("nvlink sampling: PM sampling").size() == 4);

  gui::MainWindow w;
  w.set_interactive(false);
  w.resize(1600, 900);
  w.show();
  open_and_wait(w, {test::qpath(copy.path())});
  QToolButton* button = w.warnings_button();
  REQUIRE(button);
  REQUIRE(button->isVisible());
  CHECK(button->text() == "5 warnings, 5 notes");
  QString status;
  for (const QLabel* l : w.statusBar()->findChildren<QLabel*>())
    if (l->text().contains("GPUs")) status = l->text();
  CHECK_FALSE(status.contains("warnings"));  // said once, by the button
  // the tooltip: the first three warnings, by file name, how many more, how many notes
  CHECK(button->toolTip().startsWith("manifest.json: the recorded command exited with status 1\n"));
  CHECK(button->toolTip().count('\n') == 5);
  CHECK(button->toolTip().contains("and 2 more warnings"));
  CHECK(button->toolTip().contains("5 notes on how the trace was made (no problem)"));
  CHECK_FALSE(button->toolTip().contains("CUPTI records"));

  QTest::mouseClick(button, Qt::LeftButton);
  auto* dialog = w.findChild<gui::WarningsDialog*>("warnings_dialog");
  REQUIRE(dialog);
  CHECK(dialog->isVisible());
  auto check_rows = [](QTreeWidget* list, const QStringList& lines) {
    REQUIRE(list->topLevelItemCount() == lines.size());
    for (int i = 0; i < lines.size(); ++i) {
      const QTreeWidgetItem* item = list->topLevelItem(i);
      INFO(lines[i].toStdString());
      CHECK(item->data(1, Qt::UserRole).toString() == lines[i]);
      // the file column names the file the line is about, the message column the rest
      CHECK(lines[i] == item->toolTip(0) + ": " + item->text(1));
      CHECK(item->text(0) == QFileInfo(item->toolTip(0)).fileName());
    }
  };
  check_rows(dialog->list(), expected);
  CHECK(dialog->list()->topLevelItem(0)->text(0) == "manifest.json");
  check_rows(dialog->notes_list(), expected_notes);
  CHECK(dialog->notes_list()->isVisible());
  // two sections, warnings above notes
  CHECK(dialog->list()->geometry().bottom() < dialog->notes_list()->geometry().top());
  CHECK(dialog->text() == "warnings\n  " + expected.join("\n  ") + "\nnotes\n  " + expected_notes.join("\n  "));

  SECTION("a trace without warnings or notes hides the button") {
    const test::SampleCopy clean("gui-warnings-none");
    open_and_wait(w, {test::qpath(clean.path())});
    CHECK_FALSE(button->isVisible());
    CHECK(dialog->list()->topLevelItemCount() == 0);
    CHECK(dialog->notes_list()->topLevelItemCount() == 0);
    CHECK_FALSE(dialog->notes_list()->isVisible());
  }
}

TEST_CASE("The warnings button counts warnings and notes apart", "[app][gui][warnings][notes]") {
  test::qt_app();
  CHECK(gui::warnings_button_text(5, 5) == "5 warnings, 5 notes");
  CHECK(gui::warnings_button_text(1, 0) == "1 warning");
  CHECK(gui::warnings_button_text(0, 1) == "1 note");
  CHECK(gui::warnings_button_text(0, 3) == "3 notes");
  CHECK(gui::warnings_button_text(0, 0).isEmpty());
  // notes alone: no warning in the tooltip, only their count
  CHECK(gui::warnings_tooltip({}, {"a.pstrace: collector: 1 CUPTI records, 0 dropped by CUPTI, 0 buffer requests refused (exit)"}) ==
        "1 note on how the trace was made (no problem)\nClick for the list");
}

TEST_CASE("Kernel names: the Kernel column stretches, NCCL's collectives stay distinct when cut", "[app][gui][names]") {
  // issue 18 item 7: 'ncclDevKerne…age<4096ul>)' for AllReduce, ReduceScatter and AllGather alike
  test::qt_app();
  gui::MainWindow w;
  w.set_interactive(false);
  w.resize(1600, 900);
  w.show();
  REQUIRE(w.raise_dock("stats", 300));
  const test::SampleCopy copy("gui-names");
  open_and_wait(w, {test::qpath(copy.path())});
  QTableView* table = w.stats_view();
  QHeaderView* header = table->horizontalHeader();
  CHECK(header->sectionResizeMode(gui::KernelStatsModel::kName) == QHeaderView::Stretch);
  QTest::qWait(20);
  int sum = 0;
  for (int c = 0; c < header->count(); ++c) sum += header->sectionSize(c);
  CHECK(sum == table->viewport()->width());  // no empty band right of the last column
  CHECK(header->sectionSize(gui::KernelStatsModel::kName) > 420);  // the width it had fixed
  // the category column holds "communication" with its swatch
  const int category = header->sectionSize(gui::KernelStatsModel::kCategory);
  CHECK(category >= table->fontMetrics().horizontalAdvance("communication") + 30);

  const QString names[] = {"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                           "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                           "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)"};
  for (int width : {160, 200, 260, 330}) {
    QSet<QString> shown;
    for (const QString& n : names) {
      const QString s = gui::NameDelegate::shown_text(n, table->font(), width, table);
      INFO(width << ": " << s.toStdString());
      CHECK(s.startsWith("ncclDevKernel_A") != s.startsWith("ncclDevKernel_R"));
      CHECK(table->fontMetrics().horizontalAdvance(s) <= width);
      shown.insert(s);
    }
    CHECK(shown.size() == 3);
  }
  // what Qt's middle eliding made of them at 160 px: fewer texts than kernels
  QSet<QString> qt_elided;
  for (const QString& n : names) qt_elided.insert(table->fontMetrics().elidedText(n, Qt::ElideMiddle, 160));
  CHECK(qt_elided.size() < 3);
  // a label the column cuts is whole in its tooltip, with what it leaves out: how the rank's clock
  // was put on the common timeline (clock_alignment.h)
  const auto& rows = w.timeline()->layout().rows();
  const QString tip = w.timeline()->tooltip_at(QPoint(40, kRuler + 10));
  CHECK(tip == "<p style=\"white-space:nowrap\"><b>" + QString::fromStdString(rows[0].label).toHtmlEscaped() + "</b><br>" +
                   QString::fromStdString(rows[0].details).toHtmlEscaped() + "</p>");
  CHECK(tip.contains("<b>rank 0"));
  CHECK(tip.contains("clock reference: file times + 20"));  // the base as a UTC date
}

TEST_CASE("Kernel names: HTA's split_embedding kernels, alike when cut one by one, read apart in the Kernel column", "[app][gui][names][real]") {
  // issue 18 item 7: three 'void split_embedding_backward_cod… int>, float, float, float, long)' rows,
  // then 'split_embedding_backward_codegen_rowwise_ada…' for all of them at the 1280 px Kernel column
  const std::string hta = test::shared_path("external/hta_testdata/timeline_analysis__sampled_rank-0.json.gz");
  if (!std::filesystem::exists(hta)) PARASCOPE_SKIP("../shared/external/hta_testdata is not present");
  test::qt_app();
  gui::MainWindow w;
  w.set_interactive(false);
  w.resize(1280, 720);
  w.show();
  open_and_wait(w, {QString::fromStdString(hta)});
  w.stats_filter()->setText("split_embedding_backward");
  QSortFilterProxyModel* proxy = w.stats_proxy();
  REQUIRE(proxy->rowCount() == 6);  // 4 kernels and 2 find_long_segments
  QTableView* table = w.stats_view();
  QTest::qWait(20);
  const int width = table->horizontalHeader()->sectionSize(gui::KernelStatsModel::kName);
  QStringList names;
  for (int r = 0; r < proxy->rowCount(); ++r) names << proxy->data(proxy->index(r, gui::KernelStatsModel::kName)).toString();
  QSet<QString> alone;
  for (const QString& n : names) alone.insert(gui::NameDelegate::shown_text(n, table->font(), width, table));
  const QStringList shown = gui::NameDelegate::shown_texts(names, table->font(), width, table);
  INFO("Kernel column " << width << " px: " << shown.join(" | ").toStdString());
  CHECK(alone.size() == 1);
  CHECK(QSet<QString>(shown.begin(), shown.end()).size() == 6);
  for (const QString& s : shown) {
    CHECK(s.startsWith("split_emb"));
    CHECK(table->fontMetrics().horizontalAdvance(s) <= width);
  }
  CHECK(std::any_of(shown.begin(), shown.end(), [](const QString& s) { return s.contains("unweighted_kernel_cta_per_row_1"); }));
  // what the column's delegate paints
  auto* delegate = qobject_cast<gui::NameDelegate*>(table->itemDelegateForColumn(gui::KernelStatsModel::kName));
  REQUIRE(delegate != nullptr);
  for (int r = 0; r < proxy->rowCount(); ++r)
    CHECK(delegate->column_text(proxy->index(r, gui::KernelStatsModel::kName), names[r], table->font(), width, table) == shown[r]);
  // the tooltip keeps the whole name
  CHECK(proxy->data(proxy->index(0, gui::KernelStatsModel::kName), Qt::ToolTipRole).toString() == names[0]);
}

TEST_CASE("Dropping files on the window opens them", "[app][gui]") {
  test::qt_app();
  gui::MainWindow w;
  w.set_interactive(false);
  w.show();
  QSignalSpy loaded(&w, &gui::MainWindow::trace_loaded);
  const test::SampleCopy copy("gui-drop");
  QMimeData mime;
  mime.setUrls({QUrl::fromLocalFile(test::qpath(copy.path() / "rank0.json"))});
  QDragEnterEvent enter(QPoint(200, 200), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&w, &enter);
  REQUIRE(enter.isAccepted());
  QDropEvent drop(QPointF(200, 200), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&w, &drop);
  INFO(w.last_error().toStdString());
  REQUIRE(loaded.wait(30000));
  REQUIRE(w.timeline()->trace()->processes.size() == 1);
  REQUIRE(w.timeline()->kernel_count() == 21);
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

TEST_CASE("Selecting a kernel shows its SM lanes and the overlap chart", "[app][gui]") {
  test::qt_app();
  bench::SyntheticOptions so;
  so.ranks = 2;
  so.sms = 8;
  so.steps = 1;
  auto trace = std::make_shared<const Trace>(bench::make_synthetic_trace(so));
  const gui::LoadedTrace lt = gui::complete_load(trace, std::make_shared<const models::TimelineIndex>(*trace));
  gui::MainWindow w;
  w.set_interactive(false);
  w.resize(1400, 900);
  w.show();
  w.show_loaded(lt, {"synthetic"});
  const Trace& t = *lt.trace;

  SECTION("a fused GEMM: 6 compute SMs, 2 communicating ones, from the probe lanes") {
    const EventRef k = first_named(t, "ps_fused_gemm_reduce_scatter");
    REQUIRE(k.valid());
    w.timeline()->select(k);
    w.overlap()->wait();
    QApplication::processEvents();
    REQUIRE(w.overlap()->has_chart());
    const auto& c = w.overlap()->chart();
    REQUIRE(c.sms.size() == 8);
    const TimeNs kd = t.tracks[k.track].slices.dur[k.index];
    const TimeNs tile = kd / 6;  // the generator's tiles: SMs 6 and 7 put for 6/10 and wait 3/10 of each
    REQUIRE(c.sms[7].communicate_ns == 6 * (tile * 6 / 10));
    REQUIRE(c.sms[7].wait_ns == 6 * (tile * 3 / 10));
    REQUIRE(c.sms[7].compute_ns == 0);
    REQUIRE(c.sms[0].communicate_ns == 0);
    REQUIRE(c.sms[0].compute_ns == 6 * (tile - 300));  // SM 0 starts each tile on time, 300 ns short
    const QString html = w.details_html();
    REQUIRE(html.contains("SM lanes during this kernel"));
    REQUIRE(html.contains("8 of 8"));
    REQUIRE(html.contains("2 SMs, SM 6–7"));
  }
  SECTION("an all-reduce: its exposed part is what no compute kernel covered") {
    const EventRef k = first_named(t, "ncclDevKernel_AllReduce");
    REQUIRE(k.valid());
    w.timeline()->select(k);
    w.overlap()->wait();
    QApplication::processEvents();
    const auto& c = w.overlap()->chart();
    REQUIRE(!c.bars.empty());
    const auto& ks = t.tracks[k.track].slices;
    const TimeNs s = ks.start[k.index], e = s + ks.dur[k.index];
    // compute on this device inside [s, e): the compute stream's kernels (they do not overlap)
    TimeNs covered = 0;
    for (uint32_t ti = 0; ti < t.tracks.size(); ++ti) {
      const Track& tr = t.tracks[ti];
      if (tr.key.kind != TrackKind::kGpuStream || tr.key.device != t.tracks[k.track].key.device || tr.key.id != 7) continue;
      for (size_t i = 0; i < tr.slices.size(); ++i)
        covered += std::max<TimeNs>(0, std::min(e, tr.slices.start[i] + tr.slices.dur[i]) - std::max(s, tr.slices.start[i]));
    }
    REQUIRE(c.bars[0].communication_ns == e - s);
    REQUIRE(c.bars[0].hidden_ns == covered);
    REQUIRE(c.bars[0].exposed_ns() == e - s - covered);
    REQUIRE(c.bars[1].label == "stream 17 (NCCL)");
  }
  SECTION("the SM lanes fold into a heat strip; clicking its label expands them") {
    const auto& rows = w.timeline()->layout().rows();
    const auto strip = std::find_if(rows.begin(), rows.end(), [](const auto& r) { return r.kind == models::TimelineRow::Kind::kSmGroup; });
    REQUIRE(strip != rows.end());
    const int32_t dev = strip->device;
    const size_t before = rows.size();
    const int y = kRuler + static_cast<int>(strip->y) + 10 - w.timeline()->verticalScrollBar()->value();
    REQUIRE(w.timeline()->layout().row_at(w.timeline()->layout_y(QPoint(60, y))) == static_cast<int>(strip - rows.begin()));
    // a pause first, so that QTest does not pair this click with an earlier one into a double-click
    QTest::mouseClick(w.timeline()->viewport(), Qt::LeftButton, {}, QPoint(60, y), QApplication::doubleClickInterval() + 50);
    REQUIRE(w.timeline()->layout_options().expanded_sm.count(dev) == 1);
    REQUIRE(w.timeline()->layout().rows().size() == before + 8);
  }
}

TEST_CASE("The window opens the real Nsight Systems exports", "[app][gui][shared]") {
  if (!test::shared_available()) PARASCOPE_SKIP("../shared/data (real Nsight exports) is not present");
  test::qt_app();
  // copies: the window may write notes beside what it opens, never into ../shared
  const auto dir = test::temp_dir("gui-nsys");
  for (const char* f : {"h100_2gpu_1s.sqlite", "mfu_2gpu_before.sqlite"})
    std::filesystem::copy_file(test::shared_path(std::string("data/nsys/") + f), dir / f);
  gui::MainWindow w;
  w.set_interactive(false);
  w.resize(1400, 800);
  w.show();
  SECTION("a training loop: 3442 kernels, 1721 per GPU (../shared/data/nsys/README.md)") {
    open_and_wait(w, {test::qpath(dir / "h100_2gpu_1s.sqlite")});
    REQUIRE(w.timeline()->kernel_count() == 3'442);
    REQUIRE(w.timeline()->trace()->devices.size() == 2);
    int64_t counted = 0;
    for (int r = 0; r < w.stats_model()->rowCount(); ++r)
      counted += w.stats_model()->data(w.stats_model()->index(r, gui::KernelStatsModel::kCount), gui::KernelStatsModel::kSortRole).toLongLong();
    REQUIRE(counted == 3'442);
    w.find_bar()->set_pattern("cublas", MatchMode::kSubstring);
    const EventRef k = w.find_bar()->find_next();
    REQUIRE(k.valid());
    REQUIRE(w.details_html().contains("grid"));
    REQUIRE(w.details_html().contains("compute"));
  }
  SECTION("a run with NCCL: 66 SendRecv kernels, communication") {
    open_and_wait(w, {test::qpath(dir / "mfu_2gpu_before.sqlite")});
    REQUIRE(w.timeline()->kernel_count() == 4'010);  // 1993 + 2017
    w.find_bar()->set_pattern("ncclDevKernel_SendRecv", MatchMode::kSubstring);
    const EventRef k = w.find_bar()->find_next();
    REQUIRE(k.valid());
    REQUIRE(w.find_bar()->match_count() == 66);
    REQUIRE(w.details_html().contains("communication"));
    w.overlap()->wait();
    QApplication::processEvents();
    REQUIRE(w.overlap()->has_chart());
    const auto& c = w.overlap()->chart();
    REQUIRE(c.sms.empty());  // no probe lanes in an Nsight export
    const auto& s = w.timeline()->trace()->tracks[k.track].slices;
    REQUIRE(c.bars[0].communication_ns == s.dur[k.index]);  // the window is the kernel itself
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("scripts/run's first view: the sample's first NCCL all-reduce selected and zoomed to, notes untouched", "[app][gui][first-view]") {
  // scripts/run opens resources/samples/record_torch_nccl_2xh200 with --find ncclDevKernel_AllReduce
  test::qt_app();
  gui::MainWindow w;
  w.set_interactive(false);
  w.resize(1600, 900);
  w.show();
  const test::InputCopy copy("gui-first-view", "resources/samples/record_torch_nccl_2xh200");
  open_and_wait(w, {test::qpath(copy.path())});
  const Trace& t = *w.timeline()->trace();
  // the earliest slice whose name contains the pattern, over every track (the find bar searches
  // from the view's start, which is the trace's start right after opening)
  EventRef earliest;
  TimeNs at = 0;
  for (uint32_t ti = 0; ti < t.tracks.size(); ++ti)
    for (uint32_t i = 0; i < t.tracks[ti].slices.size(); ++i)
      if (t.str(t.tracks[ti].slices.name[i]).find("ncclDevKernel_AllReduce") != std::string_view::npos &&
          (!earliest.valid() || t.tracks[ti].slices.start[i] < at)) {
        earliest = {ti, i};
        at = t.tracks[ti].slices.start[i];
      }
  REQUIRE(earliest.valid());
  const TimeNs full = w.timeline()->mapping().duration();
  REQUIRE(w.show_first_view("ncclDevKernel_AllReduce", false));
  const EventRef sel = w.timeline()->selected();
  CHECK(sel.track == earliest.track);
  CHECK(sel.index == earliest.index);
  CHECK(t.tracks[sel.track].key.kind == TrackKind::kGpuStream);  // the kernel itself, not an API call
  // zoomed to it: the 6.9 s trace down to the kernel with a margin
  CHECK(w.timeline()->mapping().duration() < full / 100);
  CHECK(w.timeline()->mapping().start() <= at);
  CHECK(w.timeline()->mapping().end() >= at + t.tracks[sel.track].slices.dur[sel.index]);
  CHECK(w.details_html().contains("ncclDevKernel_AllReduce"));
  CHECK_FALSE(w.show_first_view("no slice is called this", false));
  QTest::qWait(700);  // past the notes timer (400 ms): a first view is not an edit
  CHECK_FALSE(std::filesystem::exists(copy.path().string() + ".parascope-notes.json"));
}

TEST_CASE("A probe-only file: the status line counts SM-lane spans, --expand-sm opens the lanes without writing notes", "[app][gui][first-view]") {
  // fused_probe.pstrace: 74 + 74 SM-lane spans, no kernel records (resources/samples/fused_probe_2xh200)
  test::qt_app();
  gui::MainWindow w;
  w.set_interactive(false);
  w.resize(1600, 900);
  w.show();
  const test::InputCopy copy("gui-probe-status", "resources/samples/fused_probe_2xh200");
  open_and_wait(w, {test::qpath(copy.path())});
  QString status;
  for (const QLabel* l : w.statusBar()->findChildren<QLabel*>())
    if (l->text().contains("GPUs")) status = l->text();
  INFO(status.toStdString());
  CHECK(status.contains("2 GPUs, 148 SM-lane spans (probes; no kernel records)"));
  CHECK_FALSE(status.contains("0 kernels"));
  REQUIRE(w.show_first_view("ag_gemm_fused_tma", true));
  const EventRef sel = w.timeline()->selected();
  const TrackKey key = w.timeline()->trace()->tracks[sel.track].key;
  CHECK(key.kind == TrackKind::kSmLane);
  CHECK(w.timeline()->layout_options().expanded_sm.count(key.device) == 1);
  QTest::qWait(700);
  CHECK_FALSE(std::filesystem::exists(copy.path().string() + ".parascope-notes.json"));
}

TEST_CASE("A probe-only file: the overlap dock and `parascope-cli window` count the SM spans' communication alike", "[app][gui][overlap]") {
  // issue 18 item 5: zoomed into the fused all-gather + GEMM, the dock said 'No communication on
  // this device in this window' while Details listed 64 communication slices: the device's
  // activity was built from GPU streams only, and this file has SM-lane spans and no kernels
  test::qt_app();
  const test::InputCopy copy("gui-probe-overlap", "resources/samples/fused_probe_2xh200");
  const auto cli = test::run_command(test::binary_path("app/cli/parascope-cli") + " window --json -q --from 0 --device 0 " + copy.path().string());
  INFO(cli.err);
  REQUIRE(cli.exit_code == 0);
  const QJsonObject dev = QJsonDocument::fromJson(QByteArray::fromStdString(cli.out)).object().value("devices").toArray().at(0).toObject();
  const auto comm = static_cast<TimeNs>(dev.value("communication_ns").toDouble());
  // the union over GPU 0's 21 SM lanes of their communicate spans (the lanes' sum is 5.383 ms)
  CHECK(comm == 678048);
  CHECK(dev.value("hidden_ns").toDouble() == 0);
  CHECK(dev.value("spans_only").toBool());

  gui::MainWindow w;
  w.set_interactive(false);
  w.resize(1280, 720);
  w.show();
  open_and_wait(w, {test::qpath(copy.path())});
  const auto* index = w.timeline()->index();
  QSignalSpy details(&w, &gui::MainWindow::details_changed);
  QSignalSpy chart_ready(w.overlap(), &gui::OverlapView::updated);
  w.timeline()->set_range(index->start(), index->end());
  REQUIRE((!chart_ready.isEmpty() || chart_ready.wait(10000)));
  REQUIRE((!details.isEmpty() || details.wait(10000)));
  REQUIRE(w.overlap()->has_chart());
  const render::OverlapChartData& chart = w.overlap()->chart();
  REQUIRE(!chart.bars.empty());
  CHECK(chart.bars.front().communication_ns == comm);
  CHECK(chart.bars.front().hidden_ns == 0);
  CHECK(chart.spans_only);
  CHECK(chart.sms.size() == 21);
  // the range's start is the trace's start, said as such (a range left of it reads 'before')
  CHECK(w.details_html().contains("0 ns after trace start"));
}

TEST_CASE("View → Show All Flows is off by default: only the selected slice's flows are drawn", "[app][gui][flows]") {
  // issue 18: launch → kernel arrows for everything in view made a hairball when zoomed
  test::qt_app();
  QSettings().remove("view/show_all_flows");
  const test::SampleCopy copy("gui-flows");
  gui::MainWindow w;
  w.set_interactive(false);
  w.resize(1400, 800);
  w.show();
  open_and_wait(w, {test::qpath(copy.path())});
  gui::TimelineView* view = w.timeline();
  auto* all = w.findChild<QAction*>("show_all_flows");
  REQUIRE(all != nullptr);
  CHECK(all->isCheckable());
  CHECK_FALSE(all->isChecked());
  CHECK_FALSE(view->show_flows());
  auto drawn = [&] {
    view->viewport()->repaint();
    return view->last_paint_stats().flows_drawn;
  };
  view->fit_all();
  REQUIRE_FALSE(view->trace()->flows.empty());
  CHECK(drawn() == 0);  // nothing selected: no arrows at all
  const EventRef gemm = first_named(*view->trace(), "nvjet");
  REQUIRE(gemm.valid());
  view->select(gemm);
  const std::vector<uint32_t> own = render::flows_of(*view->trace(), gemm);
  REQUIRE_FALSE(own.empty());  // its launch
  CHECK(drawn() == own.size());
  all->setChecked(true);  // all flows in view, and the choice kept
  CHECK(view->show_flows());
  CHECK(drawn() > own.size());
  CHECK(QSettings().value("view/show_all_flows").toBool());
  all->setChecked(false);
  CHECK(drawn() == own.size());
  CHECK_FALSE(QSettings().value("view/show_all_flows").toBool());
}

TEST_CASE("Selecting a matched all-reduce draws arrows to its instance on the other rank and lists the peers", "[app][gui][flows]") {
  // issue 18 item 10: no cross-rank arrow between paired all-reduces although the CLI matches them
  test::qt_app();
  QSettings().remove("view/show_all_flows");
  const test::SampleCopy copy("gui-peer-flows");
  gui::MainWindow w;
  w.set_interactive(false);
  w.resize(1400, 800);
  w.show();
  open_and_wait(w, {test::qpath(copy.path())});
  gui::TimelineView* view = w.timeline();
  const Trace& t = *view->trace();
  REQUIRE(view->collective_peer_index() != nullptr);
  // the library's matching, as `parascope-cli stats` (collective_test.cpp: 3 all-reduces by order)
  const CollectiveMatch& match = view->collective_peer_index()->match();
  REQUIRE(match.complete == 3);
  const MatchedCollective& ar0 = match.collectives[0];
  REQUIRE(ar0.members.size() == 2);
  const EventRef k0 = t.collectives[ar0.members[0].collective].kernel;  // rank 0's first all-reduce
  const EventRef k1 = t.collectives[ar0.members[1].collective].kernel;  // rank 1's
  REQUIRE(t.str(t.tracks[k0.track].slices.name[k0.index]).rfind("ncclDevKernel_AllReduce", 0) == 0);
  view->fit_all();
  auto drawn = [&] {
    view->viewport()->repaint();
    return view->last_paint_stats().flows_drawn;
  };
  view->select(k0);
  REQUIRE(view->selected_peers().found());
  REQUIRE(view->selected_peers().members.size() == 2);
  CHECK(view->selected_peers().members[1].slice == k1);
  // its launch arrow (flows_of) and one arrow to rank 1's kernel
  const size_t own = render::flows_of(t, k0).size();
  CHECK(drawn() == own + 1);
  // Details: rank 1 arrived 167198 ns after rank 0 (collective_peers_test.cpp, from the files)
  const QString html = w.details_html();
  CHECK(html.contains("Matched across ranks"));
  CHECK(html.contains("167.2 us"));
  CHECK(html.contains("2 of 2 ranks"));
  // the peer's link in Details selects rank 1's kernel, which points back at rank 0's
  auto* details = w.findChild<QTextBrowser*>("details");
  REQUIRE(details != nullptr);
  emit details->anchorClicked(QUrl(QString("slice:%1.%2").arg(k1.track).arg(k1.index)));
  CHECK(view->selected() == k1);
  REQUIRE(view->selected_peers().members.size() == 2);
  CHECK(view->selected_peers().members[0].slice == k0);
  CHECK(view->selected_peers().members[1].selected);
  CHECK(drawn() == render::flows_of(t, k1).size() + 1);
  // a GEMM is no collective: its launch only, no peers
  const EventRef gemm = first_named(t, "nvjet");
  REQUIRE(gemm.valid());
  view->fit_all();  // the link zoomed to rank 1's kernel
  view->select(gemm);
  CHECK_FALSE(view->selected_peers().found());
  CHECK(drawn() == render::flows_of(t, gemm).size());
  CHECK_FALSE(w.details_html().contains("Matched across ranks"));
}

TEST_CASE("The kernel statistics dock shows a probe-only trace's kernels, from their SM spans", "[app][gui][probes]") {
  // issue 18: resources/samples/fused_probe_2xh200 showed "0 kernels" (no CUPTI kernel records)
  test::qt_app();
  const test::InputCopy copy("gui-probe-stats", "resources/samples/fused_probe_2xh200");
  gui::MainWindow w;
  w.set_interactive(false);
  w.resize(1400, 800);
  w.show();
  open_and_wait(w, {test::qpath(copy.path())});
  auto* proxy = w.stats_proxy();
  // as kernel_stats_test and `parascope-cli stats`: 6 probe buffer names, each on both GPUs
  REQUIRE(proxy->rowCount() == 6);
  w.stats_view()->sortByColumn(gui::KernelStatsModel::kTotal, Qt::DescendingOrder);
  CHECK(proxy->data(proxy->index(0, gui::KernelStatsModel::kName)).toString() == "gemm_rs_fused_ldst_8sm_8192x8192x8192/push");
  CHECK(proxy->data(proxy->index(0, gui::KernelStatsModel::kCount)).toInt() == 2);
  CHECK(proxy->data(proxy->index(0, gui::KernelStatsModel::kCategory)).toString() == "communication");
  // a row still jumps to the kernel's spans in the timeline
  w.activate_stats_row(0);
  const EventRef r = w.timeline()->selected();
  REQUIRE(r.valid());
  const Trace& t = *w.timeline()->trace();
  CHECK(t.str(t.tracks[r.track].slices.name[r.index]) == "gemm_rs_fused_ldst_8sm_8192x8192x8192/push");
  CHECK(t.tracks[r.track].key.kind == TrackKind::kSmLane);
}
