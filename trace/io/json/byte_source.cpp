#include "trace/io/json/byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "trace/core/error.h"

namespace parascope {

namespace {

[[noreturn]] void fail(const std::string& path, int64_t offset, const std::string& problem) {
  InputLocation where;
  where.file = path;
  where.byte_offset = offset;
  throw InputError(where, problem);
}

class FileSource final : public ByteSource {
 public:
  FileSource(std::string path, int fd, uint64_t size) : path_(std::move(path)), fd_(fd), size_(size) {
#ifdef POSIX_FADV_SEQUENTIAL
    ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  }
  ~FileSource() override { ::close(fd_); }
  size_t read(char* dst, size_t n) override {
    while (true) {
      const ssize_t got = ::read(fd_, dst, n);
      if (got >= 0) {
        pos_ += static_cast<uint64_t>(got);
        return static_cast<size_t>(got);
      }
      if (errno != EINTR) fail(path_, static_cast<int64_t>(pos_), std::string("read error: ") + std::strerror(errno));
    }
  }
  uint64_t file_position() const override { return pos_; }
  uint64_t file_size() const override { return size_; }
  bool compressed() const override { return false; }
  const std::string& path() const override { return path_; }

 private:
  std::string path_;
  int fd_;
  uint64_t size_;
  uint64_t pos_ = 0;
};

// zlib inflate over the file, handling concatenated gzip members.
class GzipSource final : public ByteSource {
 public:
  GzipSource(std::string path, int fd, uint64_t size) : path_(std::move(path)), fd_(fd), size_(size), in_(1 << 20) {
    std::memset(&z_, 0, sizeof z_);
    if (inflateInit2(&z_, 15 + 32) != Z_OK) fail(path_, 0, "zlib initialisation failed");
  }
  ~GzipSource() override {
    inflateEnd(&z_);
    ::close(fd_);
  }
  size_t read(char* dst, size_t n) override {
    if (done_) return 0;
    z_.next_out = reinterpret_cast<Bytef*>(dst);
    z_.avail_out = static_cast<uInt>(std::min<size_t>(n, 1u << 30));
    while (z_.avail_out > 0) {
      if (z_.avail_in == 0) {
        const ssize_t got = ::read(fd_, in_.data(), in_.size());
        if (got < 0) {
          if (errno == EINTR) continue;
          fail(path_, static_cast<int64_t>(pos_), std::string("read error: ") + std::strerror(errno));
        }
        if (got == 0) {
          if (!member_done_)
            fail(path_, static_cast<int64_t>(pos_), "gzip stream is truncated (file ends inside compressed data)");
          done_ = true;
          break;
        }
        pos_ += static_cast<uint64_t>(got);
        z_.next_in = reinterpret_cast<Bytef*>(in_.data());
        z_.avail_in = static_cast<uInt>(got);
      }
      if (member_done_) {  // another gzip member follows
        inflateReset(&z_);
        member_done_ = false;
      }
      const int rc = inflate(&z_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        member_done_ = true;
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        fail(path_, static_cast<int64_t>(pos_ - z_.avail_in),
             std::string("corrupt gzip data: ") + (z_.msg ? z_.msg : "inflate error"));
      }
    }
    return n - z_.avail_out;
  }
  uint64_t file_position() const override { return pos_ - z_.avail_in; }
  uint64_t file_size() const override { return size_; }
  bool compressed() const override { return true; }
  const std::string& path() const override { return path_; }

 private:
  std::string path_;
  int fd_;
  uint64_t size_;
  uint64_t pos_ = 0;
  std::vector<char> in_;
  z_stream z_;
  bool member_done_ = false;
  bool done_ = false;
};

class MemorySource final : public ByteSource {
 public:
  MemorySource(std::string data, std::string name) : data_(std::move(data)), name_(std::move(name)) {}
  size_t read(char* dst, size_t n) override {
    const size_t k = std::min(n, data_.size() - pos_);
    std::memcpy(dst, data_.data() + pos_, k);
    pos_ += k;
    return k;
  }
  uint64_t file_position() const override { return pos_; }
  uint64_t file_size() const override { return data_.size(); }
  bool compressed() const override { return false; }
  const std::string& path() const override { return name_; }

 private:
  std::string data_;
  std::string name_;
  size_t pos_ = 0;
};

bool ends_with(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

}  // namespace

std::unique_ptr<ByteSource> open_byte_source(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(path, -1, std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    fail(path, -1, std::string("cannot stat: ") + std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    fail(path, -1, "is a directory, expected a file");
  }
  unsigned char magic[2] = {0, 0};
  const ssize_t got = ::pread(fd, magic, 2, 0);
  const bool gzip = got == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  if (ends_with(path, ".gz") && !gzip) {
    ::close(fd);
    fail(path, 0, st.st_size == 0 ? "empty file (expected gzip data)" : "not a gzip file (no gzip magic bytes 1f 8b)");
  }
  if (gzip) return std::make_unique<GzipSource>(path, fd, static_cast<uint64_t>(st.st_size));
  return std::make_unique<FileSource>(path, fd, static_cast<uint64_t>(st.st_size));
}

std::unique_ptr<ByteSource> memory_byte_source(std::string data, std::string name) {
  return std::make_unique<MemorySource>(std::move(data), std::move(name));
}

}  // namespace parascope
