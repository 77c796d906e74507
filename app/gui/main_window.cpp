#include "gui/main_window.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QPointer>
#include <QSaveFile>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollBar>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QStyle>
#include <QTableView>
#include <QTextBrowser>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

#include "gui/find_bar.h"
#include "gui/help_dialogs.h"
#include "gui/kernel_stats_model.h"
#include "gui/link_view.h"
#include "gui/name_delegate.h"
#include "gui/open_dialogs.h"
#include "gui/overlap_view.h"
#include "gui/pkb_suite_view.h"
#include "gui/report_export.h"
#include "gui/slice_details.h"
#include "gui/status_line.h"
#include "gui/diff_view.h"
#include "gui/roofline_view.h"
#include "gui/timeline_view.h"
#include "gui/topology_view.h"
#include "render/qstr.h"
#include "trace/core/trace_machine.h"
#include "gui/warnings_dialog.h"
#include "gui/whatif_view.h"
#include "gui/wheel_guard.h"
#include "trace/core/summary.h"

namespace parascope::gui {

namespace {
}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle("Parascope");
  setAcceptDrops(true);
  setDockOptions(AnimatedDocks | AllowTabbedDocks | AllowNestedDocks);
  timeline_ = new TimelineView(this);
  timeline_->setProperty(kShortcutScopeProperty, tr("Timeline (when it has focus)"));
  setCentralWidget(timeline_);

  auto* find_tb = new QToolBar(tr("Find"), this);
  find_tb->setObjectName("find_toolbar");
  find_ = new FindBar(find_tb);
  find_tb->addWidget(find_);
  addToolBar(Qt::TopToolBarArea, find_tb);
  find_->set_position_source([this] { return timeline_->selected(); }, [this] { return timeline_->mapping().start(); });
  connect(find_, &FindBar::found, this, [this](EventRef r) {
    timeline_->zoom_to(r);
    timeline_->select(r);
  });

  build_docks();
  for (QDockWidget* d : findChildren<QDockWidget*>()) guard_wheel(d);  // the wheel scrolls forms

  status_ = new StatusLine(this);
  status_->set_message(tr("No trace loaded"));
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 1000);
  progress_->setMaximumWidth(220);
  progress_->hide();
  cancel_ = new QPushButton(tr("Cancel"), this);
  cancel_->setObjectName("load_cancel");  // the docks have Cancel buttons of their own
  cancel_->hide();
  warnings_ = new QToolButton(this);
  warnings_->setObjectName("load_warnings");
  warnings_->setAutoRaise(true);
  warnings_->setIcon(style()->standardIcon(QStyle::SP_MessageBoxWarning));
  warnings_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  warnings_->hide();
  connect(warnings_, &QToolButton::clicked, this, &MainWindow::show_warnings);
  statusBar()->addWidget(status_, 1);
  statusBar()->addPermanentWidget(warnings_);
  statusBar()->addPermanentWidget(progress_);
  statusBar()->addPermanentWidget(cancel_);

  loader_ = new TraceLoader(this);
  connect(cancel_, &QPushButton::clicked, loader_, &TraceLoader::cancel);
  connect(loader_, &TraceLoader::progress, this, [this](int, QString file, double f) {
    progress_->setValue(static_cast<int>(f * 1000));
    status_->set_message(tr("Loading %1").arg(QFileInfo(file).fileName().isEmpty() ? file : QFileInfo(file).fileName()));
  });
  connect(loader_, &TraceLoader::loaded, this, [this](int, LoadedTrace t, QStringList inputs) { show_loaded(t, inputs); });
  connect(loader_, &TraceLoader::failed, this, [this](int, QString msg, QStringList) { on_failed(msg); });
  connect(loader_, &TraceLoader::cancelled, this, [this](int) {
    progress_->hide();
    cancel_->hide();
    status_->set_message(tr("Loading cancelled"));
  });
  connect(timeline_, &TimelineView::selection_changed, this, &MainWindow::show_selection);
  connect(timeline_, &TimelineView::range_changed, this, [this](bool has, qint64 s, qint64 e) {
    show_range(has, s, e);
    update_windows();
  });
  connect(timeline_, &TimelineView::view_changed, this, &MainWindow::update_windows);
  connect(timeline_, &TimelineView::bookmarks_changed, this, [this] {
    rebuild_bookmarks_menu();
    if (!applying_notes_) {
      notes_.bookmarks = timeline_->bookmarks();
      schedule_notes_save();
    }
  });
  connect(timeline_, &TimelineView::layout_changed, this, [this] {
    // a relayout that changed nothing the notes keep (a resize) is not an edit
    if (!applying_notes_ && trace_ && !(timeline_->layout_options() == notes_.view)) {
      notes_.view = timeline_->layout_options();
      notes_.save_view(view_key_, *trace_);  // the user's settings, never beside the trace
    }
  });
  notes_timer_.setSingleShot(true);
  notes_timer_.setInterval(400);
  connect(&notes_timer_, &QTimer::timeout, this, &MainWindow::save_notes);

  build_menus();
  QSettings settings;
  restoreGeometry(settings.value("main/geometry").toByteArray());
  restoreState(settings.value("main/state").toByteArray());
  if (!settings.contains("main/state")) {  // first start: the layout is sized once the window is (showEvent)
    resize(1500, 900);
    first_layout_ = true;
  }
  timeline_->set_color_mode(static_cast<render::ColorMode>(settings.value("view/color_mode", 0).toInt()));
  timeline_->set_relative_time(settings.value("view/relative_time", true).toBool());
  timeline_->set_show_flows(settings.value("view/show_all_flows", false).toBool());
}

