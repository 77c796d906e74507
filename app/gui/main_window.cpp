#include "gui/main_window.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QImageWriter>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QTextBrowser>

#include "gui/slice_details.h"
#include "gui/timeline_view.h"
#include "trace/core/summary.h"

namespace parascope::gui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle("Parascope");
  setAcceptDrops(true);
  timeline_ = new TimelineView(this);
  setCentralWidget(timeline_);

  auto* dock = new QDockWidget(tr("Details"), this);
  dock->setObjectName("details_dock");
  details_ = new QTextBrowser(dock);
  details_->setHtml(slice_details_html(Trace{}, {}));
  dock->setWidget(details_);
  addDockWidget(Qt::RightDockWidgetArea, dock);

  status_ = new QLabel(tr("No trace loaded"), this);
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 1000);
  progress_->setMaximumWidth(220);
  progress_->hide();
  cancel_ = new QPushButton(tr("Cancel"), this);
  cancel_->hide();
  statusBar()->addWidget(status_, 1);
  statusBar()->addPermanentWidget(progress_);
  statusBar()->addPermanentWidget(cancel_);

  loader_ = new TraceLoader(this);
  connect(cancel_, &QPushButton::clicked, loader_, &TraceLoader::cancel);
  connect(loader_, &TraceLoader::progress, this, [this](int, QString file, double f) {
    progress_->setValue(static_cast<int>(f * 1000));
    status_->setText(tr("Loading %1").arg(QFileInfo(file).fileName()));
  });
  connect(loader_, &TraceLoader::loaded, this,
          [this](int, LoadedTrace t, QStringList inputs) { on_loaded(t, inputs); });
  connect(loader_, &TraceLoader::failed, this, [this](int, QString msg, QStringList) { on_failed(msg); });
  connect(loader_, &TraceLoader::cancelled, this, [this](int) {
    progress_->hide();
    cancel_->hide();
    status_->setText(tr("Loading cancelled"));
  });
  connect(timeline_, &TimelineView::selection_changed, this, &MainWindow::show_selection);

  build_menus();
  QSettings settings;
  restoreGeometry(settings.value("main/geometry").toByteArray());
  restoreState(settings.value("main/state").toByteArray());
  if (!settings.contains("main/geometry")) resize(1400, 800);
}

MainWindow::~MainWindow() = default;

void MainWindow::build_menus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open…"), QKeySequence::Open, this, &MainWindow::open_dialog);
  file->addAction(tr("Open &Directory…"), this, &MainWindow::open_directory_dialog);
  recent_menu_ = file->addMenu(tr("Open &Recent"));
  rebuild_recent_menu();
  file->addSeparator();
  file->addAction(tr("Export Timeline &PNG…"), this, &MainWindow::export_png);
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::closeAllWindows);

  QMenu* view = menuBar()->addMenu(tr("&View"));
  view->addAction(tr("&Fit Whole Trace"), QKeySequence(Qt::Key_0), timeline_, &TimelineView::fit_all);
  QMenu* color = view->addMenu(tr("&Colour By"));
  auto* group = new QActionGroup(this);
  const std::pair<QString, render::ColorMode> modes[] = {{tr("Category"), render::ColorMode::kCategory},
                                                        {tr("Name"), render::ColorMode::kName},
                                                        {tr("Rank"), render::ColorMode::kRank}};
  for (const auto& [label, mode] : modes) {
    QAction* a = color->addAction(label);
    a->setCheckable(true);
    a->setChecked(mode == render::ColorMode::kCategory);
    group->addAction(a);
    connect(a, &QAction::triggered, this, [this, m = mode] { timeline_->set_color_mode(m); });
  }
}

void MainWindow::open_inputs(const QStringList& inputs) {
  if (inputs.isEmpty()) return;
  progress_->setValue(0);
  progress_->show();
  cancel_->show();
  status_->setText(tr("Loading %1").arg(inputs.join(", ")));
  loader_->load(inputs);
}

void MainWindow::open_dialog() {
  QSettings settings;
  const QStringList files = QFileDialog::getOpenFileNames(
      this, tr("Open trace"), settings.value("main/last_dir").toString(),
      tr("Traces (*.json *.json.gz *.pstrace *.sqlite);;All files (*)"));
  if (files.isEmpty()) return;
  settings.setValue("main/last_dir", QFileInfo(files.front()).absolutePath());
  open_inputs(files);
}

void MainWindow::open_directory_dialog() {
  const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a directory of per-rank traces"));
  if (!dir.isEmpty()) open_inputs({dir});
}

void MainWindow::export_png() {
  if (!trace_) return;
  const QString path = QFileDialog::getSaveFileName(this, tr("Export timeline"), "timeline.png", tr("PNG (*.png)"));
  if (path.isEmpty()) return;
  const QImage img = timeline_->render_image(QSize(1920, std::max(600, timeline_->viewport()->height())));
  if (!img.save(path)) QMessageBox::critical(this, tr("Export failed"), tr("Could not write %1").arg(path));
}

void MainWindow::remember_recent(const QStringList& inputs) {
  QSettings settings;
  QStringList recent = settings.value("main/recent").toStringList();
  const QString entry = inputs.join('\n');
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

void MainWindow::on_loaded(const LoadedTrace& loaded, const QStringList& inputs) {
  progress_->hide();
  cancel_->hide();
  trace_ = loaded.trace;
  timeline_->set_trace(trace_, loaded.index);
  const TraceSummary s = summarize(*trace_);
  int64_t kernels = 0, devices = 0;
  for (const auto& p : s.processes)
    for (const auto& d : p.devices) {
      kernels += d.kernels;
      ++devices;
    }
  status_->setText(tr("%1 ranks, %2 GPUs, %3 kernels, %4 slices over %5%6")
                       .arg(trace_->processes.size())
                       .arg(devices)
                       .arg(kernels)
                       .arg(s.slices)
                       .arg(QString::fromStdString(format_duration(s.end - s.start)))
                       .arg(trace_->warnings.empty() ? QString() : tr("  (%1 warnings)").arg(trace_->warnings.size())));
  setWindowTitle(tr("Parascope — %1").arg(QFileInfo(inputs.front()).fileName()));
  remember_recent(inputs);
  emit trace_loaded();
}

void MainWindow::on_failed(const QString& message) {
  progress_->hide();
  cancel_->hide();
  last_error_ = message;
  status_->setText(message);
  if (interactive_) QMessageBox::critical(this, tr("Could not open the trace"), message);
  emit load_failed(message);
}

void MainWindow::show_selection(EventRef ref) {
  details_->setHtml(trace_ ? slice_details_html(*trace_, ref) : QString());
}

QString MainWindow::details_html() const { return details_->toHtml(); }

void MainWindow::closeEvent(QCloseEvent* e) {
  QSettings settings;
  settings.setValue("main/geometry", saveGeometry());
  settings.setValue("main/state", saveState());
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
