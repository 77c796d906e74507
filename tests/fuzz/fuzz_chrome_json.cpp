// libFuzzer target for the Chrome/Kineto JSON reader: the streaming parser and the importer behind
// it (flows, async tracks, B/E, metadata, Kineto GPU events), then TraceBuilder::finish. Every input
// runs three ways: strict with 4 KiB blocks (the default 4 MiB block only costs time here), strict
// with 64-byte blocks (events straddle every refill), and --lenient. The only acceptable failure is
// an InputError.
//   cmake --preset fuzz && cmake --build build/fuzz --target fuzz_chrome_json
//   build/fuzz/tests/fuzz/fuzz_chrome_json -dict=tests/fuzz/chrome_json.dict CORPUS_DIR tests/fuzz/corpus/chrome_json
#include <cstddef>
#include <cstdint>
#include <string>

#include "trace/core/error.h"
#include "trace/core/trace_builder.h"
#include "trace/io/json/kineto_importer.h"

namespace {

void run(const std::string& text, size_t block, bool lenient) {
  auto src = parascope::memory_byte_source(text, "fuzz.json");
  parascope::TraceBuilder builder;
  parascope::ImportOptions o;
  o.block_bytes = block;
  o.lenient = lenient;
  try {
    parascope::import_chrome_json(*src, builder, o);
    const parascope::Trace t = builder.finish();
    // the model's invariant: every track sorted by start, refs inside their tracks
    for (const auto& tr : t.tracks)
      for (size_t i = 1; i < tr.slices.size(); ++i)
        if (tr.slices.start[i - 1] > tr.slices.start[i]) __builtin_trap();
    for (const auto& f : t.flows)
      if (f.from.track >= t.tracks.size() || f.from.index >= t.tracks[f.from.track].slices.size() ||
          f.to.track >= t.tracks.size() || f.to.index >= t.tracks[f.to.track].slices.size())
        __builtin_trap();
  } catch (const parascope::InputError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  run(text, 4096, false);
  run(text, 64, false);
  run(text, 4096, true);
  return 0;
}
