// libFuzzer target for topology JSON (trace/core/topology_json.h, resources/topologies/*.json) and
// what consumes a topology: parse_json → topology_from_json → topology_to_json, whose text must
// read back (a topology Parascope wrote is one it can read); then Platform::seal, the routes
// between the first eight GPUs, and a 1 MiB ring all-reduce over up to eight GPUs through
// run_simulation. Acceptable failures: InputError (bad JSON or topology), std::invalid_argument
// (Topology::validate, no route), KnobError (a workload the platform cannot run).
//   cmake --preset fuzz && cmake --build build/fuzz --target fuzz_topology_json
//   build/fuzz/tests/fuzz/fuzz_topology_json -dict=tests/fuzz/topology_json.dict CORPUS_DIR tests/fuzz/corpus/topology_json
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "sim/knobs.h"
#include "sim/platform.h"
#include "sim/simulation.h"
#include "sim/workload_spec.h"
#include "trace/core/error.h"
#include "trace/core/json.h"
#include "trace/core/topology_json.h"

using namespace parascope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Topology topo;
  try {
    topo = topology_from_json(parse_json(text, "fuzz.json"), "fuzz.json");
  } catch (const InputError&) {
    return 0;
  }
  // what Parascope writes, it reads
  const std::string written = to_json(topology_to_json(topo), 2);
  try {
    (void)topology_from_json(parse_json(written, "written.json"), "written.json");
  } catch (const InputError&) {
    __builtin_trap();
  }
  try {
    const sim::Platform p = sim::Platform::seal(topo);
    const int32_t n = static_cast<int32_t>(std::min<size_t>(p.gpu_count(), 8));
    for (int32_t a = 0; a < n; ++a)
      for (int32_t b = 0; b < n; ++b)
        if (a != b) (void)p.route(a, b);
    if (n >= 2) {
      sim::SimulationInput in;
      in.topology = topo;
      in.steps = sim::parse_workload_spec("allreduce:algo=ring,bytes=1MiB,gpus=" + std::to_string(n));
      (void)sim::run_simulation(in);
    }
  } catch (const std::invalid_argument&) {
  } catch (const sim::KnobError&) {
  }
  return 0;
}