void MainWindow::apply_first_layout() {
  // the timeline gets most of the height (the bottom tabs 30 %, at least their smallest), the side
  // tabs (Details first) 30 % of the width
  QList<QDockWidget*> bottom, right;
  for (QDockWidget* d : findChildren<QDockWidget*>()) (dockWidgetArea(d) == Qt::BottomDockWidgetArea ? bottom : right).push_back(d);
  const int h = centralWidget()->height() + (bottom.isEmpty() ? 0 : bottom.front()->height());
  resizeDocks(bottom, QList<int>(bottom.size(), std::max(160, h * 3 / 10)), Qt::Vertical);
  resizeDocks(right, QList<int>(right.size(), std::clamp(width() * 3 / 10, 300, 480)), Qt::Horizontal);
}

void MainWindow::showEvent(QShowEvent* e) {
  QMainWindow::showEvent(e);
  if (first_layout_) {
    first_layout_ = false;
    apply_first_layout();
  }
}

void MainWindow::set_docks_shown(Qt::DockWidgetArea area, bool on) {
  Folded& f = area == Qt::BottomDockWidgetArea ? folded_bottom_ : folded_side_;
  if (!on) {
    // the open docks (a tab behind another is open, not visible), and which tabs were in front
    f = {};
    for (QDockWidget* d : findChildren<QDockWidget*>())
      if (dockWidgetArea(d) == area && !d->isFloating() && d->toggleViewAction()->isChecked()) {
        f.open.push_back(d);
        if (d->isVisible()) f.front.push_back(d);
      }
    for (QDockWidget* d : f.open) d->hide();
    return;
  }
  for (QDockWidget* d : f.open)
    if (d) d->show();
  for (QDockWidget* d : f.front)
    if (d) d->raise();
  f = {};
}

MainWindow::~MainWindow() {
  if (notes_timer_.isActive()) save_notes();
}

