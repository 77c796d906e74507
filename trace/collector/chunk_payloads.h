// Encoders (and the decoders `record` and the dump tool need) for the .pstrace chunk payloads
// the collector writes besides its own record chunks, following the payload layouts documented in
// trace/io/pstrace/pstrace_format.h (trace-io branch, 1.0):
//   metadata      : local strings (v n, n × (v len, bytes); index 0 is ""), v n, n × (s key, s value)
//   warnings, notes: (v len, bytes) repeated to the end of the payload (lines)
//   probe_records : trace/io/collector/probe_chunk.h (shared with parascope-bench and the reader)
// The collector writes metadata at start and again at the end (key "final" = "1"); a reader takes
// the last value of each key. CUDA-free.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "trace/io/collector/probe_chunk.h"
#include "trace/io/common/byte_io.h"

namespace parascope::collector {

using Metadata = std::vector<std::pair<std::string, std::string>>;

std::vector<uint8_t> encode_metadata(const Metadata& kv);
Metadata decode_metadata(ByteReader& r);
// Last value of `key`, or "" when absent.
std::string metadata_value(const Metadata& kv, const std::string& key);

// A warnings or notes payload.
std::vector<uint8_t> encode_lines(const std::vector<std::string>& lines);
std::vector<std::string> decode_lines(ByteReader& r);

// The probe payload codec lives in trace/io/collector/probe_chunk.h.
using parascope::ProbeChunk;
using parascope::decode_probe_chunk;
using parascope::encode_probe_chunk;

}  // namespace parascope::collector
