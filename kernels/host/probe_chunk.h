// The bench's probe records on disk: one kProbeRecords chunk per (device, launch) in a .pstrace
// written through the shared ChunkWriter. Interim payload, until trace/io/pstrace_format.h (branch
// trace-io) fixes the final one:
//   u32 device, i64 globaltimer→CUPTI offset ns (0 = unknown), u32 launch_id,
//   string kernel name (varint length + UTF-8), u32 overflow (records dropped because the
//   buffer was full), then ProbeRecord[ (payload end - here) / 32 ] raw little-endian.
// A kMetadata chunk of "key=value\n" lines (tool, command, date, machine) comes first.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "trace/core/probe_record.h"
#include "trace/io/byte_io.h"

namespace parascope::bench {

struct ProbeLaunch {
  uint32_t device = 0;
  int64_t clock_offset_ns = 0;
  uint32_t launch_id = 0;
  std::string kernel;
  uint32_t overflow = 0;
  std::vector<ProbeRecord> records;
};

std::vector<uint8_t> encode_probe_chunk(const ProbeLaunch& launch);
// Throws InputError (truncated payload, a record array that is not a whole number of records).
ProbeLaunch decode_probe_chunk(const uint8_t* data, size_t size, const std::string& file, int64_t base_offset);

// overflow = max(next, capacity) − capacity (probe_record.h), saturating to u32.
uint32_t probe_overflow(const ProbeBufferHeader& h);

// One line per launch: "GPU 1 ag_gemm_fused_tma/push: 32 spans on 8 SMs (124-131), communicate
// 32, window 812.4 us, overflow 0" — a quick look at a probed run without the trace reader.
std::string describe_probes(const std::vector<ProbeLaunch>& launches);

// Writes the metadata chunk and one chunk per launch; throws std::runtime_error on I/O errors.
void write_probe_pstrace(const std::string& path, const std::vector<std::pair<std::string, std::string>>& metadata,
                         const std::vector<ProbeLaunch>& launches);

}  // namespace parascope::bench
