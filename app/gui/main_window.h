// MainWindow: the application frame — the timeline in the centre under a find bar; docks for the
// details of the selection, the kernel statistics table and the overlap chart; File/Edit/View/
// Bookmarks menus, recent files, drag and drop, loading with progress and Cancel on a worker
// thread, errors in a dialog naming the file and the problem. Window layout, view settings and
// each trace's track tree state persist in QSettings; bookmarks and notes beside the trace, in a
// file written only once the user adds one (trace_notes.h).
#pragma once

#include <QMainWindow>
#include <QPointer>
#include <QTimer>
#include <memory>

#include "gui/job_tracker.h"
#include "gui/trace_loader.h"
#include "gui/trace_notes.h"

class QComboBox;
class QDockWidget;
class QLabel;
class QLineEdit;
class QMenu;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;
class QTextBrowser;
class QToolButton;

namespace parascope::gui {

class DiffView;
class FindBar;
class KernelStatsModel;
class LinkView;
class OverlapView;
class PkbSuiteView;
class RooflineView;
class StatusLine;
class TimelineView;
class TopologyView;
class WarningsDialog;
class WhatIfView;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;
  void open_inputs(const QStringList& inputs);
  // Shows a loaded trace, as when the loader finishes (tests and benchmarks hand one in directly).
  void show_loaded(const LoadedTrace& loaded, const QStringList& inputs);
  TimelineView* timeline() const { return timeline_; }
  TraceLoader* loader() const { return loader_; }
  FindBar* find_bar() const { return find_; }
  OverlapView* overlap() const { return overlap_; }
  LinkView* links() const { return links_; }
  TopologyView* topology() const { return topology_; }
  RooflineView* roofline() const { return roofline_; }
  DiffView* diff() const { return diff_; }
  WhatIfView* whatif() const { return whatif_; }
  PkbSuiteView* pkb_suite() const { return pkb_; }
  // Shows and raises the dock whose object name is `name` + "_dock" ("links", "topology"...).
  // With `height` > 0, the dock's area gets that many pixels (screenshots, first start).
  bool raise_dock(const QString& name, int height = 0);
  // The first view a command line asks for (parascope --find, --expand-sm): the first slice whose
  // name contains `find` selected and zoomed to, its overlap and details shown; with `expand_sm` its
  // GPU's SM lanes expanded. A view, not an edit: the trace's view state in the settings is not
  // rewritten for it. False when no slice matches.
  bool show_first_view(const QString& find, bool expand_sm);
  // Centres the timeline on t, keeping the zoom (chart clicks, table jumps).
  void center_on(TimeNs t);
  KernelStatsModel* stats_model() const { return stats_model_; }
  QSortFilterProxyModel* stats_proxy() const { return stats_proxy_; }
  QTableView* stats_view() const { return stats_view_; }
  QLineEdit* stats_filter() const { return stats_filter_; }
  QString details_html() const;
  TraceNotes& notes() { return notes_; }
  QString notes_path() const { return notes_path_; }
  // Error dialogs are skipped (messages still reach the status bar) when running headless tests.
  void set_interactive(bool on) { interactive_ = on; }
  QString last_error() const { return last_error_; }
  // The status bar's "N warnings, M notes" button (hidden when the trace loaded without either)
  // and the list it opens: the trace's warnings, then its notes, each with its file.
  QToolButton* warnings_button() const { return warnings_; }
  void show_warnings();
  // Writes the report (app/report) of the loaded trace to `path` (.html/.pdf), with the range
  // selection as an extra range and `whatif` knobs (KNOB=VALUE); the error, or empty on success.
  QString export_report(const QString& path, const QStringList& whatif = {});
  // Jumps to the next slice named like stats row `row` (of the proxy), as a double-click does.
  void activate_stats_row(int row);
  // Writes the notes file now (it is also written shortly after every change), if there is a
  // bookmark or note to keep or the file exists already.
  bool save_notes();
  void set_note(EventRef ref, const QString& text);

 signals:
  void trace_loaded();
  void load_failed(QString message);
  void details_changed();

 protected:
  void closeEvent(QCloseEvent* e) override;
  void showEvent(QShowEvent* e) override;
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dropEvent(QDropEvent* e) override;

 private:
  void build_menus();
  void apply_first_layout();
  // View → Show Side/Bottom Docks: hides the area's docks and brings the same ones back
  void set_docks_shown(Qt::DockWidgetArea area, bool on);
  void build_docks();
  void open_dialog();
  void open_directory_dialog();
  void export_png();
  void export_report_dialog();
  void remember_recent(const QStringList& inputs);
  void rebuild_recent_menu();
  void rebuild_bookmarks_menu();
  void on_failed(const QString& message);
  void show_selection(EventRef ref);
  void show_range(bool has, TimeNs start, TimeNs end);
  void edit_note();
  void follow_link(const QUrl& url);
  void schedule_notes_save();
  void update_windows();

  TimelineView* timeline_ = nullptr;
  TraceLoader* loader_ = nullptr;
  FindBar* find_ = nullptr;
  QTextBrowser* details_ = nullptr;
  OverlapView* overlap_ = nullptr;
  LinkView* links_ = nullptr;
  TopologyView* topology_ = nullptr;
  RooflineView* roofline_ = nullptr;
  DiffView* diff_ = nullptr;
  WhatIfView* whatif_ = nullptr;
  PkbSuiteView* pkb_ = nullptr;
  KernelStatsModel* stats_model_ = nullptr;
  QSortFilterProxyModel* stats_proxy_ = nullptr;
  QTableView* stats_view_ = nullptr;
  QLineEdit* stats_filter_ = nullptr;
  QComboBox* stats_device_ = nullptr;
  StatusLine* status_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QToolButton* warnings_ = nullptr;
  WarningsDialog* warnings_dialog_ = nullptr;
  QMenu* recent_menu_ = nullptr;
  QMenu* bookmarks_menu_ = nullptr;
  QMenu* view_menu_ = nullptr;
  std::shared_ptr<const Trace> trace_;
  TraceNotes notes_;
  QString notes_path_;
  QString view_key_;  // the trace's track tree state in the settings (TraceNotes::view_key)
  QTimer notes_timer_;
  bool interactive_ = true;
  bool first_layout_ = false;  // no saved layout: size the docks when first shown
  struct Folded {
    QList<QPointer<QDockWidget>> open, front;
  };
  Folded folded_side_, folded_bottom_;
  bool applying_notes_ = false;
  QString last_error_;
  JobTracker range_jobs_;  // the range summary; last: waited for before the members above go
};

}  // namespace parascope::gui