void MainWindow::build_docks() {
  auto* details_dock = new QDockWidget(tr("Details"), this);
  details_dock->setObjectName("details_dock");
  details_ = new QTextBrowser(details_dock);
  details_->setObjectName("details");
  details_->setOpenLinks(false);
  details_->setHtml(slice_details_html(Trace{}, SliceClassifier(Trace{}), {}, 0));
  connect(details_, &QTextBrowser::anchorClicked, this, &MainWindow::follow_link);
  details_dock->setWidget(details_);
  addDockWidget(Qt::RightDockWidgetArea, details_dock);

  auto* overlap_dock = new QDockWidget(tr("Overlap"), this);
  overlap_dock->setObjectName("overlap_dock");
  overlap_ = new OverlapView(overlap_dock);
  overlap_dock->setWidget(overlap_);
  addDockWidget(Qt::RightDockWidgetArea, overlap_dock);
  // one tab group beside the timeline: Details gets the column's height for its fields (under it,
  // Overlap's 200 px left Details 3-4 lines at 720 px); its "overlap" link raises the Overlap tab
  tabifyDockWidget(details_dock, overlap_dock);

  auto* topology_dock = new QDockWidget(tr("Topology"), this);
  topology_dock->setObjectName("topology_dock");
  topology_ = new TopologyView(topology_dock);
  topology_dock->setWidget(topology_);
  addDockWidget(Qt::RightDockWidgetArea, topology_dock);
  tabifyDockWidget(overlap_dock, topology_dock);
  details_dock->raise();

  auto* links_dock = new QDockWidget(tr("Links"), this);
  links_dock->setObjectName("links_dock");
  links_ = new LinkView(links_dock);
  links_dock->setWidget(links_);
  addDockWidget(Qt::BottomDockWidgetArea, links_dock);
  connect(links_, &LinkView::time_clicked, this, [this](qint64 t) { center_on(t); });

  auto* stats_dock = new QDockWidget(tr("Kernel statistics"), this);
  stats_dock->setObjectName("stats_dock");
  auto* panel = new QWidget(stats_dock);
  auto* v = new QVBoxLayout(panel);
  v->setContentsMargins(2, 2, 2, 2);
  auto* bar = new QHBoxLayout;
  stats_filter_ = new QLineEdit(panel);
  stats_filter_->setPlaceholderText(tr("filter kernels by name (regular expression)"));
  stats_filter_->setClearButtonEnabled(true);
  stats_device_ = new QComboBox(panel);
  bar->addWidget(stats_filter_, 1);
  bar->addWidget(stats_device_);
  v->addLayout(bar);
  stats_model_ = new KernelStatsModel(this);
  stats_proxy_ = new QSortFilterProxyModel(this);
  stats_proxy_->setSourceModel(stats_model_);
  stats_proxy_->setSortRole(KernelStatsModel::kSortRole);
  stats_proxy_->setFilterKeyColumn(KernelStatsModel::kName);
  stats_proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
  stats_view_ = new QTableView(panel);
  stats_view_->setModel(stats_proxy_);
  stats_view_->setSortingEnabled(true);
  stats_view_->sortByColumn(KernelStatsModel::kTotal, Qt::DescendingOrder);
  stats_view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  stats_view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  stats_view_->verticalHeader()->hide();
  stats_view_->verticalHeader()->setDefaultSectionSize(stats_view_->fontMetrics().height() + 6);
  stats_view_->setWordWrap(false);
  stats_view_->setItemDelegateForColumn(KernelStatsModel::kName, new NameDelegate(stats_view_));
  stats_view_->horizontalHeader()->setStretchLastSection(false);
  stats_view_->horizontalHeader()->setSectionResizeMode(KernelStatsModel::kName, QHeaderView::Stretch);
  // the longest category with its colour swatch ("communication" was cut to "commu…ation")
  stats_view_->setColumnWidth(KernelStatsModel::kCategory, stats_view_->fontMetrics().horizontalAdvance("communication") + 44);
  stats_view_->setToolTip(tr("Double-click a row to jump to the next slice of that kernel"));
  v->addWidget(stats_view_);
  stats_dock->setWidget(panel);
  addDockWidget(Qt::BottomDockWidgetArea, stats_dock);
  tabifyDockWidget(stats_dock, links_dock);

  auto* roofline_dock = new QDockWidget(tr("Roofline"), this);
  roofline_dock->setObjectName("roofline_dock");
  roofline_ = new RooflineView(roofline_dock);
  roofline_dock->setWidget(roofline_);
  addDockWidget(Qt::BottomDockWidgetArea, roofline_dock);
  tabifyDockWidget(stats_dock, roofline_dock);
  stats_dock->raise();
  connect(roofline_, &RooflineView::kernel_activated, this, [this](EventRef r) {
    timeline_->zoom_to(r);
    timeline_->select(r);
  });

  auto* diff_dock = new QDockWidget(tr("Diff"), this);
  diff_dock->setObjectName("diff_dock");
  diff_ = new DiffView(diff_dock);
  diff_dock->setWidget(diff_);
  addDockWidget(Qt::BottomDockWidgetArea, diff_dock);
  tabifyDockWidget(stats_dock, diff_dock);
  stats_dock->raise();
  connect(diff_, &DiffView::event_activated, this, [this](EventRef r) {
    timeline_->zoom_to(r);
    timeline_->select(r);
  });
  connect(diff_, &DiffView::range_activated, this, [this](qint64 s, qint64 e) {
    timeline_->set_view(s, e);
    timeline_->set_range(s, e);
  });
  connect(timeline_, &TimelineView::view_changed, diff_, [this] { diff_->follow(timeline_->mapping().start(), timeline_->mapping().end()); });

  auto* whatif_dock = new QDockWidget(tr("What-if"), this);
  whatif_dock->setObjectName("whatif_dock");
  whatif_ = new WhatIfView(whatif_dock);
  whatif_dock->setWidget(whatif_);
  addDockWidget(Qt::BottomDockWidgetArea, whatif_dock);
  tabifyDockWidget(stats_dock, whatif_dock);
  stats_dock->raise();
  connect(timeline_, &TimelineView::view_changed, whatif_, [this] { whatif_->follow(timeline_->mapping().start(), timeline_->mapping().end()); });
  connect(whatif_, &WhatIfView::compare_requested, this, [this](std::shared_ptr<const Trace> t, const QString& label) {
    diff_->set_b(std::move(t), tr("what-if %1").arg(label));
    raise_dock("diff");
  });
  auto* pkb_dock = new QDockWidget(tr("PKB suite"), this);
  pkb_dock->setObjectName("pkb_dock");
  pkb_ = new PkbSuiteView(pkb_dock);
  pkb_dock->setWidget(pkb_);
  addDockWidget(Qt::BottomDockWidgetArea, pkb_dock);
  tabifyDockWidget(stats_dock, pkb_dock);
  stats_dock->raise();
  connect(pkb_, &PkbSuiteView::open_trace, this, [this](const QString& path) { open_inputs({path}); });
  connect(stats_filter_, &QLineEdit::textChanged, this,
          [this](const QString& t) { stats_proxy_->setFilterRegularExpression(QRegularExpression(t, QRegularExpression::CaseInsensitiveOption)); });
  connect(stats_device_, &QComboBox::activated, this, [this](int i) { stats_model_->set_device(stats_device_->itemData(i).toInt()); });
  connect(stats_view_, &QTableView::doubleClicked, this, [this](const QModelIndex& i) { activate_stats_row(i.row()); });
}

