// Encoders (and the decoders `record` and the dump tool need) for the three .pstrace chunk payloads
// the collector writes besides its own record chunks, following the payload layouts documented in
// trace/io/pstrace_format.h (trace-io branch, 1.0):
//   metadata      : local strings (v n, n × (v len, bytes); index 0 is ""), v n, n × (s key, s value)
//   warnings      : (v len, bytes) repeated to the end of the payload
//   probe_records : v device, z clock_offset_ns, v correlation, v launch_id, (v len, name),
//                   v overflow, v n, n × 32-byte ProbeRecord
// The collector writes metadata at start and again at the end (key "final" = "1"); a reader takes
// the last value of each key. CUDA-free.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "trace/core/probe_record.h"
#include "trace/io/byte_io.h"

namespace parascope::collector {

using Metadata = std::vector<std::pair<std::string, std::string>>;

std::vector<uint8_t> encode_metadata(const Metadata& kv);
Metadata decode_metadata(ByteReader& r);
// Last value of `key`, or "" when absent.
std::string metadata_value(const Metadata& kv, const std::string& key);

std::vector<uint8_t> encode_warnings(const std::vector<std::string>& warnings);
std::vector<std::string> decode_warnings(ByteReader& r);

struct ProbeChunk {
  uint32_t device = 0;           // CUDA ordinal (= CUPTI deviceId)
  int64_t clock_offset_ns = 0;   // added to %globaltimer to reach the CUPTI clock of that device
  uint32_t correlation = 0;      // CUPTI correlation id of the kernel launch, 0: unknown
  uint32_t launch_id = 0;
  std::string kernel_name;
  uint64_t overflow = 0;         // records the device buffer could not hold
  std::vector<ProbeRecord> records;
};
std::vector<uint8_t> encode_probe_chunk(const ProbeChunk& c);
ProbeChunk decode_probe_chunk(ByteReader& r);

}  // namespace parascope::collector
