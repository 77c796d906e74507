// libFuzzer target for the `record` directory's manifest.json (trace/io/collector/record_manifest.h) and the
// directory loader behind it (load_trace on a directory: listed, missing, unlisted and other runs'
// files, exit status and end-reason warnings, identities handed to the native reader). Each input
// is a manifest: parsed with record_manifest_from_json (a manifest Parascope writes back with
// record_manifest_to_json must read again), then written as DIR/manifest.json beside four small
// real collector files (tests/data/collector, resources/samples) and loaded as a directory. The
// only acceptable failure is an InputError; a loaded trace must pass fuzz_trace_check.h.
//   cmake --preset fuzz && cmake --build build/fuzz --target fuzz_record_manifest
//   build/fuzz/tests/fuzz/fuzz_record_manifest -dict=tests/fuzz/record_manifest.dict CORPUS_DIR tests/fuzz/corpus/record_manifest
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "fuzz_trace_check.h"
#include "trace/core/error.h"
#include "trace/core/json.h"
#include "trace/io/collector/record_manifest.h"
#include "trace/io/load_trace.h"

namespace {

using namespace parascope;
namespace fs = std::filesystem;

fs::path g_dir;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : (std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp");
  g_dir = fs::path(base) / ("fuzz_record_" + std::to_string(getpid()));
  fs::create_directories(g_dir);
  const fs::path src(PARASCOPE_SOURCE_DIR);
  for (const char* f : {"tests/data/collector/graph_rec/vm-3397-rnone.pstrace", "tests/data/collector/peer_rec/vm-3377-rnone.pstrace",
                        "tests/data/collector/torch_rec/vm-2016-rnone.pstrace",
                        "resources/samples/record_torch_nccl_2xh200/vm-3445-rnone.pstrace"})
    fs::copy_file(src / f, g_dir / fs::path(f).filename(), fs::copy_options::overwrite_existing);
  std::atexit([] {
    std::error_code ec;
    fs::remove_all(g_dir, ec);
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const RecordManifest m = record_manifest_from_json(parse_json(text, "manifest.json"), "manifest.json");
    try {
      (void)record_manifest_from_json(parse_json(to_json(record_manifest_to_json(m)), "written.json"), "written.json");
    } catch (const InputError&) {
      __builtin_trap();  // what Parascope writes, it reads
    }
  } catch (const InputError&) {
  }
  const fs::path manifest = g_dir / kRecordManifestName;
  FILE* f = std::fopen(manifest.c_str(), "wb");
  if (!f) __builtin_trap();
  std::fwrite(text.data(), 1, text.size(), f);
  std::fclose(f);
  try {
    fuzz::check_trace(load_trace({g_dir.string()}));
  } catch (const InputError&) {
  }
  return 0;
}
