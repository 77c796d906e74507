// Kineto / Chrome JSON → trace model. Understands the PyTorch profiler's flavour (GPU events keyed
// by args.device/stream, deviceProperties, distributedInfo, baseTimeNanoseconds, NCCL args on
// kernels, correlation ids linking launches to kernels, [memory] instants) and plain Chrome trace
// events (X, B/E, i/I/R, C, M, async b/e/n, flows s/t/f and bind_id). One file is one process/rank
// unless several files of one worker share a WorkerJoin (TensorBoard folders hold one file per
// profiling cycle): then they become one process. Ids (flows, async, correlation) are namespaced per
// file. Each file's clock offset is recorded in its Process (clock_offset_ns + reason).
#pragma once

#include <string>

#include "trace/core/trace_builder.h"
#include "trace/io/common/file_import.h"
#include "trace/io/json/byte_source.h"

namespace parascope {

// Imports one JSON file (plain or gzip) into `builder`. Throws InputError naming the file and the
// place on malformed input.
FileImportReport import_chrome_json(const std::string& path, TraceBuilder& builder, const ImportOptions& options = {});
// The same over an open source (memory, tests, fuzzing); errors name source.path().
FileImportReport import_chrome_json(ByteSource& source, TraceBuilder& builder, const ImportOptions& options = {});

}  // namespace parascope
