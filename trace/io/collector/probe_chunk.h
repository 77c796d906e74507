// The kProbeRecords chunk payload (grammar in pstrace_format.h): one probe buffer of one kernel
// launch on one device — the device's CUDA ordinal, the %globaltimer→CUPTI clock offset, the CUPTI
// correlation of the launch (0: unknown), launch id, kernel name, the overflow count (records the
// device buffer could not hold: never silent) and the raw 32-byte ProbeRecords. One encoder and one
// decoder, shared by the collector, parascope-bench and the reader.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/core/probe_record.h"
#include "trace/io/common/byte_io.h"

namespace parascope {

struct ProbeChunk {
  uint32_t device = 0;           // CUDA ordinal (= CUPTI deviceId)
  int64_t clock_offset_ns = 0;   // added to %globaltimer to reach the CUPTI clock of that device (0: not measured)
  uint32_t correlation = 0;      // CUPTI correlation id of the kernel launch, 0: unknown
  uint32_t launch_id = 0;
  std::string kernel_name;
  uint64_t overflow = 0;         // records the device buffer could not hold
  std::vector<ProbeRecord> records;
};

std::vector<uint8_t> encode_probe_chunk(const ProbeChunk& c);
// Throws InputError (via ByteReader) on a truncated payload or a record count the payload cannot hold.
ProbeChunk decode_probe_chunk(ByteReader& r);

}  // namespace parascope
