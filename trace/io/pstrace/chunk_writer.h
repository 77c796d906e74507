// ChunkWriter: the one writer of .pstrace containers. Every producer (collector, probe, simulator,
// bench, converter) appends typed chunks through it. Chunks are complete on disk once append()
// returns and flush() has run, so a process killed later loses nothing before that point;
// close() adds the index and trailer. With `atomic`, output goes to a temporary file renamed over
// the destination only by close(), so a failed export never leaves a half-written file (destroyed
// without close(), an atomic writer removes its temporary). A failed append (disk full, file size
// limit) cuts its partial chunk off again: the file stays a run of complete chunks.
#pragma once

#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "trace/io/pstrace/pstrace_format.h"

namespace parascope {

class ChunkWriter {
 public:
  struct Options {
    int zstd_level = 3;
    bool atomic = false;         // write PATH.tmp-PID, rename to PATH on close()
    bool sync_on_flush = false;  // fdatasync in flush() (capture safety at a cost)
  };

  ChunkWriter(const std::string& path, Options options);
  explicit ChunkWriter(const std::string& path) : ChunkWriter(path, Options{}) {}
  ~ChunkWriter();  // closes if still open (atomic: discards); errors are swallowed, call close() to see them
  ChunkWriter(const ChunkWriter&) = delete;
  ChunkWriter& operator=(const ChunkWriter&) = delete;

  // Appends one chunk; returns its file offset. kZstd falls back to kNone when compression does
  // not pay or would exceed the reader's expansion bound. Throws std::runtime_error naming the
  // file on write errors (disk full, file size limit).
  uint64_t append(ChunkType type, std::span<const uint8_t> payload, Codec codec = Codec::kZstd);
  void flush();
  void close();
  bool is_open() const { return fd_ >= 0; }
  const std::string& path() const { return path_; }
  uint64_t bytes_written() const { return offset_; }
  size_t chunk_count() const { return index_.size(); }

 private:
  void write_all(const void* data, size_t size);
  [[noreturn]] void fail(const std::string& what, int err) const;

  std::string path_;
  std::string write_path_;
  Options options_;
  int fd_ = -1;
  uint64_t offset_ = 0;
  struct IndexEntry {
    uint64_t offset;
    uint32_t type;
    uint64_t length;
  };
  std::vector<IndexEntry> index_;
  std::mutex mutex_;
};

}  // namespace parascope
