// A progress bar on stderr for work that takes longer than a second; silent with --quiet or when
// stderr is not a terminal (then one line per 10 % for logs). Safe to call often: it redraws at
// most 10 times a second.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace parascope::cli {

class Progress {
 public:
  explicit Progress(bool quiet);
  ~Progress();
  void update(const std::string& label, uint64_t done, uint64_t total);
  void finish();

 private:
  bool quiet_;
  bool tty_;
  bool drawn_ = false;
  int last_decile_ = -1;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace parascope::cli