void MainWindow::build_menus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open…"), QKeySequence::Open, this, &MainWindow::open_dialog);
  file->addAction(tr("Open &Directory…"), this, &MainWindow::open_directory_dialog);
  file->addAction(tr("Open PKB &Suite…"), this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a suite folder of parascope-cli pkb run"));
    if (dir.isEmpty()) return;
    pkb_->open_suite(dir);
    raise_dock("pkb");
  });
  recent_menu_ = file->addMenu(tr("Open &Recent"));
  rebuild_recent_menu();
  file->addSeparator();
  file->addAction(tr("Export Timeline &PNG…"), this, &MainWindow::export_png);
  file->addAction(tr("Export &Report…"), this, &MainWindow::export_report_dialog);
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::closeAllWindows);

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  edit->addAction(tr("&Find…"), QKeySequence::Find, this, [this] {
    find_->edit()->setFocus();
    find_->edit()->selectAll();
  });
  edit->addAction(tr("Find &Next"), QKeySequence::FindNext, this, [this] { find_->find_next(); });
  edit->addAction(tr("Find &Previous"), QKeySequence::FindPrevious, this, [this] { find_->find_previous(); });
  edit->addSeparator();
  edit->addAction(tr("&Note on the Selection…"), QKeySequence(Qt::CTRL | Qt::Key_N), this, &MainWindow::edit_note);
  edit->addAction(tr("Clear the Range Selection"), this, [this] { timeline_->clear_range(); });

  view_menu_ = menuBar()->addMenu(tr("&View"));
  QMenu* view = view_menu_;
  view->addAction(tr("&Fit Whole Trace"), QKeySequence(Qt::Key_0), timeline_, &TimelineView::fit_all);
  view->addAction(tr("Fit the &Selection"), QKeySequence(Qt::Key_F), this, [this] {
    if (timeline_->selected().valid()) timeline_->zoom_to(timeline_->selected());
    else if (timeline_->has_range()) timeline_->set_view(timeline_->range().first, timeline_->range().second);
  });
  QMenu* color = view->addMenu(tr("&Colour By"));
  auto* group = new QActionGroup(this);
  const std::pair<QString, render::ColorMode> modes[] = {{tr("Category"), render::ColorMode::kCategory},
                                                        {tr("Name"), render::ColorMode::kName},
                                                        {tr("Rank"), render::ColorMode::kRank}};
  const int saved_mode = QSettings().value("view/color_mode", 0).toInt();
  for (const auto& [label, mode] : modes) {
    QAction* a = color->addAction(label);
    a->setCheckable(true);
    a->setChecked(static_cast<int>(mode) == saved_mode);
    group->addAction(a);
    connect(a, &QAction::triggered, this, [this, m = mode] {
      timeline_->set_color_mode(m);
      QSettings().setValue("view/color_mode", static_cast<int>(m));
    });
  }
  QAction* rel = view->addAction(tr("&Relative Time"));
  rel->setCheckable(true);
  rel->setChecked(QSettings().value("view/relative_time", true).toBool());
  rel->setToolTip(tr("Ruler from the trace start; off: the trace clock (time of day for epoch clocks)"));
  connect(rel, &QAction::toggled, this, [this](bool on) {
    timeline_->set_relative_time(on);
    QSettings().setValue("view/relative_time", on);
  });
  // as in Perfetto: the selected slice's flows only, unless asked for all (a new key: the old
  // "view/show_flows" was on by default and would bring the hairball back)
  QAction* flows = view->addAction(tr("Show All &Flows"));
  flows->setObjectName("show_all_flows");
  flows->setCheckable(true);
  flows->setChecked(QSettings().value("view/show_all_flows", false).toBool());
  flows->setToolTip(tr("Draw every launch, send/recv and collective arrow in view; off: only the selected slice's"));
  connect(flows, &QAction::toggled, this, [this](bool on) {
    timeline_->set_show_flows(on);
    QSettings().setValue("view/show_all_flows", on);
  });
  view->addAction(tr("Show All &Hidden Tracks"), timeline_, &TimelineView::show_all_tracks);
  view->addAction(tr("Expand All SM Lanes"), this, [this] {
    if (!trace_) return;
    auto o = timeline_->layout_options();
    for (uint32_t d = 0; d < trace_->devices.size(); ++d) o.expanded_sm.insert(static_cast<int32_t>(d));
    timeline_->apply_layout_options(o);
  });
  view->addAction(tr("Fold All SM Lanes"), this, [this] {
    auto o = timeline_->layout_options();
    o.expanded_sm.clear();
    timeline_->apply_layout_options(o);
  });
  view->addSeparator();
  QAction* side = view->addAction(tr("Show &Side Docks"));
  side->setCheckable(true);
  side->setChecked(true);
  side->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
  side->setToolTip(tr("Fold Details, Overlap and Topology away to give the timeline the width, and back"));
  connect(side, &QAction::toggled, this, [this](bool on) { set_docks_shown(Qt::RightDockWidgetArea, on); });
  QAction* bottom = view->addAction(tr("Show &Bottom Docks"));
  bottom->setCheckable(true);
  bottom->setChecked(true);
  bottom->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_J));
  bottom->setToolTip(tr("Fold the bottom tabs (statistics, links, diff, what-if...) away to give the timeline the height, and back"));
  connect(bottom, &QAction::toggled, this, [this](bool on) { set_docks_shown(Qt::BottomDockWidgetArea, on); });
  view->addSeparator();
  for (QDockWidget* d : findChildren<QDockWidget*>()) view->addAction(d->toggleViewAction());

  bookmarks_menu_ = menuBar()->addMenu(tr("&Bookmarks"));
  rebuild_bookmarks_menu();

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&Keyboard Shortcuts…"), QKeySequence::HelpContents, this,
                  [this] { show_help_dialog(this, "shortcuts_dialog", tr("Keyboard shortcuts"), shortcuts_html(*this)); });
  help->addAction(tr("&Legend…"), this, [this] { show_help_dialog(this, "legend_dialog", tr("Legend"), legend_html()); });
}

