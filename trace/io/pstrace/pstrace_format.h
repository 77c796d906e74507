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
//
// Chunk payloads (1.0). Notation: v = LEB128 varint, z = zig-zag varint, s = v local string index,
// f64/u8/u32 fixed width. Payloads marked `strings` open with a local string table
// `v n, n × (v len, bytes)`; local index 0 is "" and stored strings are 1..n. Processes, devices,
// links and tracks are named by the file's own indexes (declared once, in any chunk of their
// type); readers map them to the trace's. A slice reference is `v track+1 (0: none), v row`, the
// row counting the track's slices in the order they were appended to the file. Readers ignore
// bytes after a payload's last field (room for a minor version to add some).
//   metadata   : strings, v n, n × (s key, s value). Keys: tool, tool_version, command, host, pid,
//                rank, start_time_unix_ns, source_format, source_file (repeatable), clock.
//   processes  : strings, v n, n × (v index, z rank, z pid, s host, s name, s source,
//                z clock_offset_ns, s clock_offset_reason)
//   devices    : strings, v n, n × (v index, v process, z ordinal, s name, s pci_bus_id, s uuid,
//                v sm_count, v compute_major, v compute_minor, v memory_bytes, z topology_gpu)
//   links      : strings, v n, n × (v index, v src_device+1, v dst_device+1 (0: none), u8 direction,
//                u8 medium, z port, f64 capacity_bytes_per_s)
//   tracks     : strings, v n, n × (v index, u8 kind, v process, z device, u8 id_is_text,
//                z id | s id_text, s name, z parent, u8 flags (1: simulated), u8 counter_source,
//                s unit). Ids ≥ 2^62 are 2^62 + a StringId (string pids/tids, counter series)
//                and are stored as text. Link tracks' id is a file link index.
//   slices     : strings, v track, v first_row, v n, launch configs (v m, m × 9 v), arg shapes
//                (v h, h × (v count, count × (s key, u8 type))), arg sets (v k, k × (v shape, one
//                value per field of the shape)), u8 has_args, then columns:
//                start (z first, z deltas), dur (v), name (s), kind (u8: SliceKind | 0x10 when
//                the slice has no detail record), args (v set+1, only when has_args), then one
//                detail record per slice with one, in order (correlations are z deltas from the
//                previous correlation in the chunk):
//                  kernel  v config+1, z corr, v graph_id, v graph_node_id
//                  memcpy  v bytes, z corr, v src_device+1, v dst_device+1, u8 copy_kind,
//                          u8 mechanism, u8 src_memory, u8 dst_memory
//                  memset  v bytes, z corr, v value, u8 memory
//                  sync    z corr, v event_id+1, z stream, u8 kind
//                  nvtx    s domain, s category, v color_argb, v payload, u8 payload_type
//                  cpu_op  z external_id delta, v flops, v sequence+1
//                  api     z corr, v cbid, z result
//                  sm_span v block, v tag, v launch_id, ref kernel, u8 warp, u8 role
//                Arg values by type: int and uint z deltas from the same field of the
//                previous set of the same shape, double f64, bool u8, string/json s.
//   counters   : strings, v track, v n, time (z first, z deltas), value (f64 × n)
//   flows      : strings, v n, n × (ref from, ref to, u8 kind)
//   collectives: strings, v n, n × (u8 op, u8 dtype_bytes, v channels, z rank, z group_size,
//                s dtype, s group, s group_ranks, s algorithm, s protocol, z sequence,
//                v in_elements, v out_elements, ref kernel, ref cpu_op, z peer)
//   topology   : the Topology struct field by field, strings inline, doubles exact (pstrace_codec.cpp)
//   warnings   : (v len, bytes) repeated to the end of the payload: Trace::warnings
//   notes      : the same layout: Trace::notes (how the trace was made). Not must-understand: a
//                reader older than it skips it (saying so in a warning) and loses only the notes.
//   probe_records: v device_ordinal (CUDA ordinal = CUPTI deviceId), z clock_offset_ns (added to
//                %globaltimer to reach the CUPTI clock of that device), v correlation (CUPTI id of
//                the kernel launch, 0: unknown), v launch_id, v name_len + kernel name, v overflow
//                (records the device buffer could not hold), v n, n × 32-byte ProbeRecord (raw,
//                trace/core/probe_record.h). Spans become SM-lane tracks, one per (device, smid).
//                One codec: trace/io/collector/probe_chunk.h (collector, parascope-bench and reader use it).
//   cupti_records: collector::encode() records back to back (trace/io/collector/collector_records.h);
//                devices are CUDA ordinals, streams CUPTI stream ids, times CUPTI ns.
//   nccl_records: collector::encode(NcclRecord) records back to back (trace/io/collector/nccl_records.h).
//                The three raw chunk types may come in any order and refer to each other (launch
//                correlations, contexts, marker data); readers decode them after the whole file
//                (trace/io/pstrace/collector_import.h).
//   standin_records: JSON lines of the stand-in process group (trace/io/collector/standin_records.h),
//                decoded with the other raw chunks (trace/io/pstrace/standin_import.h).
//   launch_configs: reserved; 1.0 writers keep launch configs inside each slices chunk.
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
  kTopology = 10,      // Topology (binary, exact)
  kProbeRecords = 11,  // raw ProbeRecord array + the kernel launch it belongs to
  kLinks = 12,         // Link records
  kWarnings = 13,      // loader/collector warnings and dropped-record counts
  kLaunchConfigs = 14, // reserved (configs travel inside slices chunks)
  kCuptiRecords = 15,  // collector: converted CUPTI activity (before the trace model)
  kNcclRecords = 16,   // collector: NCCL profiler plugin events
  kStandInRecords = 17,  // collector / record --world: the stand-in process group's JSON lines
  kNotes = 18,         // Trace::notes: collector run summaries, sampling setup (information, not problems)
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
