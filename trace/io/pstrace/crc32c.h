// CRC-32C (Castagnoli), the checksum of every .pstrace chunk. Uses the SSE4.2 instruction when
// the CPU has it, a table otherwise; both give identical results (tested).
#pragma once

#include <cstddef>
#include <cstdint>

namespace parascope {

uint32_t crc32c(const void* data, size_t size, uint32_t crc = 0);
uint32_t crc32c_portable(const void* data, size_t size, uint32_t crc = 0);

}  // namespace parascope