void MainWindow::rebuild_bookmarks_menu() {
  bookmarks_menu_->clear();
  bookmarks_menu_->addAction(tr("Add Bookmark at the Selection or Cursor (M)"), this, [this] {
    const TimeNs t = timeline_->selected().valid() && trace_
                         ? trace_->tracks[timeline_->selected().track].slices.start[timeline_->selected().index]
                         : timeline_->mapping().start() + timeline_->mapping().duration() / 2;
    bool ok = false;
    const QString label = interactive_ ? QInputDialog::getText(this, tr("Bookmark"), tr("Label:"), QLineEdit::Normal, {}, &ok) : QString();
    timeline_->add_bookmark(t, label);
  });
  const auto& b = timeline_->bookmarks();
  if (!b.empty()) {
    bookmarks_menu_->addAction(tr("Remove All Bookmarks"), this, [this] { timeline_->set_bookmarks({}); });
    bookmarks_menu_->addSeparator();
  }
  const TimeNs origin = timeline_->index() ? timeline_->index()->start() : 0;
  for (const auto& bm : b) {
    const QString text = qstr(format_duration(bm.time - origin)) + (bm.label.isEmpty() ? QString() : "  " + bm.label);
    bookmarks_menu_->addAction(text, this, [this, t = bm.time] {
      const TimeNs d = timeline_->mapping().duration();
      timeline_->set_view(t - d / 2, t + d / 2);
    });
  }
  if (!notes_.notes.empty()) {
    bookmarks_menu_->addSeparator();
    for (const auto& n : notes_.notes)
      bookmarks_menu_->addAction(tr("Note: %1 — %2").arg(n.name.left(40), n.text.left(40)), this, [this, r = n.slice] {
        timeline_->zoom_to(r);
        timeline_->select(r);
      });
  }
}

void MainWindow::open_inputs(const QStringList& inputs) {
  if (inputs.isEmpty()) return;
  progress_->setValue(0);
  progress_->show();
  cancel_->show();
  status_->set_message(tr("Loading %1").arg(inputs.join(", ")));
  loader_->load(inputs);
}

void MainWindow::open_dialog() { open_inputs(ask_trace_files(this, tr("Open trace"))); }

void MainWindow::open_directory_dialog() { open_inputs(ask_trace_folder(this, tr("Open a directory of per-rank traces"))); }

void MainWindow::export_png() {
  if (!trace_) return;
  const QString path = QFileDialog::getSaveFileName(this, tr("Export timeline"), "timeline.png", tr("PNG (*.png)"));
  if (path.isEmpty()) return;
  const QImage img = timeline_->render_image(QSize(1920, std::max(600, timeline_->viewport()->height())));
  QSaveFile file(path);  // atomic: temp file + rename on commit
  if (!file.open(QIODevice::WriteOnly) || !img.save(&file, "PNG") || !file.commit())
    QMessageBox::critical(this, tr("Export failed"), tr("Could not write %1").arg(path));
}

QString MainWindow::export_report(const QString& path, const QStringList& whatif) {
  ReportRequest r;
  r.path = path;
  r.whatif = whatif;
  if (trace_)
    for (const std::string& f : trace_->source_files) r.inputs << QString::fromStdString(f);
  if (timeline_->has_range()) r.ranges.push_back({timeline_->range().first, timeline_->range().second});
  QApplication::setOverrideCursor(Qt::WaitCursor);
  const QString error = gui::export_report(trace_, r);
  QApplication::restoreOverrideCursor();
  status_->set_message(error.isEmpty() ? tr("Report written to %1").arg(path) : tr("Report failed: %1").arg(error));
  return error;
}

void MainWindow::export_report_dialog() {
  if (!trace_) return;
  ReportRequest r;
  if (!ask_report_request(this, r, whatif_->has_run(), whatif_->last_run_knobs())) return;
  const QString error = export_report(r.path, r.whatif);
  if (!error.isEmpty() && interactive_) QMessageBox::critical(this, tr("Export failed"), error);
}

