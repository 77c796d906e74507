#include "trace/io/pstrace/chunk_writer.h"

#include <fcntl.h>
#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "trace/io/common/byte_io.h"
#include "trace/io/pstrace/crc32c.h"

namespace parascope {

ChunkWriter::ChunkWriter(const std::string& path, Options options) : path_(path), options_(options) {
  write_path_ = options_.atomic ? path + ".tmp-" + std::to_string(::getpid()) : path;
  fd_ = ::open(write_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) fail("cannot create", errno);
  ByteWriter h;
  h.raw(kPstraceMagic, 8);
  h.u16(kPstraceMajor);
  h.u16(kPstraceMinor);
  h.u32(0);  // flags
  h.u64(static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count()));
  h.u32(0);  // reserved
  h.u32(crc32c(h.bytes().data(), h.size()));
  write_all(h.bytes().data(), h.size());
}

ChunkWriter::~ChunkWriter() {
  if (options_.atomic && fd_ >= 0) {
    // an atomic export that was not closed failed or was abandoned: it never reaches its name
    ::close(fd_);
    fd_ = -1;
    ::unlink(write_path_.c_str());
    return;
  }
  try {
    close();
  } catch (...) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
}

void ChunkWriter::fail(const std::string& what, int err) const {
  throw std::runtime_error(path_ + ": " + what + ": " + std::strerror(err));
}

void ChunkWriter::write_all(const void* data, size_t size) {
  const auto* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd_, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write failed at byte " + std::to_string(offset_), errno);
    }
    p += n;
    size -= static_cast<size_t>(n);
    offset_ += static_cast<uint64_t>(n);
  }
}

uint64_t ChunkWriter::append(ChunkType type, std::span<const uint8_t> payload, Codec codec) {
  std::lock_guard lock(mutex_);
  if (fd_ < 0) throw std::runtime_error(path_ + ": append after close");
  if (payload.size() > kMaxChunkBytes) throw std::length_error(path_ + ": chunk larger than 2 GiB");
  std::vector<uint8_t> packed;
  std::span<const uint8_t> stored = payload;
  if (codec == Codec::kZstd && payload.size() >= 256) {
    packed.resize(ZSTD_compressBound(payload.size()));
    const size_t n = ZSTD_compress(packed.data(), packed.size(), payload.data(), payload.size(), options_.zstd_level);
    // keep it only if it pays and a reader will accept the expansion ratio
    if (!ZSTD_isError(n) && n < payload.size() && payload.size() <= n * kMaxExpansion) {
      packed.resize(n);
      stored = packed;
    } else {
      codec = Codec::kNone;
    }
  } else {
    codec = Codec::kNone;
  }
  const uint64_t at = offset_;
  ByteWriter h;
  h.u32(static_cast<uint32_t>(type));
  h.u32(static_cast<uint32_t>(codec));
  h.u64(stored.size());
  h.u32(crc32c(stored.data(), stored.size()));
  // one write for header + payload keeps a torn chunk rare; readers handle it anyway
  h.raw(stored.data(), stored.size());
  try {
    write_all(h.bytes().data(), h.size());
  } catch (...) {
    // disk full, file size limit: cut the partial chunk off again, so the file stays a run of
    // complete chunks and a later append (space freed) or the index still lands on a boundary
    if (::ftruncate(fd_, static_cast<off_t>(at)) == 0) offset_ = at;
    throw;
  }
  index_.push_back({at, static_cast<uint32_t>(type), stored.size()});
  return at;
}

void ChunkWriter::flush() {
  std::lock_guard lock(mutex_);
  if (fd_ >= 0 && options_.sync_on_flush && ::fdatasync(fd_) != 0) fail("fdatasync failed", errno);
}

void ChunkWriter::close() {
  std::unique_lock lock(mutex_);
  if (fd_ < 0) return;
  ByteWriter idx;
  idx.varint(index_.size());
  for (const auto& e : index_) {
    idx.u64(e.offset);
    idx.u32(e.type);
    idx.u64(e.length);
  }
  lock.unlock();
  const uint64_t index_at = append(ChunkType::kIndex, idx.bytes(), Codec::kNone);
  lock.lock();
  ByteWriter t;
  t.u64(index_at);
  t.raw(kPstraceEndMagic, 8);
  write_all(t.bytes().data(), t.size());
  if (options_.sync_on_flush || options_.atomic) ::fdatasync(fd_);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("close failed", errno);
  if (options_.atomic && std::rename(write_path_.c_str(), path_.c_str()) != 0) fail("rename failed", errno);
}

}  // namespace parascope
