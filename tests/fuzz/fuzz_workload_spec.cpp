// libFuzzer target for the workload grammar (sim/workload_spec.h): an input starting with '{' is a
// workload JSON file (load_workload_file), anything else a `--workload` SPEC (parse_workload_spec).
// Parsed steps are built into a Workload on two real presets (resources/topologies/h200x2.json and
// hgx_h200x8.json) and, when the programs post at most 20 000 messages, simulated to the end.
// Acceptable failures: KnobError (bad SPEC, knob values, or a workload the platform cannot run),
// InputError (bad JSON file, with its path), std::invalid_argument (no route, workload does not
// fit the platform).
//   cmake --preset fuzz && cmake --build build/fuzz --target fuzz_workload_spec
//   build/fuzz/tests/fuzz/fuzz_workload_spec -dict=tests/fuzz/workload_spec.dict CORPUS_DIR tests/fuzz/corpus/workload_spec
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/collectives.h"
#include "sim/knobs.h"
#include "sim/platform.h"
#include "sim/simulator.h"
#include "sim/workload_spec.h"
#include "trace/core/error.h"
#include "trace/core/topology_json.h"

namespace {

using namespace parascope;

std::vector<std::unique_ptr<sim::Platform>> g_platforms;
constexpr uint64_t kMaxSimulatedMessages = 20000;

char g_temp_file[512];

const std::string& temp_path() {
  static const std::string p = [] {
    const char* dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : (std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp");
    std::string path = std::string(dir) + "/fuzz_workload_" + std::to_string(getpid()) + ".json";
    // removed at exit (a crash leaves it: the input is in the artifact anyway)
    std::snprintf(g_temp_file, sizeof g_temp_file, "%s", path.c_str());
    std::atexit([] { std::remove(g_temp_file); });
    return path;
  }();
  return p;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  for (const char* name : {"h200x2", "hgx_h200x8"}) {
    const std::string path = std::string(PARASCOPE_SOURCE_DIR) + "/resources/topologies/" + name + ".json";
    g_platforms.push_back(std::make_unique<sim::Platform>(sim::Platform::seal(load_topology_file(path))));
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<sim::WorkloadStep> steps;
  try {
    if (!text.empty() && text[0] == '{') {
      FILE* f = std::fopen(temp_path().c_str(), "wb");
      if (!f) __builtin_trap();
      std::fwrite(text.data(), 1, text.size(), f);
      std::fclose(f);
      steps = sim::load_workload_file(temp_path());
    } else {
      steps = sim::parse_workload_spec(text);
    }
  } catch (const sim::KnobError&) {
    return 0;
  } catch (const InputError&) {
    return 0;
  }
  for (const auto& p : g_platforms) {
    try {
      const sim::Workload w = sim::build_workload(*p, steps);
      if (w.messages() > kMaxSimulatedMessages) continue;
      sim::Simulator s(*p, w);
      (void)s.run();
    } catch (const sim::KnobError&) {
    } catch (const std::invalid_argument&) {
    }
  }
  return 0;
}
