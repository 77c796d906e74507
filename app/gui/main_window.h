// MainWindow: the application frame — timeline in the centre, a details dock, File/View menus,
// recent files, drag and drop, loading with progress and Cancel on a worker thread, and errors in a
// dialog naming the file and the problem. Layout and settings persist in QSettings.
#pragma once

#include <QMainWindow>
#include <memory>

#include "gui/trace_loader.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QTextBrowser;
class QMenu;

namespace parascope::gui {

class TimelineView;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;
  void open_inputs(const QStringList& inputs);
  TimelineView* timeline() const { return timeline_; }
  TraceLoader* loader() const { return loader_; }
  QString details_html() const;
  // Error dialogs are skipped (messages still reach the status bar) when running headless tests.
  void set_interactive(bool on) { interactive_ = on; }
  QString last_error() const { return last_error_; }

 signals:
  void trace_loaded();
  void load_failed(QString message);

 protected:
  void closeEvent(QCloseEvent* e) override;
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dropEvent(QDropEvent* e) override;

 private:
  void build_menus();
  void open_dialog();
  void open_directory_dialog();
  void export_png();
  void remember_recent(const QStringList& inputs);
  void rebuild_recent_menu();
  void on_loaded(const LoadedTrace& loaded, const QStringList& inputs);
  void on_failed(const QString& message);
  void show_selection(EventRef ref);

  TimelineView* timeline_ = nullptr;
  TraceLoader* loader_ = nullptr;
  QTextBrowser* details_ = nullptr;
  QLabel* status_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QMenu* recent_menu_ = nullptr;
  std::shared_ptr<const Trace> trace_;
  bool interactive_ = true;
  QString last_error_;
};

}  // namespace parascope::gui
