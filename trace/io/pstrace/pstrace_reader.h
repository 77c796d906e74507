// Reads .pstrace files into the trace model through TraceBuilder: the chunks PstraceWriter
// produces and the raw chunks of the collector and parascope-bench (kCuptiRecords, kNcclRecords,
// kProbeRecords: decoded by CollectorImport, collector_import.h). Damage is reported, not
// hidden: a cut file yields every complete chunk plus a warning naming what was lost; a chunk
// failing its checksum is skipped with a warning naming its offset and type; a newer major
// version, an unknown must-understand chunk or a malformed payload is an InputError naming the
// file, the chunk's offset and the payload byte. No count in a file sizes an allocation beyond
// what the bytes present can hold.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "trace/core/trace_builder.h"
#include "trace/io/pstrace/collector_import.h"

namespace parascope {

struct PstraceReadOptions {
  std::function<void(uint64_t done, uint64_t total)> progress;  // bytes of the file
  const std::atomic<bool>* cancel = nullptr;                     // checked between chunks
  // Identity of the process for files that declare none (the collector's): from the record
  // manifest. Without it: the file's metadata (host, pid, rank), then its name
  // (<host>-<pid>-r<rank>.pstrace).
  std::optional<Process> default_process;
  // Map the memory reserved for the trace ahead of the writes (page_prefaulter.h): the same result,
  // sooner, since first-touch page faults are a large part of a load. With 3 or more cores a thread
  // of its own does it; with fewer, the prefetch thread does it when it would otherwise wait (a
  // third thread competing with the two that decode made loads 2-6 % slower on the 2-core machine
  // here; in the prefetch thread's idle time it made them ~6 % faster: docs/history/benchmarks.md,
  // "Stop 17"). Unset: on.
  std::optional<bool> prefault;
};

struct PstraceFileReport {
  std::string file;
  uint16_t version_major = 0, version_minor = 0;
  size_t chunks = 0;
  size_t chunks_skipped = 0;   // failed checksum, or of an optional type this build does not know
  bool truncated = false;      // the file was cut (no trailer; the scan stopped early)
  int64_t slices = 0, counter_samples = 0, flows = 0, collectives = 0;
  int64_t cupti_records = 0, probe_records = 0;
  CollectorImportReport collector;    // what the collector / bench chunks held (counts, clock syncs)
  std::vector<std::pair<std::string, std::string>> metadata;
  std::vector<std::string> warnings;  // also appended to the trace's warnings
};

// Adds one file to `builder` (several files merge: each brings its own processes).
PstraceFileReport import_pstrace(const std::string& path, TraceBuilder& builder, const PstraceReadOptions& options = {});

// One file as a finished trace (source_format "pstrace").
Trace read_pstrace(const std::string& path, const PstraceReadOptions& options = {}, PstraceFileReport* report = nullptr);

}  // namespace parascope
