// Trace → Chrome / Kineto JSON that opens in ui.perfetto.dev and chrome://tracing and re-imports
// through our Kineto reader with the same per-device kernel, memcpy, memset and collective counts.
// Layout (docs/formats.md): by default one file per source file (one per rank, as PyTorch writes
// them) — PATH itself when the trace came from one file, else PATH with ".rank<R>" before the
// extension — each with its own baseTimeNanoseconds, distributedInfo and deviceProperties, GPU
// events keyed by args.device/stream. `merged` writes one file with every rank (pids made unique,
// device ids trace-wide) for viewers. Timestamps are written exactly (integer ns → "us.nnn").
// Every file is written atomically (AtomicFile); ".gz" compresses.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "trace/core/trace.h"

namespace parascope {

struct ChromeJsonWriteOptions {
  bool merged = false;
  std::function<void(uint64_t done, uint64_t total)> progress;
};

struct ChromeJsonWriteResult {
  std::vector<std::string> files;
  std::vector<std::string> warnings;  // what the format could not carry
};

ChromeJsonWriteResult write_chrome_json(const Trace& trace, const std::string& path,
                                        const ChromeJsonWriteOptions& options = {});

// "1.5", "-0.000001", "1e+300": shortest text that reads back to the same double; "null" for
// NaN/inf (JSON has no such numbers).
std::string json_number(double v);
// Exact decimal microseconds of a nanosecond count: 1234567 → "1234.567".
std::string ns_to_us_text(int64_t ns);

}  // namespace parascope
