// A .pstrace of the stand-in's records alone, for `record --world N --no-collector` (or a process
// that never started CUDA, so the collector never took its records): metadata like the
// collector's (host, pid, rank, world_size, session, command, status "standin") and one
// kStandInRecords chunk holding the JSON lines the process wrote to its log. CUDA-free.
#pragma once

#include <string>

#include "trace/collector/chunk_payloads.h"

namespace parascope::collector {

// Writes `path` atomically; std::runtime_error naming the file when it cannot.
void write_standin_capture(const std::string& path, const Metadata& metadata, const std::string& jsonl);

}  // namespace parascope::collector
