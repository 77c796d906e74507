// A slices chunk of a .pstrace file decoded without the model (trace/io/pstrace/pstrace_reader.cpp's first
// half of a slices chunk): strings, launch configurations, argument sets, the columns and the detail
// records, with string references as the chunk's local indexes and devices as the file's numbers.
// parse_slice_chunk touches nothing shared, so the chunk prefetcher runs it on its thread; the
// reader's thread then interns the strings and appends everything to the trace. Errors are the
// ByteReader's, at the same payload offsets as decoding in one pass.
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "trace/core/args.h"
#include "trace/core/events.h"
#include "trace/io/common/byte_io.h"
#include "trace/io/pstrace/chunk_prefetcher.h"

namespace parascope {

struct SliceChunk : ParsedChunk {
  std::exception_ptr error;                 // the parse failed here (an InputError): nothing else is valid
  std::vector<std::string_view> strings;    // local string i + 1 (0: the empty string); views into the payload
  std::vector<StringId> local;              // 0, 1, 2, ...: the identity table the parse checks indexes against
  uint64_t file_track = 0, first_row = 0, n = 0;
  std::vector<LaunchConfig> configs;
  // Argument shapes: shape s has fields [shape_fields[s], shape_fields[s + 1]) of shape_keys (local
  // strings) / shape_types. Sets: k of them, set i of shape set_shapes[i], its values in `bits` in
  // order (`used` in all; string values as local strings); per field whether every set of the chunk
  // had the same value (`same`, the first one in `first_bits`), and sets per shape.
  std::vector<StringId> shape_keys;
  std::vector<ArgValue::Type> shape_types;
  std::vector<uint32_t> shape_fields;
  uint64_t k = 0;
  std::vector<uint32_t> set_shapes;
  // Room for the values: as many as the payload's bytes allow, of which only `used` are written, so
  // it grows without being zeroed (zeroing it was ~7 % of a load's first-touch page faults).
  std::unique_ptr<uint64_t[]> bits;
  size_t bits_room = 0;
  size_t used = 0;
  std::vector<uint64_t> first_bits;
  std::vector<uint8_t> same;
  std::vector<uint32_t> shape_sets;
  bool has_args = false;
  std::vector<TimeNs> start, dur;
  std::vector<StringId> name;               // local strings
  std::vector<uint8_t> kind;                // kind byte per slice (kind | kNoDetailBit)
  std::vector<uint32_t> set;                // 0: no args, else the chunk's set + 1
  // Detail records in slice order, one per slice with a detail (kind byte without kNoDetailBit):
  std::vector<KernelInfo> kernels;          // launch_config: the chunk's config + 1 (0: none)
  std::vector<MemcpyInfo> memcpys;
  std::vector<std::pair<uint64_t, uint64_t>> memcpy_devices;  // the file's src / dst device + 1 (0: none)
  std::vector<MemsetInfo> memsets;
  std::vector<SyncInfo> syncs;
  std::vector<NvtxInfo> nvtx;               // domain, category: local strings
  std::vector<CpuOpInfo> cpu_ops;
  std::vector<ApiInfo> apis;
  std::vector<SmSpanInfo> sm_spans;
  std::vector<EventRef> sm_span_kernels;    // the file's reference of each span's kernel
};

// Decodes the chunk `r` reads (a slices payload) into `out`, reusing its buffers. Throws InputError.
void parse_slice_chunk(ByteReader& r, SliceChunk& out);

}  // namespace parascope
