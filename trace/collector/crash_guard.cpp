#include "trace/collector/crash_guard.h"

#include <execinfo.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

namespace parascope::collector {

namespace {

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM};
constexpr int kCount = sizeof(kSignals) / sizeof(kSignals[0]);

struct sigaction g_previous[kCount];
bool g_installed[kCount] = {};
std::atomic<CrashFlushFn> g_flush{nullptr};
std::atomic<int> g_timeout_ms{3000};
std::atomic<bool> g_active{false};

int slot_of(int sig) {
  for (int i = 0; i < kCount; ++i)
    if (kSignals[i] == sig) return i;
  return -1;
}

// async-signal-safe text output
void say(const char* s) {
  [[maybe_unused]] ssize_t n = ::write(STDERR_FILENO, s, std::strlen(s));
}

void handler(int sig, siginfo_t* info, void* context) {
  const int slot = slot_of(sig);
  if (CrashFlushFn flush = g_flush.load()) {
    say("parascope collector: caught ");
    say(sig == SIGSEGV ? "SIGSEGV" : sig == SIGABRT ? "SIGABRT" : sig == SIGBUS ? "SIGBUS" : sig == SIGFPE ? "SIGFPE"
        : sig == SIGILL ? "SIGILL" : "SIGTERM");
    say(", writing the trace\n");
    if (sig != SIGTERM && sig != SIGABRT) {
      // where the fault happened, for the bug report (backtrace() was primed at install, so it
      // does not load libgcc inside the handler)
      void* frames[32];
      const int n = ::backtrace(frames, 32);
      say("parascope collector: fault backtrace (module(+offset)):\n");
      ::backtrace_symbols_fd(frames, n, STDERR_FILENO);
    }
    const bool ok = flush(sig, g_timeout_ms.load());
    say(ok ? "parascope collector: trace written\n"
           : "parascope collector: trace flush did not finish in time; the file holds every chunk written so far\n");
  }
  if (slot < 0) return;
  // Hand the signal on. The previous disposition is restored first, so a fault re-executed after
  // we return, or a re-raised signal, reaches it (the default action ends the process as it would
  // have without us, with the same status and core dump).
  const struct sigaction& prev = g_previous[slot];
  ::sigaction(sig, &prev, nullptr);
  if ((prev.sa_flags & SA_SIGINFO) && prev.sa_sigaction) {
    prev.sa_sigaction(sig, info, context);
    return;
  }
  if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN && prev.sa_handler) {
    prev.sa_handler(sig);
    return;
  }
  if (prev.sa_handler == SIG_IGN) return;
  // SIG_DFL: a hardware fault (si_code > 0 from the kernel) re-faults when we return; a raised or
  // sent signal (abort(), kill) is raised again and delivered when this handler returns.
  const bool kernel_fault = info && info->si_code > 0 && sig != SIGABRT && sig != SIGTERM;
  if (!kernel_fault) ::raise(sig);
}

}  // namespace

void install_crash_guard(CrashFlushFn flush, int timeout_ms) {
  g_flush = flush;
  g_timeout_ms = timeout_ms;
  bool expected = false;
  if (!g_active.compare_exchange_strong(expected, true)) return;
  void* prime[1];
  (void)::backtrace(prime, 1);
  for (int i = 0; i < kCount; ++i) {
    struct sigaction old {};
    if (::sigaction(kSignals[i], nullptr, &old) != 0) continue;
    // SIGTERM: only when the program has no handler of its own (Python, torchrun's workers leave
    // it at SIG_DFL); a program that handles SIGTERM exits through exit() and our atexit flush
    if (kSignals[i] == SIGTERM && (old.sa_flags & SA_SIGINFO ? true : old.sa_handler != SIG_DFL)) continue;
    struct sigaction sa {};
    sa.sa_sigaction = handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    if (::sigaction(kSignals[i], &sa, &g_previous[i]) == 0) g_installed[i] = true;
  }
}

void remove_crash_guard() {
  for (int i = 0; i < kCount; ++i) {
    if (!g_installed[i]) continue;
    ::sigaction(kSignals[i], &g_previous[i], nullptr);
    g_installed[i] = false;
  }
  g_flush = nullptr;
  g_active = false;
}

}  // namespace parascope::collector