void MainWindow::remember_recent(const QStringList& inputs) {
  QSettings settings;
  QStringList recent = settings.value("main/recent").toStringList();
  QStringList absolute;
  for (const QString& i : inputs) absolute << QFileInfo(i).absoluteFilePath();
  const QString entry = absolute.join('\n');
  recent.removeAll(entry);
  recent.prepend(entry);
  while (recent.size() > 10) recent.removeLast();
  settings.setValue("main/recent", recent);
  rebuild_recent_menu();
}

void MainWindow::rebuild_recent_menu() {
  recent_menu_->clear();
  const QStringList recent = QSettings().value("main/recent").toStringList();
  for (const QString& entry : recent) {
    const QStringList inputs = entry.split('\n');
    recent_menu_->addAction(inputs.join(", "), this, [this, inputs] { open_inputs(inputs); });
  }
  recent_menu_->setEnabled(!recent.isEmpty());
}

void MainWindow::show_loaded(const LoadedTrace& loaded, const QStringList& inputs) {
  progress_->hide();
  cancel_->hide();
  if (notes_timer_.isActive()) save_notes();  // the previous trace's
  trace_ = loaded.trace;
  applying_notes_ = true;
  timeline_->set_trace(trace_, loaded.index);
  timeline_->set_collective_peers(loaded.collectives);
  find_->set_trace(trace_);
  overlap_->set_trace(trace_);
  links_->set_trace(trace_);
  topology_->set_trace(trace_);
  roofline_->set_trace(trace_);
  diff_->set_trace(trace_);
  whatif_->set_trace(trace_);
  stats_model_->set_stats(trace_, loaded.stats);
  stats_device_->clear();
  stats_device_->addItem(tr("All GPUs"), -1);
  for (uint32_t d = 0; d < trace_->devices.size(); ++d) {
    const Process& proc = trace_->processes[trace_->devices[d].process];
    const QString who = proc.rank >= 0 ? QString("rank %1").arg(proc.rank) : QString("pid %1").arg(proc.pid);
    stats_device_->addItem(QString("%1 · GPU %2").arg(who).arg(trace_->devices[d].ordinal), static_cast<int>(d));
  }
  // bookmarks and notes from beside the trace
  notes_path_ = TraceNotes::path_for(inputs);
  QString notes_msg;
  if (notes_path_.isEmpty()) notes_ = TraceNotes{};
  else if (!notes_.load(notes_path_, *trace_)) notes_msg = tr("  (notes not read: %1)").arg(notes_.error());
  else if (notes_.unresolved) notes_msg = tr("  (%1 notes/tracks in the notes file are not in this trace)").arg(notes_.unresolved);
  // the track tree's state from the user's settings (a notes file of before had it: kept there)
  view_key_ = TraceNotes::view_key(inputs);
  if (!notes_.load_view(view_key_, *trace_) && !(notes_.view == models::LayoutOptions{})) notes_.save_view(view_key_, *trace_);
  timeline_->apply_layout_options(notes_.view);
  timeline_->set_bookmarks(notes_.bookmarks);
  applying_notes_ = false;
  show_selection({});
  rebuild_bookmarks_menu();

  const TraceSummary& s = loaded.summary;
  int64_t kernels = 0, devices = 0, sm_spans = 0;
  for (const auto& p : s.processes)
    for (const auto& d : p.devices) {
      kernels += d.kernels;
      sm_spans += d.sm_spans;
      ++devices;
    }
  // per-SM probe files (parascope-bench --probe) hold SM-lane spans and no kernel records
  const QString kernel_text = kernels == 0 && sm_spans > 0
                                  ? tr("%1 SM-lane spans (probes; no kernel records)").arg(sm_spans)
                                  : tr("%1 kernels").arg(kernels);
  // GPUs: physical ones (each rank of a torchrun capture also sees its peer's GPU); ranks:
  // distinct rank numbers (a launcher process has none)
  size_t gpus = 0;
  physical_gpus(*trace_, &gpus);
  const size_t ranks = rank_count(*trace_);
  const size_t rank_count = ranks == 0 ? trace_->processes.size() : ranks;
  const QString others = trace_->processes.size() > rank_count
                             ? tr(" (+%1 other processes)").arg(trace_->processes.size() - rank_count)
                             : QString();
  (void)devices;
  status_->set_message(tr("%1 ranks%10, %2 GPUs, %3, %4 slices over %5  ·  loaded in %6 s, indexed in %7 s%8%9")
                       .arg(rank_count)
                       .arg(gpus ? gpus : static_cast<size_t>(devices))
                       .arg(kernel_text)
                       .arg(s.slices)
                       .arg(qstr(format_duration(s.end - s.start)))
                       .arg(loaded.load_seconds, 0, 'f', 2)
                       .arg(loaded.index_seconds, 0, 'f', 2)
                       .arg(QString())  // the warnings: a button of their own (warnings_)
                       .arg(notes_msg)
                       .arg(others));
  // the warnings' icon only when something may be wrong; notes alone are information
  warnings_->setVisible(!trace_->warnings.empty() || !trace_->notes.empty());
  warnings_->setIcon(style()->standardIcon(trace_->warnings.empty() ? QStyle::SP_MessageBoxInformation
                                                                    : QStyle::SP_MessageBoxWarning));
  warnings_->setText(warnings_button_text(trace_->warnings.size(), trace_->notes.size()));
  warnings_->setToolTip(warnings_tooltip(trace_->warnings, trace_->notes));
  if (warnings_dialog_) warnings_dialog_->set_messages(trace_->warnings, trace_->notes);
  setWindowTitle(tr("Parascope — %1").arg(QFileInfo(inputs.front()).fileName()));
  remember_recent(inputs);
  emit trace_loaded();
}

