#include "trace/collector/standin_capture.h"

#include <span>

#include "trace/io/pstrace/chunk_writer.h"

namespace parascope::collector {

void write_standin_capture(const std::string& path, const Metadata& metadata, const std::string& jsonl) {
  ChunkWriter::Options o;
  o.atomic = true;
  ChunkWriter w(path, o);
  const std::vector<uint8_t> meta = encode_metadata(metadata);
  w.append(ChunkType::kMetadata, meta);
  w.append(ChunkType::kStandInRecords, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(jsonl.data()), jsonl.size()));
  w.close();
}

}  // namespace parascope::collector
