// Verifies and decompresses a .pstrace file's chunks on a second thread, in the order a reader
// will decode them, a few chunks ahead: the reader's thread then only decodes (checksums and zstd
// were about a tenth of a load, docs/benchmarks.md). The reader takes each payload in order with
// next(); a chunk that fails its checksum or decompression comes back as that chunk's InputError,
// in its place, so the reader reports it as it would have. The ChunkReader must not decompress on
// any other thread while a prefetcher runs over it (its zstd context is single-threaded). An optional
// parse hook also decodes chosen payloads into a ParsedChunk (the reader's own type, e.g. a slices
// chunk without the model: slice_chunk.h, parsed_chunks.h), handed out beside the payload. That work is shared: the
// prefetch thread parses the newest waiting chunk whenever it is `ahead` chunks ahead, and next()
// parses a chunk itself when the prefetch thread has not started it, so neither thread idles while
// the other has work. The parse objects are recycled, so their buffers are allocated once. An idle
// hook gives the prefetch thread other work for when it would wait (the reader's page prefaulter).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "trace/io/pstrace/chunk_reader.h"

namespace parascope {

// What a parse hook leaves; the reader downcasts to its own type.
struct ParsedChunk {
  virtual ~ParsedChunk() = default;
};

class ChunkPrefetcher {
 public:
  // wants: whether a chunk is parsed at all. parse: fills `parsed` (empty, or an object of an earlier
  // chunk to reuse) from the payload, on either thread; must not throw (a parse error belongs inside
  // `parsed`).
  struct Parse {
    std::function<bool(const ChunkInfo&)> wants;
    std::function<void(const ChunkInfo&, const std::vector<uint8_t>& payload, std::unique_ptr<ParsedChunk>& parsed)> parse;
    // Optional: a small piece of other work for the prefetch thread when it would wait (the window
    // is full and nothing is left to parse, or every chunk is done): returns false when it has none.
    // Called without the lock, again while it returns true and nothing else is to do; after a false
    // it is tried again at the next wake-up (the reader taking a chunk).
    std::function<bool()> idle;
  };
  // Starts decompressing `order` (pointers into reader.chunks()), at most `ahead` chunks ahead.
  ChunkPrefetcher(const ChunkReader& reader, std::vector<const ChunkInfo*> order, size_t ahead = 3, Parse parse = {});
  ~ChunkPrefetcher();
  ChunkPrefetcher(const ChunkPrefetcher&) = delete;
  ChunkPrefetcher& operator=(const ChunkPrefetcher&) = delete;

  // The next chunk's payload, swapped into `out` (whose old memory is reused for a later chunk).
  // Throws that chunk's InputError if it could not be read. Call once per chunk of `order`.
  void next(std::vector<uint8_t>& out);
  // The same, with the parse hook's result for that chunk swapped into `parsed` (empty when the hook
  // left nothing); the object `parsed` held is reused for a later chunk.
  void next(std::vector<uint8_t>& out, std::unique_ptr<ParsedChunk>& parsed);

 private:
  enum class ParseState : uint8_t { kNone, kWaiting, kParsing, kDone };
  struct Slot {
    const ChunkInfo* chunk = nullptr;
    std::vector<uint8_t> payload;
    std::unique_ptr<ParsedChunk> parsed;
    std::exception_ptr error;
    ParseState state = ParseState::kNone;
  };
  void run();
  // Parses slot `s` (claimed: state kParsing) outside the lock, then marks it done.
  void parse_slot(Slot& s);
  const ChunkReader& reader_;
  std::vector<const ChunkInfo*> order_;
  size_t ahead_;
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<Slot> ready_;                  // decompressed, in order (a deque: slots keep their address)
  Parse parse_;
  std::vector<std::vector<uint8_t>> spare_;  // buffers handed back by next()
  std::vector<std::unique_ptr<ParsedChunk>> spare_parsed_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace parascope
