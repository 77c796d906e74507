// ByteSource: a file read sequentially in blocks, transparently gunzipped when it is gzip (by
// magic, not by name). A ".gz" name on a file that is not gzip is an error naming the file.
// Streaming readers pull from it so a multi-gigabyte file is never held whole.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace parascope {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to n bytes; returns 0 at end of input. Throws InputError on read/decompress errors.
  virtual size_t read(char* dst, size_t n) = 0;
  // Bytes of the underlying file consumed so far, and its size (for progress).
  virtual uint64_t file_position() const = 0;
  virtual uint64_t file_size() const = 0;
  virtual bool compressed() const = 0;
  virtual const std::string& path() const = 0;
};

// Opens `path`; InputError when it is missing, a directory, empty-with-.gz, or a bad gzip.
std::unique_ptr<ByteSource> open_byte_source(const std::string& path);
// A source over memory (tests, fuzzing).
std::unique_ptr<ByteSource> memory_byte_source(std::string data, std::string name = "<memory>");

}  // namespace parascope
