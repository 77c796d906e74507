// ChunkReader: opens a .pstrace container, validates its header and lists every complete chunk
// (from the footer index, or by scanning when the file was cut short). Payloads are checked
// (CRC-32C) and decompressed on demand; a corrupt chunk is an InputError naming its offset, and
// what could not be read is described in warnings() rather than dropped silently.
#pragma once

#include <cstdint>
#include <span>
#include <memory>
#include <string>
#include <vector>

#include "trace/io/pstrace/pstrace_format.h"

namespace parascope {

struct ChunkInfo {
  ChunkHeader header;
  uint64_t offset = 0;  // of the chunk header in the file
};

class ChunkReader {
 public:
  explicit ChunkReader(const std::string& path);
  ~ChunkReader();
  ChunkReader(const ChunkReader&) = delete;
  ChunkReader& operator=(const ChunkReader&) = delete;

  const std::string& path() const { return path_; }
  uint16_t version_major() const { return major_; }
  uint16_t version_minor() const { return minor_; }
  bool had_index() const { return had_index_; }
  uint64_t file_size() const { return size_; }
  const std::vector<ChunkInfo>& chunks() const { return chunks_; }
  const std::vector<std::string>& warnings() const { return warnings_; }

  // The payload as stored (compressed, not verified); empty if the chunk lies outside the file.
  std::span<const uint8_t> stored(const ChunkInfo& c) const {
    return c.offset + kChunkHeaderBytes + c.header.length <= size_ ? std::span<const uint8_t>(data_ + c.offset + kChunkHeaderBytes, c.header.length)
                                                                  : std::span<const uint8_t>();
  }
  // Verified, decompressed payload. Throws InputError on CRC mismatch or bad compression. One
  // reader decompresses through one zstd context: not for several threads at once.
  std::vector<uint8_t> payload(const ChunkInfo& chunk) const;
  // The same into `out`, reusing its memory (a reader decoding chunk after chunk).
  void payload(const ChunkInfo& chunk, std::vector<uint8_t>& out) const;

 private:
  void scan();
  bool read_index();

  std::string path_;
  const uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
  bool mapped_ = false;
  std::vector<uint8_t> owned_;
  uint16_t major_ = 0, minor_ = 0;
  bool had_index_ = false;
  std::vector<ChunkInfo> chunks_;
  std::vector<std::string> warnings_;
  // One zstd context for every payload (ZSTD_decompress would make and free one per chunk).
  struct DctxFree {
    void operator()(void* d) const;
  };
  mutable std::unique_ptr<void, DctxFree> dctx_;
};

// True if the first bytes are the .pstrace magic.
bool looks_like_pstrace(const uint8_t* data, size_t size);

}  // namespace parascope
