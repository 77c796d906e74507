// The collector's compact record encoding inside kCuptiRecords chunks: CUPTI's structs flattened
// to the fields the trace model uses, so the file format does not depend on CUPTI's struct layout.
// Encoding (little-endian, varints via ByteWriter): u8 kind, then per kind the fields below.
// Plain C++: readers decode it without CUDA.
#pragma once

#include <cstdint>
#include <string>

#include "trace/io/byte_io.h"

namespace parascope::collector {

enum class RecordKind : uint8_t { kKernel = 1, kMemcpy = 2, kMemset = 3 };

struct CollectedActivity {
  RecordKind kind = RecordKind::kKernel;
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t device = 0, context = 0, stream = 0, correlation = 0;
  // kernel
  std::string name;
  int32_t grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
  uint32_t registers = 0, static_smem = 0, dynamic_smem = 0, graph_id = 0;
  uint64_t graph_node_id = 0;
  // memcpy / memset
  uint64_t bytes = 0;
  uint8_t copy_kind = 0;      // CUpti_ActivityMemcpyKind
  uint32_t src_device = 0, dst_device = 0;
  uint32_t value = 0;
};

void encode(ByteWriter& w, const CollectedActivity& a);
CollectedActivity decode(ByteReader& r);

}  // namespace parascope::collector
