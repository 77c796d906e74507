// Verifies and decompresses a .pstrace file's chunks on a second thread, in the order a reader
// will decode them, a few chunks ahead: the reader's thread then only decodes (checksums and zstd
// were about a tenth of a load, docs/benchmarks.md). The reader takes each payload in order with
// next(); a chunk that fails its checksum or decompression comes back as that chunk's InputError,
// in its place, so the reader reports it as it would have. The ChunkReader must not decompress on
// any other thread while a prefetcher runs over it (its zstd context is single-threaded).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "trace/io/chunk_reader.h"

namespace parascope {

class ChunkPrefetcher {
 public:
  // Starts decompressing `order` (pointers into reader.chunks()), at most `ahead` chunks ahead.
  ChunkPrefetcher(const ChunkReader& reader, std::vector<const ChunkInfo*> order, size_t ahead = 3);
  ~ChunkPrefetcher();
  ChunkPrefetcher(const ChunkPrefetcher&) = delete;
  ChunkPrefetcher& operator=(const ChunkPrefetcher&) = delete;

  // The next chunk's payload, swapped into `out` (whose old memory is reused for a later chunk).
  // Throws that chunk's InputError if it could not be read. Call once per chunk of `order`.
  void next(std::vector<uint8_t>& out);

 private:
  struct Slot {
    std::vector<uint8_t> payload;
    std::exception_ptr error;
  };
  void run();
  const ChunkReader& reader_;
  std::vector<const ChunkInfo*> order_;
  size_t ahead_;
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<Slot> ready_;                  // decompressed, in order
  std::vector<std::vector<uint8_t>> spare_;  // buffers handed back by next()
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace parascope
