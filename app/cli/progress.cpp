#include "cli/progress.h"

#include <unistd.h>

#include <cstdio>

namespace parascope::cli {

Progress::Progress(bool quiet)
    : quiet_(quiet), tty_(::isatty(STDERR_FILENO) != 0), start_(std::chrono::steady_clock::now()), last_draw_(start_) {}

Progress::~Progress() { finish(); }

void Progress::update(const std::string& label, uint64_t done, uint64_t total) {
  if (quiet_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - start_ < std::chrono::seconds(1)) return;
  if (drawn_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  const double frac = total ? static_cast<double>(done) / static_cast<double>(total) : 0.0;
  if (tty_) {
    const int width = 30;
    const int filled = static_cast<int>(frac * width);
    std::string bar(static_cast<size_t>(filled), '#');
    bar.append(static_cast<size_t>(width - filled), '.');
    std::fprintf(stderr, "\r%-40.40s [%s] %5.1f%%", label.c_str(), bar.c_str(), frac * 100.0);
  } else {
    const int decile = static_cast<int>(frac * 10);
    if (decile == last_decile_) return;
    last_decile_ = decile;
    std::fprintf(stderr, "%s: %d%%\n", label.c_str(), decile * 10);
  }
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::finish() {
  if (drawn_ && tty_) {
    std::fprintf(stderr, "\r%80s\r", "");
    std::fflush(stderr);
  }
  drawn_ = false;
}

}  // namespace parascope::cli
