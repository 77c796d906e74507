// Skips that ctest counts as skips. A test that cannot check here (no ../shared data, no tool, no
// GPU, built without a reader) says why and returns through PARASCOPE_SKIP:
//   if (!test::shared_available()) PARASCOPE_SKIP("../shared/data (real Nsight exports) is not present");
// Catch2 v2 has no skip, so the test binary's main (skip_main.h) exits with kSkipReturnCode when
// every test case it ran skipped and none failed; ctest runs one TEST_CASE per process and
// parascope_add_test_exe sets SKIP_RETURN_CODE, so ctest reports it "Skipped", never "Passed".
#pragma once

#include <string>

namespace parascope::test {

constexpr int kSkipReturnCode = 77;

// Marks the running test case skipped and prints why (a Catch2 warning). Defined in skip_main.h.
void note_skip(const std::string& why);

}  // namespace parascope::test

// Use in the test case's own body (it returns from the enclosing function).
#define PARASCOPE_SKIP(why)                \
  do {                                     \
    ::parascope::test::note_skip(why);     \
    return;                                \
  } while (0)
