#include "trace/io/pstrace/chunk_reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>

#include "trace/core/error.h"
#include "trace/io/common/byte_io.h"
#include "trace/io/pstrace/crc32c.h"

namespace parascope {

bool looks_like_pstrace(const uint8_t* data, size_t size) {
  return size >= 8 && std::memcmp(data, kPstraceMagic, 8) == 0;
}

namespace {
[[noreturn]] void fail_at(const std::string& file, int64_t offset, const std::string& problem) {
  InputLocation where;
  where.file = file;
  where.byte_offset = offset;
  throw InputError(where, problem);
}
}  // namespace

ChunkReader::ChunkReader(const std::string& path) : path_(path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail_at(path, -1, std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    fail_at(path, -1, S_ISDIR(st.st_mode) ? "is a directory, expected a .pstrace file" : "not a regular file");
  }
  size_ = static_cast<uint64_t>(st.st_size);
  if (size_ > 0) {
    void* m = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m != MAP_FAILED) {
      data_ = static_cast<const uint8_t*>(m);
      mapped_ = true;
    } else {
      owned_.resize(size_);
      size_t got = 0;
      while (got < size_) {
        const ssize_t n = ::pread(fd, owned_.data() + got, size_ - got, static_cast<off_t>(got));
        if (n <= 0) break;
        got += static_cast<size_t>(n);
      }
      owned_.resize(got);
      size_ = got;
      data_ = owned_.data();
    }
  }
  ::close(fd);

  if (size_ < kFileHeaderBytes) fail_at(path, 0, size_ == 0 ? "empty file" : "too short for a .pstrace header");
  if (!looks_like_pstrace(data_, size_)) fail_at(path, 0, "not a .pstrace file (bad magic)");
  ByteReader h(data_, kFileHeaderBytes, path, 0);
  h.raw(8);
  major_ = h.u16();
  minor_ = h.u16();
  h.u32();
  h.u64();
  h.u32();
  const uint32_t crc = h.u32();
  if (crc != crc32c(data_, 28)) fail_at(path, 28, "file header checksum mismatch");
  if (major_ > kPstraceMajor)
    fail_at(path, 8, "format version " + std::to_string(major_) + "." + std::to_string(minor_) +
                         " is newer than this build reads (" + std::to_string(kPstraceMajor) +
                         ".x); update Parascope");
  if (!read_index()) scan();
}

void ChunkReader::DctxFree::operator()(void* d) const { ZSTD_freeDCtx(static_cast<ZSTD_DCtx*>(d)); }

ChunkReader::~ChunkReader() {
  if (mapped_) ::munmap(const_cast<uint8_t*>(data_), size_);
}

bool ChunkReader::read_index() {
  if (size_ < kFileHeaderBytes + kChunkHeaderBytes + kTrailerBytes) return false;
  const uint8_t* t = data_ + size_ - kTrailerBytes;
  if (std::memcmp(t + 8, kPstraceEndMagic, 8) != 0) return false;
  uint64_t at;
  std::memcpy(&at, t, 8);
  // the trailer has no checksum: compare without sums, which could wrap around 2^64
  if (at < kFileHeaderBytes || at > size_ - kTrailerBytes || size_ - kTrailerBytes - at < kChunkHeaderBytes) return false;
  ByteReader hr(data_ + at, kChunkHeaderBytes, path_, static_cast<int64_t>(at));
  const uint32_t type = hr.u32();
  const uint32_t codec = hr.u32();
  const uint64_t length = hr.u64();
  const uint32_t crc = hr.u32();
  if (type != static_cast<uint32_t>(ChunkType::kIndex) || codec != 0 ||
      length > size_ - kTrailerBytes - at - kChunkHeaderBytes)
    return false;
  const uint8_t* p = data_ + at + kChunkHeaderBytes;
  if (crc32c(p, length) != crc) {
    warnings_.push_back("index chunk checksum mismatch at byte " + std::to_string(at) + "; scanned the file instead");
    return false;
  }
  ByteReader r(p, length, path_, static_cast<int64_t>(at + kChunkHeaderBytes));
  const uint64_t n = r.count(20, "index entry");
  std::vector<ChunkInfo> chunks;
  chunks.reserve(n);
  for (uint64_t i = 0; i < n; ++i) {
    ChunkInfo c;
    c.offset = r.u64();
    c.header.type = r.u32();
    const uint64_t len = r.u64();
    // no sums of file values: offset + header + length could wrap around 2^64 and pass
    if (c.offset < kFileHeaderBytes || c.offset > at || at - c.offset < kChunkHeaderBytes ||
        len > at - c.offset - kChunkHeaderBytes)
      return false;
    ByteReader ch(data_ + c.offset, kChunkHeaderBytes, path_, static_cast<int64_t>(c.offset));
    if (ch.u32() != c.header.type) return false;
    c.header.codec = static_cast<Codec>(ch.u32());
    c.header.length = ch.u64();
    c.header.crc32c = ch.u32();
    if (c.header.length != len) return false;
    if (c.header.type != static_cast<uint32_t>(ChunkType::kIndex)) chunks.push_back(c);
  }
  chunks_ = std::move(chunks);
  had_index_ = true;
  return true;
}

