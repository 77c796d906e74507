// JobTracker: the background work of one dock (or the window), in one way. Each start() is a job
// with a new id that runs on Qt's thread pool and hands its result to a callback on the GUI thread
// through a QFutureWatcher; a newer start() or drop() makes the older jobs stale, and a stale
// job's result is dropped. Each job has a cancel flag its work may poll (cancel(): the current
// job's, whose result still arrives, so the work can say it stopped; drop(): every running job's).
// The destructor drops and waits, so work that captured the owner never outlives it: declare the
// tracker after everything the work or the callbacks touch.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QtConcurrent/QtConcurrentRun>
#include <atomic>
#include <map>
#include <memory>
#include <type_traits>
#include <utility>

namespace parascope::gui {

// What a job's work may look at: its id (JobTracker::is_current) and its cancel flag.
struct JobToken {
  int id = 0;
  std::shared_ptr<const std::atomic<bool>> cancel;
  bool cancelled() const { return cancel && cancel->load(); }
};

class JobTracker : public QObject {
 public:
  JobTracker() = default;
  ~JobTracker() override;
  JobTracker(const JobTracker&) = delete;
  JobTracker& operator=(const JobTracker&) = delete;

  // Runs `work()` (or `work(const JobToken&)`) on the thread pool; `done(result)` runs on the GUI
  // thread when it ends, unless a newer job started or drop() was called since. Returns the id.
  template <class Work, class Done>
  int start(Work work, Done done);

  // Sets the current job's cancel flag (its result still arrives).
  void cancel();
  // Every running job goes stale (results dropped) and gets its cancel flag set.
  void drop();
  // Whether `job` is the latest one and not dropped; any thread.
  bool is_current(int job) const { return job == current_.load(); }
  // Jobs whose work has not ended or whose result has not been handed over yet.
  bool busy() const { return pending_ > 0; }
  // Blocks until the work of every running job has ended (results arrive through the event loop).
  void wait();

 private:
  int begin(std::shared_ptr<std::atomic<bool>>& flag);
  void end(int job);

  std::atomic<int> current_{0};
  int next_ = 0;
  int pending_ = 0;
  std::map<int, std::pair<std::shared_ptr<std::atomic<bool>>, QFutureWatcherBase*>> running_;
};

template <class Work, class Done>
int JobTracker::start(Work work, Done done) {
  std::shared_ptr<std::atomic<bool>> flag;
  const int job = begin(flag);
  const JobToken token{job, flag};
  auto run = [work = std::move(work), token]() mutable {
    if constexpr (std::is_invocable_v<Work&, const JobToken&>) return work(token);
    else return work();
  };
  using Result = decltype(run());
  auto* w = new QFutureWatcher<Result>(this);
  running_[job].second = w;
  connect(w, &QFutureWatcherBase::finished, this, [this, w, job, done = std::move(done)]() mutable {
    end(job);
    if (is_current(job)) done(w->result());
    w->deleteLater();
  });
  w->setFuture(QtConcurrent::run(std::move(run)));
  return job;
}

}  // namespace parascope::gui
