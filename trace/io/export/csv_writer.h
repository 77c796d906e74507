// CSV tables of a trace for spreadsheets and pandas (RFC 4180: a header row, comma-separated,
// fields holding a comma, quote or line break quoted with quotes doubled; UTF-8; times in integer
// nanoseconds on the trace clock). Two tables: every slice (one row each, with its typed details
// flattened), and kernel statistics (kernel_stats.h: one row per kernel name, per device and for
// the whole trace). Columns are listed in docs/formats.md. Written atomically.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "trace/core/analysis/kernel_stats.h"
#include "trace/core/trace.h"

namespace parascope {

// Appends one CSV field (quoted when needed) to `out`.
void append_csv_field(std::string& out, std::string_view field);

void write_slices_csv(const Trace& trace, const std::string& path,
                      const std::function<void(uint64_t done, uint64_t total)>& progress = {});
void write_kernel_stats_csv(const Trace& trace, const KernelStats& stats, const std::string& path);

}  // namespace parascope