void MainWindow::on_failed(const QString& message) {
  progress_->hide();
  cancel_->hide();
  last_error_ = message;
  status_->set_message(message);
  if (interactive_) QMessageBox::critical(this, tr("Could not open the trace"), message);
  emit load_failed(message);
}

void MainWindow::show_selection(EventRef ref) {
  if (!trace_) {
    details_->setHtml(slice_details_html(Trace{}, SliceClassifier(Trace{}), {}, 0));
    return;
  }
  const TimeNs origin = timeline_->index() ? timeline_->index()->start() : 0;
  QString html = slice_details_html(*trace_, timeline_->index()->classifier(), ref, origin);
  if (ref.valid() && ref.track < trace_->tracks.size()) {
    const Track& tr = trace_->tracks[ref.track];
    if (const CollectivePeerIndex* peers = timeline_->collective_peer_index())
      html += collective_peers_html(*trace_, peers->match(), timeline_->selected_peers());
    if (const SliceNote* n = notes_.note_for(ref))
      html += "<h4>Note</h4><p>" + n->text.toHtmlEscaped().replace("\n", "<br>") + "</p>";
    const bool gpu = tr.key.device >= 0;  // a GPU op, or an SM-lane span (the overlap in its window)
    if (gpu && tr.slices.dur[ref.index] > 0) {
      const Interval w{tr.slices.start[ref.index], tr.slices.start[ref.index] + tr.slices.dur[ref.index]};
      const auto dev = static_cast<uint32_t>(tr.key.device);
      if (tr.slices.ref[ref.index].kind() == SliceKind::kKernel)
        html += kernel_sm_lanes_html(*trace_, ref, sm_window_shares(*trace_, dev, w));
      overlap_->show_window(dev, w, qstr(trace_->str(tr.slices.name[ref.index])));
    }
  }
  details_->setHtml(html);
  emit details_changed();
}

void MainWindow::show_range(bool has, TimeNs start, TimeNs end) {
  if (!trace_ || !has) {
    show_selection(timeline_->selected());
    return;
  }
  const TimeNs origin = timeline_->index() ? timeline_->index()->start() : 0;
  details_->setHtml("<h3>Range " + qstr(format_duration(end - start)).toHtmlEscaped() + "</h3><p><i>summarising…</i></p>");
  auto trace = trace_;
  range_jobs_.start(
      [trace, start, end] {
        const SliceClassifier classify(*trace);  // its own: the classifier's name cache is not shared across threads
        return summarize_range(*trace, classify, {start, end});
      },
      [this, trace, origin](const RangeSummary& range) {
        if (trace != trace_) return;
        details_->setHtml(range_summary_html(*trace, range, origin));
        emit details_changed();
      });
  const int32_t dev = overlap_->device() >= 0 ? overlap_->device() : 0;
  if (!trace_->devices.empty())
    overlap_->show_window(static_cast<uint32_t>(dev), {start, end},
                          tr("range %1 – %2").arg(qstr(format_duration(start - origin)), qstr(format_duration(end - origin))));
}

void MainWindow::update_windows() {
  if (!trace_) return;
  const Interval view{timeline_->mapping().start(), timeline_->mapping().end()};
  std::optional<Interval> range;
  if (timeline_->has_range()) range = Interval{timeline_->range().first, timeline_->range().second};
  links_->set_windows(view, range);
  topology_->set_windows(view, range);
}

bool MainWindow::raise_dock(const QString& name, int height) {
  for (QDockWidget* d : findChildren<QDockWidget*>())
    if (d->objectName() == name + "_dock") {
      d->show();
      d->raise();
      if (height > 0) {
        const Qt::DockWidgetArea area = dockWidgetArea(d);
        if (area == Qt::BottomDockWidgetArea || area == Qt::TopDockWidgetArea) resizeDocks({d}, {height}, Qt::Vertical);
        else resizeDocks({d}, {height}, Qt::Horizontal);
      }
      return true;
    }
  return false;
}

