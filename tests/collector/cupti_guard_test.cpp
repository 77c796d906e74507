// The CUPTI guard (trace/collector/cupti_guard.h) with the real libcupti.so.13 and no GPU: a
// second client library opened RTLD_LOCAL (as Python opens torch) calls CUPTI; preloaded, the guard
// notes each distinct call with the calling library and hands back exactly what libcupti returned.
#include <catch2/catch.hpp>

#include <string>

#include "cli/run_command.h"

namespace {

std::string probe(bool preload) {
  const std::string cmd = std::string(preload ? "LD_PRELOAD=" PARASCOPE_GUARD_LIB " " : "env -u LD_PRELOAD ") +
                          PARASCOPE_GUARD_PROBE " " PARASCOPE_GUARD_CLIENT;
  const auto r = parascope::test::run_command(cmd);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

std::string client_lines(const std::string& out) {
  std::string s;
  size_t at = 0;
  while ((at = out.find("client ", at)) != std::string::npos) {
    const size_t end = out.find('\n', at);
    s += out.substr(at, end - at + 1);
    at = end;
  }
  return s;
}

int result_of(const std::string& out, int i) {
  const std::string key = "client " + std::to_string(i) + " ";
  const size_t at = out.find(key);
  REQUIRE(at != std::string::npos);
  return std::stoi(out.substr(at + key.size()));
}

}  // namespace

TEST_CASE("The CUPTI guard notes another client's calls and passes libcupti's results through", "[collector][guard]") {
  const std::string plain = probe(false);
  CHECK_THAT(plain, Catch::Contains("no guard"));
  const std::string guarded = probe(true);
  // the client got the same results with the guard in between (without a driver libcupti answers
  // CUPTI_ERROR_UNKNOWN to subscribe and enable, CUPTI_SUCCESS to the registration; on a GPU
  // machine the second subscribe gets CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
  CHECK(client_lines(guarded) == client_lines(plain));
  const std::string lib = "libparascope_guard_test_client.so";
  // two subscribes with one result are one entry with 2 calls, unless their results differ
  const int s0 = result_of(guarded, 0), s1 = result_of(guarded, 1);
  if (s0 == s1) {
    CHECK_THAT(guarded, Catch::Contains("guard cuptiSubscribe " + lib + " " + std::to_string(s0) + " 0 2\n"));
  } else {
    CHECK_THAT(guarded, Catch::Contains("guard cuptiSubscribe " + lib + " " + std::to_string(s0) + " 0 1\n"));
    CHECK_THAT(guarded, Catch::Contains("guard cuptiSubscribe " + lib + " " + std::to_string(s1) + " 0 1\n"));
  }
  CHECK_THAT(guarded, Catch::Contains("guard cuptiActivityRegisterCallbacks " + lib + " " +
                                      std::to_string(result_of(guarded, 2)) + " 0 1\n"));
  // CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL is kind 10
  CHECK_THAT(guarded, Catch::Contains("guard cuptiActivityEnable " + lib + " " + std::to_string(result_of(guarded, 3)) +
                                      " 10 1\n"));
}
