#include "trace/io/common/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace parascope {

namespace {
constexpr size_t kBufferBytes = 1 << 20;
}

struct AtomicFile::Deflate {
  z_stream z{};
  std::string out;
};

std::string atomic_temp_path(const std::string& path) { return path + ".tmp-" + std::to_string(::getpid()); }

AtomicFile::AtomicFile(std::string path, Options options)
    : path_(std::move(path)), temp_path_(atomic_temp_path(path_)), options_(options) {
  fd_ = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) fail("cannot create", errno);
  if (options_.gzip) {
    deflate_ = std::make_unique<Deflate>();
    if (deflateInit2(&deflate_->z, options_.gzip_level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
      ::close(fd_);
      ::unlink(temp_path_.c_str());
      throw std::runtime_error(path_ + ": zlib initialisation failed");
    }
    deflate_->out.resize(kBufferBytes);
  }
  buffer_.reserve(kBufferBytes);
}

AtomicFile::~AtomicFile() {
  if (deflate_) deflateEnd(&deflate_->z);
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(temp_path_.c_str());
}

void AtomicFile::fail(const std::string& what, int err) const {
  throw std::runtime_error(path_ + ": " + what + " (" + temp_path_ + "): " + std::strerror(err));
}

void AtomicFile::write_fd(const char* p, size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd_, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      fail("write failed", errno);
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
}

void AtomicFile::flush_buffer(bool finish) {
  if (!deflate_) {
    write_fd(buffer_.data(), buffer_.size());
    buffer_.clear();
    return;
  }
  z_stream& z = deflate_->z;
  z.next_in = reinterpret_cast<Bytef*>(buffer_.data());
  z.avail_in = static_cast<uInt>(buffer_.size());
  int rc;
  do {
    z.next_out = reinterpret_cast<Bytef*>(deflate_->out.data());
    z.avail_out = static_cast<uInt>(deflate_->out.size());
    rc = ::deflate(&z, finish ? Z_FINISH : Z_NO_FLUSH);
    if (rc == Z_STREAM_ERROR) throw std::runtime_error(path_ + ": gzip compression failed");
    write_fd(deflate_->out.data(), deflate_->out.size() - z.avail_out);
  } while (z.avail_out == 0 || (finish && rc != Z_STREAM_END));
  buffer_.clear();
}

void AtomicFile::write(std::string_view bytes) {
  if (committed_ || fd_ < 0) throw std::runtime_error(path_ + ": write after commit");
  bytes_in_ += bytes.size();
  if (buffer_.size() + bytes.size() > kBufferBytes) {
    flush_buffer(false);
    if (bytes.size() > kBufferBytes) {
      buffer_.assign(bytes);
      flush_buffer(false);
      return;
    }
  }
  buffer_.append(bytes);
}

void AtomicFile::commit() {
  if (committed_) return;
  flush_buffer(true);
  if (::fsync(fd_) != 0 && errno != EINVAL) fail("fsync failed", errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("close failed", errno);
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) fail("rename failed", errno);
  committed_ = true;
}

}  // namespace parascope
