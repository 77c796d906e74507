// AtomicFile: an export that appears at its destination only when it is complete. Bytes go to
// PATH.tmp-PID (optionally gzip-compressed on the way), buffered; commit() flushes, fsyncs and
// renames over PATH. Destroying an AtomicFile that was not committed removes the temporary, so
// a failed or interrupted export never leaves a half-written file under the user's name.
// Write errors (disk full, permission) throw std::runtime_error naming the file.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace parascope {

class AtomicFile {
 public:
  struct Options {
    bool gzip = false;
    int gzip_level = 6;
  };
  AtomicFile(std::string path, Options options);
  explicit AtomicFile(std::string path) : AtomicFile(std::move(path), Options{}) {}
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(std::string_view bytes);
  // Completes the file and renames it into place. Nothing may be written afterwards.
  void commit();
  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return temp_path_; }
  uint64_t bytes_in() const { return bytes_in_; }  // before compression

 private:
  void flush_buffer(bool finish);
  void write_fd(const char* p, size_t n);
  [[noreturn]] void fail(const std::string& what, int err) const;

  std::string path_;
  std::string temp_path_;
  Options options_;
  int fd_ = -1;
  bool committed_ = false;
  std::string buffer_;
  uint64_t bytes_in_ = 0;
  struct Deflate;
  std::unique_ptr<Deflate> deflate_;
};

// PATH.tmp-PID: where an atomic export of PATH is written before the rename (writers that cannot
// stream through AtomicFile, like SQLite, use the same naming).
std::string atomic_temp_path(const std::string& path);

}  // namespace parascope
