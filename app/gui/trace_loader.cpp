#include "gui/trace_loader.h"

#include <QtConcurrent/QtConcurrentRun>
#include <chrono>

#include "trace/io/json/chrome_json_parser.h"
#include "trace/io/load_trace.h"

namespace parascope::gui {

LoadedTrace complete_load(std::shared_ptr<const Trace> trace, std::shared_ptr<const models::TimelineIndex> index) {
  LoadedTrace l;
  l.stats = std::make_shared<const KernelStats>(kernel_stats(*trace, index->classifier()));
  l.summary = summarize(*trace);
  l.collectives = std::make_shared<const CollectivePeerIndex>(*trace, match_collectives(*trace));
  l.index_seconds = index->build_seconds();
  l.trace = std::move(trace);
  l.index = std::move(index);
  return l;
}

TraceLoader::TraceLoader(QObject* parent) : QObject(parent) {
  qRegisterMetaType<parascope::gui::LoadedTrace>("parascope::gui::LoadedTrace");
  poll_.setInterval(100);
  connect(&poll_, &QTimer::timeout, this, [this] {
    if (!shared_) return;
    QString file;
    {
      std::lock_guard lock(shared_->mutex);
      file = QString::fromStdString(shared_->file);
    }
    emit progress(job_, file, shared_->fraction.load());
  });
}

TraceLoader::~TraceLoader() {
  cancel();
  wait();
}

int TraceLoader::load(const QStringList& inputs) {
  cancel();
  const int job = ++job_;
  auto shared = std::make_shared<Shared>();
  shared_ = shared;
  std::vector<std::string> paths;
  for (const QString& s : inputs) paths.push_back(s.toStdString());
  auto* watcher = new QFutureWatcher<LoadResult>(this);
  watcher_ = watcher;
  connect(watcher, &QFutureWatcher<LoadResult>::finished, this,
          [this, job, watcher, inputs] { finished(job, watcher, inputs); });
  watcher->setFuture(QtConcurrent::run([shared, paths]() -> LoadResult {
    LoadResult r;
    try {
      LoadOptions o;
      o.cancel = &shared->cancel;
      o.progress = [&](const std::string& file, uint64_t done, uint64_t total) {
        {
          std::lock_guard lock(shared->mutex);
          shared->file = file;
        }
        shared->fraction = total ? static_cast<double>(done) / static_cast<double>(total) : 0.0;
      };
      const auto t0 = std::chrono::steady_clock::now();
      auto trace = std::make_shared<const Trace>(load_trace(paths, o));
      const auto t1 = std::chrono::steady_clock::now();
      {
        std::lock_guard lock(shared->mutex);
        shared->file = "building the timeline index";
      }
      auto index = std::make_shared<const models::TimelineIndex>(*trace, &shared->cancel);
      r.loaded = complete_load(std::move(trace), std::move(index));
      r.loaded.load_seconds = std::chrono::duration<double>(t1 - t0).count();
    } catch (const OperationCancelled&) {
      r.cancelled = true;
    } catch (const models::IndexBuildCancelled&) {
      r.cancelled = true;
    } catch (const std::exception& e) {
      r.error = QString::fromStdString(e.what());
    }
    return r;
  }));
  poll_.start();
  return job;
}

void TraceLoader::finished(int job, QFutureWatcher<LoadResult>* watcher, QStringList inputs) {
  const LoadResult r = watcher->result();
  watcher->deleteLater();
  if (watcher == watcher_) {
    watcher_ = nullptr;
    poll_.stop();
  }
  if (job != job_ || r.cancelled) {
    emit cancelled(job);
    return;
  }
  if (r.loaded.trace) emit loaded(job, r.loaded, inputs);
  else emit failed(job, r.error, inputs);
}

void TraceLoader::cancel() {
  if (shared_) shared_->cancel = true;
}

void TraceLoader::wait() {
  if (watcher_) watcher_->waitForFinished();
}

}  // namespace parascope::gui
