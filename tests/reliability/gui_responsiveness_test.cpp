// The GUI stays responsive while it loads a large trace, and Cancel really stops the work.
// Input latency: every 10 ms a mouse move is posted to the timeline's viewport, stamped; an event
// filter takes the time it is handled. While the worker loads and indexes (a 5 M-event native
// trace written from the synthetic generator), no move may wait longer than 100 ms. Cancel: the
// window's Cancel button during a load; the time from the click until the loader is idle (the
// worker returned) is measured. The same two checks while the What-if dock sweeps a real TP
// capture. Times are printed (WARN) for docs/reliability.md.
// trace/io first: pstrace_writer.h has a member named emit(), which Qt's `emit` macro would eat
#include "trace/io/pstrace/pstrace_writer.h"

#include <algorithm>
#include <catch2/catch.hpp>

#include <QMouseEvent>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <chrono>
#include <deque>
#include <filesystem>
#include <optional>

#include "app/sample_copy.h"
#include "bench/synthetic_trace.h"
#include "gui/main_window.h"
#include "gui/timeline_view.h"
#include "gui/whatif_view.h"
#include "test_paths.h"

using namespace parascope;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// Posts stamped mouse moves to `target` every `period_ms` and records how long each waited.
class LatencyProbe : public QObject {
 public:
  LatencyProbe(QWidget* target, int period_ms) : target_(target) {
    target_->installEventFilter(this);
    timer_.setInterval(period_ms);
    connect(&timer_, &QTimer::timeout, this, [this] {
      const QPointF p(300 + (posted_ % 50), 200);
      sent_.push_back(Clock::now());
      ++posted_;
      QCoreApplication::postEvent(target_, new QMouseEvent(QEvent::MouseMove, p, target_->mapToGlobal(p), Qt::NoButton,
                                                           Qt::NoButton, Qt::NoModifier));
    });
  }
  void start() { timer_.start(); }
  void stop() { timer_.stop(); }
  void reset() { waits_ms_.clear(); }
  double max_ms() const { return waits_ms_.empty() ? 0 : *std::max_element(waits_ms_.begin(), waits_ms_.end()); }
  size_t handled() const { return waits_ms_.size(); }

 protected:
  bool eventFilter(QObject* o, QEvent* e) override {
    if (o == target_ && e->type() == QEvent::MouseMove && !sent_.empty() && e->spontaneous() == false) {
      waits_ms_.push_back(std::chrono::duration<double, std::milli>(Clock::now() - sent_.front()).count());
      sent_.pop_front();
    }
    return false;
  }

 private:
  QWidget* target_;
  QTimer timer_;
  std::deque<Clock::time_point> sent_;
  std::vector<double> waits_ms_;
  int posted_ = 0;
};

// The longest the GUI thread went without running a 5 ms timer: the worst wait any input had.
class Heartbeat : public QObject {
 public:
  Heartbeat() {
    timer_.setInterval(5);
    connect(&timer_, &QTimer::timeout, this, [this] {
      const auto now = Clock::now();
      if (last_) longest_ms_ = std::max(longest_ms_, std::chrono::duration<double, std::milli>(now - *last_).count() - 5);
      last_ = now;
    });
  }
  void start() {
    last_.reset();
    longest_ms_ = 0;
    timer_.start();
  }
  double stop() {
    timer_.stop();
    return longest_ms_;
  }

 private:
  QTimer timer_;
  std::optional<Clock::time_point> last_;
  double longest_ms_ = 0;
};

// the status bar's Cancel of a load (the What-if and Diff docks have Cancel buttons too)
QPushButton* cancel_button(gui::MainWindow& w) { return w.findChild<QPushButton*>("load_cancel"); }

}  // namespace

