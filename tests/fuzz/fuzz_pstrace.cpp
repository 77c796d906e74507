// libFuzzer target for the native reader: the .pstrace container (ChunkReader: header, index,
// scanning a cut file), every payload decoder of pstrace_reader.cpp and the collector's raw chunks
// through CollectorImport (CUPTI records, NCCL records, probe records). Each input is read twice:
// as it is (the checksums reject most mutations, which tests the container layer), and with every
// checksum recomputed (file header, each chunk the scan reaches), so mutated payloads reach the
// decoders. Seeds (tests/fuzz/corpus/pstrace) are real files rewritten with uncompressed chunks
// (scripts: tests/fuzz/make_pstrace_seeds.py). The only acceptable failure is an InputError; an
// accepted file must pass fuzz_trace_check.h.
//   cmake --preset fuzz && cmake --build build/fuzz --target fuzz_pstrace
//   build/fuzz/tests/fuzz/fuzz_pstrace -dict=tests/fuzz/pstrace.dict CORPUS_DIR tests/fuzz/corpus/pstrace
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_trace_check.h"
#include "trace/core/error.h"
#include "trace/io/pstrace/crc32c.h"
#include "trace/io/pstrace/pstrace_format.h"
#include "trace/io/pstrace/pstrace_reader.h"

namespace {

using namespace parascope;

char g_temp_file[512];

// A file name of the record layout, so the reader's name parsing runs too; one per process.
const std::string& temp_path() {
  static const std::string p = [] {
    const char* dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : (std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp");
    std::string path = std::string(dir) + "/fuzzhost-" + std::to_string(getpid()) + "-r3.pstrace";
    // removed at exit (a crash leaves it: the input is in the artifact anyway)
    std::snprintf(g_temp_file, sizeof g_temp_file, "%s", path.c_str());
    std::atexit([] { std::remove(g_temp_file); });
    return path;
  }();
  return p;
}

void write_file(const std::string& path, const uint8_t* data, size_t size) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) __builtin_trap();
  if (size && std::fwrite(data, 1, size, f) != size) __builtin_trap();
  std::fclose(f);
}

void read_once(const uint8_t* data, size_t size) {
  write_file(temp_path(), data, size);
  try {
    const Trace t = read_pstrace(temp_path());
    fuzz::check_trace(t);
  } catch (const InputError&) {
  }
}

// Recomputes the header checksum and the checksum of every chunk a scan reaches. False when
// nothing changed (then the second read would repeat the first).
bool repair_checksums(std::vector<uint8_t>& b) {
  if (b.size() < kFileHeaderBytes || std::memcmp(b.data(), kPstraceMagic, 8) != 0) return false;
  bool changed = false;
  auto put_crc = [&](size_t at, uint32_t crc) {
    if (std::memcmp(b.data() + at, &crc, 4) != 0) {
      std::memcpy(b.data() + at, &crc, 4);
      changed = true;
    }
  };
  put_crc(28, crc32c(b.data(), 28));
  size_t at = kFileHeaderBytes;
  while (b.size() - at >= kChunkHeaderBytes) {
    uint32_t codec;
    uint64_t length;
    std::memcpy(&codec, b.data() + at + 4, 4);
    std::memcpy(&length, b.data() + at + 8, 8);
    if (codec > 1 || length > b.size() - at - kChunkHeaderBytes) break;
    put_crc(at + 16, crc32c(b.data() + at + kChunkHeaderBytes, length));
    at += kChunkHeaderBytes + length;
  }
  return changed;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  read_once(data, size);
  std::vector<uint8_t> fixed(data, data + size);
  if (repair_checksums(fixed)) read_once(fixed.data(), fixed.size());
  return 0;
}
