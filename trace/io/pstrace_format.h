// The .pstrace container: one file header, then self-describing chunks, then (when the file was
// closed cleanly) an index chunk and a trailer pointing at it.
//
//   header  : "PSTRACE\0" u16 major u16 minor u32 flags u64 created_unix_ns u32 reserved u32 crc32c(first 28 bytes)
//   chunk   : u32 type, u32 codec, u64 length, u32 crc32c(stored payload), payload[length]
//   trailer : u64 index_chunk_offset, "PSTREND\0"
//
// Chunks are appended while a program runs; a file cut anywhere still yields every complete chunk
// (readers scan when the trailer is missing). Each chunk carries the strings it uses, so chunks
// decode independently. A type with kChunkMustUnderstand set may not be skipped by a reader that
// does not know it. All integers little-endian. The registry below is the one list of types.
#pragma once

#include <bit>
#include <cstdint>
#include <string_view>

namespace parascope {

static_assert(std::endian::native == std::endian::little, "the .pstrace code assumes a little-endian host");

inline constexpr char kPstraceMagic[8] = {'P', 'S', 'T', 'R', 'A', 'C', 'E', '\0'};
inline constexpr char kPstraceEndMagic[8] = {'P', 'S', 'T', 'R', 'E', 'N', 'D', '\0'};
inline constexpr uint16_t kPstraceMajor = 1;
inline constexpr uint16_t kPstraceMinor = 0;
inline constexpr size_t kFileHeaderBytes = 32;
inline constexpr size_t kChunkHeaderBytes = 20;
inline constexpr size_t kTrailerBytes = 16;
// A stored chunk may not claim more than this, and a zstd chunk may not expand beyond
// kMaxExpansion × its stored size: both bound every allocation by the input's size.
inline constexpr uint64_t kMaxChunkBytes = 1ull << 31;
inline constexpr uint64_t kMaxExpansion = 256;

enum class Codec : uint32_t { kNone = 0, kZstd = 1 };
std::string_view to_string(Codec c);

inline constexpr uint32_t kChunkMustUnderstand = 0x80000000u;

// The chunk-type registry. Numbers are part of the file format: never reuse one.
enum class ChunkType : uint32_t {
  kIndex = 1,          // footer index: offsets of every chunk
  kMetadata = 2,       // key/value text: tool, version, command line, host, start time
  kProcesses = 3,      // Process records
  kDevices = 4,        // Device records
  kTracks = 5,         // track declarations (key, name, parent, flags)
  kSlices = 6,         // a run of slices of one track (columns, with their detail records)
  kCounters = 7,       // a run of counter samples of one track
  kFlows = 8,          // flows between slices
  kCollectives = 9,    // collective annotations
  kTopology = 10,      // Topology (JSON text)
  kProbeRecords = 11,  // raw ProbeRecord array + the kernel launch it belongs to
  kLinks = 12,         // Link records
  kWarnings = 13,      // loader/collector warnings and dropped-record counts
  kLaunchConfigs = 14, // LaunchConfig table entries
  kCuptiRecords = 15,  // collector: converted CUPTI activity (before the trace model)
  kNcclRecords = 16,   // collector: NCCL profiler plugin events
};

struct ChunkTypeInfo {
  ChunkType type;
  std::string_view name;
  bool must_understand;  // a reader that does not know this type must refuse the file
};

// nullptr when the type number is not registered.
const ChunkTypeInfo* find_chunk_type(uint32_t type);
std::string_view chunk_type_name(uint32_t type);  // "slices", or "unknown(77)"

struct ChunkHeader {
  uint32_t type = 0;
  Codec codec = Codec::kNone;
  uint64_t length = 0;  // stored payload bytes
  uint32_t crc32c = 0;  // of the stored payload
};

}  // namespace parascope
