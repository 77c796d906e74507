// Trace → SQLite database with a documented schema (docs/formats.md, "SQLite export") so traces
// can be queried with SQL: process, device, track, slice (+ kernel, memcpy, memset, sync detail
// tables keyed by slice id), collective (with NCCL algbw/busbw), arg, flow, counter, meta, and
// views joining slices to their rank/device/stream. Times are integer ns on the trace clock.
// Slice ids are the running index over tracks in order then rows (the same ids the CSV uses).
// Written to a temporary file and renamed on success. Needs a build with SQLite
// (PARASCOPE_HAVE_SQLITE); without it write_sqlite throws and sqlite_export_available() is false.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "trace/core/trace.h"

namespace parascope {

inline constexpr int kSqliteSchemaVersion = 1;

bool sqlite_export_available();

void write_sqlite(const Trace& trace, const std::string& path,
                  const std::function<void(uint64_t done, uint64_t total)>& progress = {});

}  // namespace parascope
