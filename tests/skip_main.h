// The other half of skip.h, included once per test binary by its main (catch_main.cpp,
// app/qt_catch_main.cpp) after the Catch2 runner: a listener counts the test cases that ran and
// those that called note_skip; skip_aware_result turns "no failures and every case skipped" into
// kSkipReturnCode. A case that skipped after failing an assertion stays a failure.
#pragma once

#include <cstdio>

#include "skip.h"

namespace parascope::test {

namespace {

struct SkipCounts {
  int started = 0, skipped = 0;
  bool current_skipped = false;
};
SkipCounts g_skips;

struct SkipListener : Catch::TestEventListenerBase {
  using TestEventListenerBase::TestEventListenerBase;
  void testCaseStarting(Catch::TestCaseInfo const& info) override {
    TestEventListenerBase::testCaseStarting(info);
    ++g_skips.started;
    g_skips.current_skipped = false;
  }
  void testCaseEnded(Catch::TestCaseStats const& stats) override {
    if (g_skips.current_skipped && stats.totals.assertions.failed == 0) ++g_skips.skipped;
    TestEventListenerBase::testCaseEnded(stats);
  }
};

}  // namespace

CATCH_REGISTER_LISTENER(SkipListener)

void note_skip(const std::string& why) {
  g_skips.current_skipped = true;
  WARN("SKIPPED: " << why);
}

// Catch2's result (the number of failed assertions, capped) unless every case that ran skipped.
inline int skip_aware_result(int catch_result) {
  if (catch_result == 0 && g_skips.started > 0 && g_skips.skipped == g_skips.started) return kSkipReturnCode;
  return catch_result;
}

}  // namespace parascope::test
