#include <catch2/catch.hpp>

#include <QApplication>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "app/qt_app.h"
#include "gui/job_tracker.h"

using namespace parascope;

namespace {
void settle(const gui::JobTracker& jobs) {
  while (jobs.busy()) QApplication::processEvents(QEventLoop::AllEvents, 10);
}
}  // namespace

TEST_CASE("JobTracker hands over only the latest job's result, and a cancelled job still reports", "[app][gui][jobs]") {
  test::qt_app();
  std::vector<int> delivered;
  std::atomic<bool> release{false};

  SECTION("a newer start makes the older job stale: its work runs to the end, its result is dropped") {
    gui::JobTracker jobs;
    const int first = jobs.start(
        [&] {
          while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
          return 1;
        },
        [&](int v) { delivered.push_back(v); });
    const int second = jobs.start([] { return 2; }, [&](int v) { delivered.push_back(v); });
    REQUIRE(second != first);
    REQUIRE_FALSE(jobs.is_current(first));
    REQUIRE(jobs.is_current(second));
    REQUIRE(jobs.busy());
    release = true;
    settle(jobs);
    REQUIRE(delivered == std::vector<int>{2});
  }

  SECTION("drop(): no result arrives and the work sees its cancel flag") {
    gui::JobTracker jobs;
    std::atomic<bool> saw_cancel{false};
    const int job = jobs.start(
        [&](const gui::JobToken& t) {
          while (!t.cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
          saw_cancel = true;
          return 3;
        },
        [&](int v) { delivered.push_back(v); });
    jobs.drop();
    REQUIRE_FALSE(jobs.is_current(job));
    jobs.wait();
    REQUIRE(saw_cancel);
    settle(jobs);
    REQUIRE(delivered.empty());
  }

  SECTION("cancel(): the current job stops early and its result still arrives") {
    gui::JobTracker jobs;
    jobs.start(
        [](const gui::JobToken& t) {
          while (!t.cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
          return -1;  // "stopped"
        },
        [&](int v) { delivered.push_back(v); });
    jobs.cancel();
    settle(jobs);
    REQUIRE(delivered == std::vector<int>{-1});
  }

  SECTION("the destructor cancels and waits: the work has ended when the tracker is gone") {
    std::atomic<bool> ended{false};
    {
      gui::JobTracker jobs;
      jobs.start(
          [&](const gui::JobToken& t) {
            while (!t.cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            ended = true;
            return 0;
          },
          [&](int v) { delivered.push_back(v); });
    }
    REQUIRE(ended);
    QApplication::processEvents();
    REQUIRE(delivered.empty());
  }
}
