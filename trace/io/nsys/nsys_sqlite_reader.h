// Nsight Systems SQLite export (`nsys export --type sqlite`) → trace model. Reads CUDA kernels
// (with graph ids), memcpys (copy kind, bytes, memory kinds, peer devices), memsets,
// synchronisation, runtime/driver API calls with launch flows by correlation id, NVTX ranges and
// marks (domains, categories, colours, payloads), profiler overhead (PROFILER_OVERHEAD and
// CUPTI_ACTIVITY_KIND_OVERHEAD, as overhead slices on their threads), the operation of NCCL
// kernels from NCCL's NVTX ranges around their launch (a collective annotation without a size),
// processes, threads and the session start time.
// Columns are probed with PRAGMA table_info and missing tables are tolerated: Nsight versions add
// and drop both. Timestamps are session-relative ns; utcEpochNs of the session start puts them on
// the wall clock (recorded as each process's clock offset). Built only with PARASCOPE_HAVE_SQLITE.
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include "trace/core/trace_builder.h"
#include "trace/io/common/file_import.h"

namespace parascope {

struct NsysImportOptions {
  std::function<void(uint64_t done, uint64_t total)> progress;  // rows read of rows to read
  const std::atomic<bool>* cancel = nullptr;
};

// One process per traced OS process with GPU or API activity. InputError naming the file (and the
// table) when it is not an SQLite database or a query fails.
FileImportReport import_nsys_sqlite(const std::string& path, TraceBuilder& builder, const NsysImportOptions& options = {});

}  // namespace parascope