void ChunkReader::scan() {
  uint64_t at = kFileHeaderBytes;
  size_t k = 0;
  while (at < size_) {
    if (size_ - at < kChunkHeaderBytes) {
      // a trailer alone (16 bytes) can follow the last chunk
      if (!(size_ - at == kTrailerBytes && std::memcmp(data_ + at + 8, kPstraceEndMagic, 8) == 0))
        warnings_.push_back("file ends inside a chunk header at byte " + std::to_string(at) + " (" +
                            std::to_string(size_ - at) + " bytes dropped)");
      return;
    }
    ByteReader hr(data_ + at, kChunkHeaderBytes, path_, static_cast<int64_t>(at));
    ChunkInfo c;
    c.offset = at;
    c.header.type = hr.u32();
    const uint32_t codec = hr.u32();
    c.header.length = hr.u64();
    c.header.crc32c = hr.u32();
    c.header.codec = static_cast<Codec>(codec);
    if (codec > 1 || c.header.length > kMaxChunkBytes) {
      warnings_.push_back("corrupt chunk header at byte " + std::to_string(at) + " (codec " + std::to_string(codec) +
                          ", length " + std::to_string(c.header.length) + "); the remaining " +
                          std::to_string(size_ - at) + " bytes were not read");
      return;
    }
    const uint64_t end = at + kChunkHeaderBytes + c.header.length;
    if (end > size_) {
      warnings_.push_back("file is truncated: chunk #" + std::to_string(k) + " (" +
                          std::string(chunk_type_name(c.header.type)) + ") at byte " + std::to_string(at) +
                          " needs " + std::to_string(c.header.length) + " payload bytes, " +
                          std::to_string(size_ - at - kChunkHeaderBytes) + " present; it was dropped");
      return;
    }
    if (c.header.type != static_cast<uint32_t>(ChunkType::kIndex)) chunks_.push_back(c);
    at = end;
    ++k;
  }
}

std::vector<uint8_t> ChunkReader::payload(const ChunkInfo& c) const {
  std::vector<uint8_t> out;
  payload(c, out);
  return out;
}

void ChunkReader::payload(const ChunkInfo& c, std::vector<uint8_t>& out) const {
  if (c.offset > size_ || size_ - c.offset < kChunkHeaderBytes || c.header.length > size_ - c.offset - kChunkHeaderBytes)
    fail_at(path_, static_cast<int64_t>(c.offset), "chunk extends past end of file");
  const uint64_t body = c.offset + kChunkHeaderBytes;
  const uint8_t* p = data_ + body;
  if (crc32c(p, c.header.length) != c.header.crc32c)
    fail_at(path_, static_cast<int64_t>(c.offset),
            "checksum mismatch in " + std::string(chunk_type_name(c.header.type)) + " chunk");
  if (c.header.codec == Codec::kNone) return out.assign(p, p + c.header.length);
  if (c.header.codec != Codec::kZstd)
    fail_at(path_, static_cast<int64_t>(c.offset), "unknown codec " + std::to_string(static_cast<uint32_t>(c.header.codec)));
  const unsigned long long n = ZSTD_getFrameContentSize(p, c.header.length);
  if (n == ZSTD_CONTENTSIZE_ERROR || n == ZSTD_CONTENTSIZE_UNKNOWN)
    fail_at(path_, static_cast<int64_t>(body), "bad zstd frame in " + std::string(chunk_type_name(c.header.type)) + " chunk");
  if (n > kMaxChunkBytes || n > c.header.length * kMaxExpansion)
    fail_at(path_, static_cast<int64_t>(body), "zstd frame claims " + std::to_string(n) +
                                                    " bytes, more than the chunk size allows");
  out.resize(n);
  if (!dctx_) dctx_.reset(ZSTD_createDCtx());
  const size_t got = dctx_ ? ZSTD_decompressDCtx(static_cast<ZSTD_DCtx*>(dctx_.get()), out.data(), out.size(), p, c.header.length)
                           : ZSTD_decompress(out.data(), out.size(), p, c.header.length);
  if (ZSTD_isError(got) || got != n)
    fail_at(path_, static_cast<int64_t>(body), std::string("zstd decompression failed: ") +
                                                    (ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short output"));
}

}  // namespace parascope