bool MainWindow::show_first_view(const QString& find, bool expand_sm) {
  if (!trace_) return false;
  // a view, not an edit: no layout change here (zooming to an SM span unfolds its lanes, the
  // expansion asked for) is saved as the trace's view, nor a later relayout that keeps it (a resize)
  applying_notes_ = true;
  find_->set_pattern(find, MatchMode::kSubstring);
  const EventRef r = find_->find_next();  // selects and zooms (FindBar::found)
  const int32_t device = r.valid() ? trace_->tracks[r.track].key.device : -1;
  if (expand_sm && device >= 0) {
    timeline_->set_sm_expanded(device, true);
    timeline_->zoom_to(r);  // its row moved down by the lanes above it
  }
  notes_.view = timeline_->layout_options();
  applying_notes_ = false;
  return r.valid();
}

void MainWindow::center_on(TimeNs t) {
  const TimeNs d = timeline_->mapping().duration();
  timeline_->set_view(t - d / 2, t - d / 2 + d);
}

void MainWindow::set_note(EventRef ref, const QString& text) {
  if (!trace_ || !ref.valid()) return;
  notes_.set_note(*trace_, ref, text);
  schedule_notes_save();
  rebuild_bookmarks_menu();
  show_selection(timeline_->selected());
}

void MainWindow::edit_note() {
  const EventRef r = timeline_->selected();
  if (!trace_ || !r.valid()) {
    status_->set_message(tr("Select a slice first, then add a note to it."));
    return;
  }
  const SliceNote* n = notes_.note_for(r);
  bool ok = false;
  const QString text = QInputDialog::getMultiLineText(this, tr("Note"), tr("Note on %1 (empty removes it):").arg(qstr(trace_->str(trace_->tracks[r.track].slices.name[r.index]))),
                                                      n ? n->text : QString(), &ok);
  if (ok) set_note(r, text);
}

void MainWindow::follow_link(const QUrl& url) {
  if (url.scheme() == "sm") {
    timeline_->set_sm_expanded(url.path().toInt(), true);
    if (timeline_->selected().valid()) timeline_->zoom_to(timeline_->selected());
  } else if (url.scheme() == "slice") {  // a collective's instance on another rank (collective_peers_html)
    const QStringList parts = url.path().split('.');
    if (trace_ && parts.size() == 2) {
      const EventRef ref{parts[0].toUInt(), parts[1].toUInt()};
      if (ref.track < trace_->tracks.size() && ref.index < trace_->tracks[ref.track].slices.size()) {
        timeline_->select(ref);
        timeline_->zoom_to(ref);
      }
    }
  } else if (url.scheme() == "overlap") {
    for (QDockWidget* d : findChildren<QDockWidget*>())
      if (d->widget() == overlap_) {
        d->show();
        d->raise();
      }
  }
}

void MainWindow::schedule_notes_save() {
  if (trace_ && !notes_path_.isEmpty()) notes_timer_.start();
}

bool MainWindow::save_notes() {
  notes_timer_.stop();
  if (!trace_ || notes_path_.isEmpty()) return false;
  notes_.bookmarks = timeline_->bookmarks();
  // only what the user added goes beside the trace (the view state is in the settings): looking
  // around a read-only or shared folder writes nothing there
  if (!notes_.has_file_content() && !QFileInfo::exists(notes_path_)) return true;
  if (!notes_.save(notes_path_, *trace_)) {
    status_->set_message(notes_.error());
    return false;
  }
  return true;
}

void MainWindow::activate_stats_row(int row) {
  const QModelIndex src = stats_proxy_->mapToSource(stats_proxy_->index(row, 0));
  const QString name = stats_model_->name_at(src.row());
  if (name.isEmpty()) return;
  find_->set_pattern(name, MatchMode::kExact);
  const EventRef cur = timeline_->selected();
  const bool same = cur.valid() && trace_ && qstr(trace_->str(trace_->tracks[cur.track].slices.name[cur.index])) == name;
  if (!same) timeline_->select({});  // from the view's start, else on from the current instance
  if (!find_->find_next().valid() && same) {
    timeline_->select({});
    timeline_->fit_all();
    find_->find_next();  // wrap around to the first
  }
}

QString MainWindow::details_html() const { return details_->toHtml(); }

void MainWindow::show_warnings() {
  if (!trace_) return;
  if (!warnings_dialog_) {
    warnings_dialog_ = new WarningsDialog(this);
    warnings_dialog_->set_messages(trace_->warnings, trace_->notes);
  }
  warnings_dialog_->show();
  warnings_dialog_->raise();
  warnings_dialog_->activateWindow();
}

void MainWindow::closeEvent(QCloseEvent* e) {
  QSettings settings;
  settings.setValue("main/geometry", saveGeometry());
  settings.setValue("main/state", saveState());
  if (notes_timer_.isActive()) save_notes();
  loader_->cancel();
  QMainWindow::closeEvent(e);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
  if (e->mimeData()->hasUrls()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
  QStringList files;
  for (const QUrl& u : e->mimeData()->urls())
    if (u.isLocalFile()) files << u.toLocalFile();
  open_inputs(files);
}

}  // namespace parascope::gui
