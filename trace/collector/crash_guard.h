// Crash safety for the collector: handlers for SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT (and
// SIGTERM when the program left it at its default) that get what CUPTI delivered onto disk before
// the process dies, then hand the signal on to whatever handled it before (Python's faulthandler,
// the default action: core dump, exit status).
// The handler does only async-signal-safe things: lock-free atomics, write(2) to an eventfd and to
// stderr, nanosleep(2), sigaction(2), raise(3). The real work happens on the writer thread
// (CaptureWriter::crash_flush); the handler waits for it at most the given timeout, so a writer
// stuck on a lock the crashed thread held cannot hang the dying process.
#pragma once

namespace parascope::collector {

// Called from the signal handler; must be async-signal-safe. Returns true if the flush completed.
using CrashFlushFn = bool (*)(int signal_number, int timeout_ms) noexcept;

// Installs the handlers once per process (later calls only replace flush/timeout).
void install_crash_guard(CrashFlushFn flush, int timeout_ms);
// Restores the previous handlers (used at exit, and by tests).
void remove_crash_guard();

}  // namespace parascope::collector