TEST_CASE("The window answers input within 100 ms while a large trace loads, and Cancel stops the load", "[reliability][gui]") {
  const fs::path dir = test::temp_dir("gui-responsive");
  const std::string path = (dir / "big.pstrace").string();
  {
    bench::SyntheticOptions so;
    so.target_events = 5'000'000;
    write_pstrace(bench::make_synthetic_trace(so), path);
  }
  gui::MainWindow w;
  w.set_interactive(false);
  w.resize(1600, 900);
  w.show();
  REQUIRE(QTest::qWaitForWindowExposed(&w));
  LatencyProbe probe(w.timeline()->viewport(), 10);

  SECTION("input latency while loading") {
    QSignalSpy loaded(&w, &gui::MainWindow::trace_loaded);
    Heartbeat beat;
    probe.start();
    const auto t0 = Clock::now();
    w.open_inputs({QString::fromStdString(path)});
    // while the worker reads and indexes, the GUI thread only polls progress
    while (w.loader()->busy()) QTest::qWait(5);
    const double load_s = std::chrono::duration<double>(Clock::now() - t0).count();
    const double during = probe.max_ms();
    const size_t moves = probe.handled();
    probe.stop();
    // then the window takes the trace (summary, models, layout, first paint) on the GUI thread
    beat.start();
    // the loader may have handed over while the loop above processed events: a spy's wait() waits
    // for the next emission, so a count already there is the load (a lone wait() timed out at 60 s)
    REQUIRE((loaded.count() > 0 || loaded.wait(60000)));
    QTest::qWait(300);
    const double handoff = beat.stop();
    WARN(w.timeline()->trace()->slice_count() << " slices (" << fs::file_size(path) / 1048576 << " MiB .pstrace); load + index on the worker " << load_s << " s: " << moves << " posted moves handled, longest wait " << during
                                       << " ms; the window taking the trace stalled the GUI thread for " << handoff << " ms");
    CHECK(moves > 20);
    CHECK(during <= 100);
  }

  SECTION("Cancel during a load returns the loader to idle") {
    // the load's length on this machine now, so the cancels land in the read and in the index build:
    // the shorter of two loads (a repeated load reuses memory the first one mapped, and the reader's
    // helper threads make its length vary with the machine's load), cancelled at 20 % and 50 % of it
    QSignalSpy loaded(&w, &gui::MainWindow::trace_loaded);
    double full_ms = 1e9;
    auto t0 = Clock::now();
    for (int run = 0; run < 2; ++run) {
      loaded.clear();
      t0 = Clock::now();
      w.open_inputs({QString::fromStdString(path)});
      while (w.loader()->busy()) QTest::qWait(2);
      full_ms = std::min(full_ms, std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      REQUIRE((loaded.count() > 0 || loaded.wait(60000)));  // as above: it may have come during the loop
    }
    QSignalSpy cancelled(w.loader(), &gui::TraceLoader::cancelled);
    QPushButton* cancel = cancel_button(w);
    REQUIRE(cancel);
    for (double at : {0.2, 0.5}) {
      // a load can be quicker than the shorter of the two above when the machine's load drops (seen
      // once under a full -j2 run beside two builds: done before 50 %): then it is tried again,
      // cancelled at half the time, up to 4 times
      bool landed = false;
      for (double f = at; !landed && f > at / 16; f /= 2) {
        cancelled.clear();
        loaded.clear();
        w.open_inputs({QString::fromStdString(path)});
        QTest::qWait(static_cast<int>(full_ms * f));
        landed = w.loader()->busy();
        if (!landed) REQUIRE((loaded.count() > 0 || loaded.wait(60000)));
      }
      REQUIRE(landed);
      REQUIRE(cancel->isVisible());
      probe.start();
      t0 = Clock::now();
      QTest::mouseClick(cancel, Qt::LeftButton);
      while (w.loader()->busy()) QTest::qWait(1);
      const double stop_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      probe.stop();
      QTest::qWait(20);
      WARN("Cancel at " << at * 100 << " % of a " << full_ms << " ms load: idle after " << stop_ms
                        << " ms, longest input wait " << probe.max_ms() << " ms");
      CHECK(cancelled.count() == 1);
      CHECK(stop_ms < 1000);
      probe.reset();
    }
  }
  fs::remove_all(dir);
}

TEST_CASE("The window answers input within 100 ms while a what-if sweep runs, and Cancel stops it", "[reliability][gui][whatif]") {
  gui::MainWindow w;
  w.set_interactive(false);
  w.resize(1600, 900);
  w.show();
  REQUIRE(QTest::qWaitForWindowExposed(&w));
  REQUIRE(w.raise_dock("whatif", 420));
  const test::InputCopy copy("gui-responsive-sweep", "resources/captures/h200x2_2026-11-30/tp_serial_b1");
  QSignalSpy loaded(&w, &gui::MainWindow::trace_loaded);
  w.open_inputs({QString::fromStdString(copy.path().string())});
  REQUIRE(loaded.wait(60000));
  gui::WhatIfView* v = w.whatif();
  v->wait();  // the dependency graph, built on a worker when the dock is shown
  // 64 x 8 x 3 x 3 x 3 = 13824 variants of the captured step (a variant of this small graph
  // takes ~0.6 ms of a worker: ~4 s on two cores, well beyond the second measured below)
  QString values;
  for (int c = 1; c <= 64; ++c) values += (c > 1 ? "," : "") + QString::number(c);
  v->set_sweep_spec("channels=" + values +
                    " chunk_bytes=64KiB,128KiB,256KiB,512KiB,1MiB,2MiB,4MiB,8MiB comm_stream=trace,side,serial protocol=simple,ll128,ll window=2,8,32");
  LatencyProbe probe(w.timeline()->viewport(), 10);
  Heartbeat beat;
  beat.start();
  probe.start();
  v->run_sweep();
  const auto t0 = Clock::now();
  INFO("what-if dock: " << v->status().toStdString());
  // a second of input while the workers simulate (the GUI thread only takes progress)
  while (v->busy() && Clock::now() - t0 < std::chrono::seconds(1)) QTest::qWait(5);
  INFO("then: " << v->status().toStdString() << " after " << std::chrono::duration<double>(Clock::now() - t0).count() << " s");
  REQUIRE(v->busy());
  const double during = probe.max_ms();
  const size_t moves = probe.handled();
  const auto c0 = Clock::now();
  v->cancel();
  while (v->busy()) QTest::qWait(1);
  const double stop_ms = std::chrono::duration<double, std::milli>(Clock::now() - c0).count();
  probe.stop();
  const double stall = beat.stop();
  size_t cancelled = 0, done = 0;
  for (const auto& r : v->sweep_rows()) (r.error == "cancelled" ? cancelled : done) += 1;
  WARN("sweep of " << v->sweep_rows().size() << " variants: " << moves << " posted moves in 1 s, longest wait " << during
                   << " ms, longest GUI-thread stall " << stall << " ms; Cancel: idle after " << stop_ms << " ms, "
                   << done << " variants finished, " << cancelled << " cancelled");
  CHECK(moves > 20);
  CHECK(during <= 100);
  CHECK(stop_ms < 1000);
  CHECK(cancelled > 0);
}
