// LL ("low-latency") protocol of the one-shot all-reduce: every 8-byte word a rank pushes to a
// peer carries 4 bytes of data and a 4-byte flag, so a reader that sees the flag it expects in a
// word also sees that word's data (aligned 64-bit accesses are single-copy atomic); no barrier, no
// fence. The flag is the launch's epoch (per block, counted on the device, never reset between
// launches), so stale words of earlier launches never match and no reset pass is needed; scratch
// is double-buffered by epoch parity. Plain C++ shared with the kernels (PS_HD), tested in CI.
#pragma once

#include <cstdint>

#ifndef PS_HD  // the same definition as in host/test_data.h
#if defined(__CUDACC__)
#define PS_HD __host__ __device__ __forceinline__
#else
#define PS_HD inline
#endif
#endif

namespace parascope::bench {

inline constexpr int kLlThreads = 256;                // one 16-byte input vector per thread
inline constexpr uint64_t kLlMaxBytes = 256ull << 10;  // per rank; 64 blocks at the maximum
inline constexpr uint64_t kLlLineBytes = 16;           // {data0, flag, data1, flag}: 8 data bytes
inline constexpr int kLlLinesPerVec = 2;               // a 16-byte input vector = 2 lines
inline constexpr uint64_t kLlMaxLines = kLlMaxBytes / 8;

// One 8-byte word: data in the low half, flag (epoch) in the high half.
PS_HD constexpr uint64_t ll_pack(uint32_t data, uint32_t epoch) { return (static_cast<uint64_t>(epoch) << 32) | data; }
PS_HD constexpr uint32_t ll_data(uint64_t word) { return static_cast<uint32_t>(word); }
PS_HD constexpr uint32_t ll_flag(uint64_t word) { return static_cast<uint32_t>(word >> 32); }
// Ready when the flag is exactly this launch's epoch (a word of an earlier launch has a smaller
// one; epochs never wrap within a process: 2^32 launches of one block).
PS_HD constexpr bool ll_ready(uint64_t word, uint32_t epoch) { return ll_flag(word) == epoch; }

// Scratch half used by a launch with this epoch: launch k and k+1 alternate, and launch k+2 can
// only start on a rank after every peer has pushed its launch k+1 words, which each peer does only
// after its launch k (its reads of that half) has finished.
PS_HD constexpr uint32_t ll_half(uint32_t epoch) { return epoch & 1u; }

// Byte offset of `line` from source rank `src` in the receiver's scratch half `half`.
PS_HD constexpr uint64_t ll_line_offset(uint32_t half, int src, int nranks, uint64_t line) {
  return ((static_cast<uint64_t>(half) * static_cast<uint64_t>(nranks) + static_cast<uint64_t>(src)) * kLlMaxLines + line) *
         kLlLineBytes;
}
PS_HD constexpr uint64_t ll_scratch_bytes(int nranks) { return 2ull * static_cast<uint64_t>(nranks) * kLlMaxLines * kLlLineBytes; }

// Blocks for a message: input vector v (16 bytes) is thread v % kLlThreads of block v / kLlThreads
// at every size, so a line is always written and read by the same block index, whose epoch is the
// same on every rank (all ranks launch the same sequence).
PS_HD constexpr int ll_blocks(uint64_t bytes) {
  const uint64_t vecs = bytes / 16;
  return static_cast<int>((vecs + kLlThreads - 1) / kLlThreads > 0 ? (vecs + kLlThreads - 1) / kLlThreads : 1);
}

}  // namespace parascope::bench
