#include "trace/io/pstrace/pstrace_format.h"

#include <array>
#include <string>

namespace parascope {

std::string_view to_string(Codec c) { return c == Codec::kZstd ? "zstd" : "none"; }

namespace {
constexpr std::array<ChunkTypeInfo, 18> kRegistry = {{
    {ChunkType::kIndex, "index", false},
    {ChunkType::kMetadata, "metadata", false},
    {ChunkType::kProcesses, "processes", true},
    {ChunkType::kDevices, "devices", true},
    {ChunkType::kTracks, "tracks", true},
    {ChunkType::kSlices, "slices", true},
    {ChunkType::kCounters, "counters", true},
    {ChunkType::kFlows, "flows", false},
    {ChunkType::kCollectives, "collectives", false},
    {ChunkType::kTopology, "topology", false},
    {ChunkType::kProbeRecords, "probe_records", false},
    {ChunkType::kLinks, "links", true},
    {ChunkType::kWarnings, "warnings", false},
    {ChunkType::kLaunchConfigs, "launch_configs", true},
    {ChunkType::kCuptiRecords, "cupti_records", false},
    {ChunkType::kNcclRecords, "nccl_records", false},
    {ChunkType::kStandInRecords, "standin_records", false},
    {ChunkType::kNotes, "notes", false},
}};
}  // namespace

const ChunkTypeInfo* find_chunk_type(uint32_t type) {
  for (const auto& info : kRegistry)
    if (static_cast<uint32_t>(info.type) == (type & ~kChunkMustUnderstand)) return &info;
  return nullptr;
}

std::string_view chunk_type_name(uint32_t type) {
  if (const auto* info = find_chunk_type(type)) return info->name;
  thread_local std::string buf;
  buf = "unknown(" + std::to_string(type & ~kChunkMustUnderstand) + ")";
  return buf;
}

}  // namespace parascope
