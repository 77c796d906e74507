// TraceLoader: loads traces on a worker thread (the GUI thread never parses a file) and builds
// there what the window needs before it can show them (the timeline's index with its
// level-of-detail pyramids and slice classifier, the kernel statistics, the status line's summary,
// the cross-rank collective matching the timeline's peer arrows and Details use),
// with progress and Cancel. Each load is a job with an id; a new load cancels the previous one and
// results of a superseded job are dropped. Progress is polled from shared atomics by a GUI-thread
// timer and results arrive through QFutureWatcher, so no signal is emitted from the worker.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QStringList>
#include <QTimer>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "models/timeline_index.h"
#include "trace/core/analysis/collective_peers.h"
#include "trace/core/analysis/kernel_stats.h"
#include "trace/core/summary.h"
#include "trace/core/trace.h"

namespace parascope::gui {

// What a finished load hands to the window; the index refers to the trace, so keep both alive.
struct LoadedTrace {
  std::shared_ptr<const Trace> trace;
  std::shared_ptr<const models::TimelineIndex> index;  // with the classifier the window uses
  std::shared_ptr<const KernelStats> stats;  // the statistics dock's table
  TraceSummary summary;                      // the status line's counts (what `parascope-cli info` prints)
  std::shared_ptr<const CollectivePeerIndex> collectives;  // match_collectives, as `parascope-cli stats` matches
  double load_seconds = 0, index_seconds = 0;
};

// The rest of a load once the trace and its index exist: the statistics, the summary and the
// collective matching, computed by the caller's thread (the loader's worker; benchmarks and tests
// call it directly).
LoadedTrace complete_load(std::shared_ptr<const Trace> trace, std::shared_ptr<const models::TimelineIndex> index);

struct LoadResult {
  LoadedTrace loaded;
  QString error;
  bool cancelled = false;
};

class TraceLoader : public QObject {
  Q_OBJECT
 public:
  explicit TraceLoader(QObject* parent = nullptr);
  ~TraceLoader() override;
  int load(const QStringList& inputs);
  void cancel();
  bool busy() const { return watcher_ && watcher_->isRunning(); }
  // Blocks until the current job ends (tests, shutdown).
  void wait();

 signals:
  void progress(int job, QString file, double fraction);
  void loaded(int job, parascope::gui::LoadedTrace trace, QStringList inputs);
  void failed(int job, QString message, QStringList inputs);
  void cancelled(int job);

 private:
  struct Shared {
    std::atomic<bool> cancel{false};
    std::atomic<double> fraction{0.0};
    std::mutex mutex;
    std::string file;
  };
  void finished(int job, QFutureWatcher<LoadResult>* watcher, QStringList inputs);
  int job_ = 0;
  std::shared_ptr<Shared> shared_;
  QFutureWatcher<LoadResult>* watcher_ = nullptr;
  QTimer poll_;
};

}  // namespace parascope::gui
