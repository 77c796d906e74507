// Flows and counters chunks of a .pstrace file decoded without the model, as slice_chunk.h does for
// slices: each chunk's local strings (views into the payload, interned later by the reader's
// thread) and its records with the file's own numbers (file track, row), exactly as the reader's
// own decoding reads them. The parse functions touch nothing shared, so the chunk prefetcher runs
// them on its thread; errors are the ByteReader's, at the same payload offsets as decoding on the
// reader's thread.
#pragma once

#include <exception>
#include <string_view>
#include <vector>

#include "trace/core/events.h"
#include "trace/io/common/byte_io.h"
#include "trace/io/pstrace/chunk_prefetcher.h"

namespace parascope {

struct FlowChunk : ParsedChunk {
  std::exception_ptr error;               // the parse failed here (an InputError): nothing else is valid
  std::vector<std::string_view> strings;  // the chunk's local strings, in order
  std::vector<Flow> flows;
};

struct CounterChunk : ParsedChunk {
  std::exception_ptr error;
  std::vector<std::string_view> strings;
  uint64_t file_track = 0;
  std::vector<TimeNs> time;
  std::vector<double> value;
};

// Decode the chunk `r` reads into `out`, reusing its buffers. Throw InputError.
void parse_flow_chunk(ByteReader& r, FlowChunk& out);
void parse_counter_chunk(ByteReader& r, CounterChunk& out);

}  // namespace parascope
