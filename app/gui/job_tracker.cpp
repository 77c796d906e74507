#include "gui/job_tracker.h"

namespace parascope::gui {

JobTracker::~JobTracker() {
  drop();
  wait();
}

int JobTracker::begin(std::shared_ptr<std::atomic<bool>>& flag) {
  const int job = ++next_;
  current_ = job;
  flag = std::make_shared<std::atomic<bool>>(false);
  running_[job] = {flag, nullptr};
  ++pending_;
  return job;
}

void JobTracker::end(int job) {
  --pending_;
  running_.erase(job);
}

void JobTracker::cancel() {
  auto it = running_.find(current_.load());
  if (it != running_.end()) it->second.first->store(true);
}

void JobTracker::drop() {
  current_ = ++next_;  // an id no job has
  for (auto& [job, r] : running_) r.first->store(true);
}

void JobTracker::wait() {
  for (auto& [job, r] : running_)
    if (r.second) r.second->waitForFinished();
}

}  // namespace parascope::gui
