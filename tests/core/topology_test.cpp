#include <catch2/catch.hpp>

#include "test_paths.h"
#include "trace/core/topology_json.h"

using namespace parascope;

namespace {
const char* kTwoGpus = R"({
  "schema_version": 1, "name": "two", "calibration": "measured",
  "gpu_defaults": {"model": "NVIDIA H200", "sm_count": 132, "hbm_GBps": 4800,
                   "ldst": {"per_sm_GBps": 38, "cap_GBps": 369}},
  "nodes": [
    {"name": "gpu0", "kind": "gpu", "gpu_index": 0},
    {"name": "gpu1", "kind": "gpu", "gpu_index": 1, "gpu": {"sm_count": 114}},
    {"name": "nvswitch0", "kind": "nvswitch", "switch": {"multicast": true}}
  ],
  "links": [
    {"a": "gpu0", "b": "nvswitch0", "medium": "nvlink", "lanes": 18, "bandwidth_GBps": 478.1, "latency_ns": 500},
    {"a": "gpu1", "b": "nvswitch0", "medium": "nvlink", "lanes": 18, "bandwidth_GBps": 478.1, "latency_ns": 500}
  ]})";
}

TEST_CASE("Topology JSON: defaults merge into GPU nodes and round-trip", "[core][topology]") {
  const Topology t = topology_from_json(parse_json(kTwoGpus, "two.json"), "two.json");
  REQUIRE(t.calibration == Calibration::kMeasured);
  REQUIRE(t.gpu_count() == 2);
  REQUIRE(t.nodes[0].gpu->sm_count == 132);
  REQUIRE(t.nodes[1].gpu->sm_count == 114);            // node overrides the default
  REQUIRE(t.nodes[1].gpu->ldst.per_sm_bytes_per_s == 38e9);  // other defaults kept
  REQUIRE(t.links[0].bandwidth_bytes_per_s == Approx(478.1e9));
  REQUIRE(t.nodes[2].sw->multicast);
  REQUIRE(t.gpu_node(1) == 1);
  const Topology back = topology_from_json(topology_to_json(t), "again.json");
  REQUIRE(back.nodes.size() == 3);
  REQUIRE(back.links[1].latency_ns == 500);
  REQUIRE(back.nodes[1].gpu->sm_count == 114);
}

TEST_CASE("Topology JSON: a bad field is rejected with its JSON path", "[core][topology]") {
  std::string bad = kTwoGpus;
  bad.replace(bad.find("\"medium\": \"nvlink\""), 18, "\"medium\": \"carrier-pigeon\"");
  try {
    topology_from_json(parse_json(bad, "bad.json"), "bad.json");
    FAIL("expected an error");
  } catch (const InputError& e) {
    REQUIRE(e.where().field == "$.links[0].medium");
    REQUIRE_THAT(e.problem(), Catch::StartsWith("unknown value \"carrier-pigeon\"; expected one of: nvlink"));
  }
  std::string dangling = kTwoGpus;
  dangling.replace(dangling.find("\"b\": \"nvswitch0\""), 16, "\"b\": \"nvswitch9\"");
  REQUIRE_THROWS_WITH(topology_from_json(parse_json(dangling, "d.json"), "d.json"),
                      Catch::Contains("$.links[0].b") && Catch::Contains("no node named \"nvswitch9\""));
  std::string gap = kTwoGpus;
  gap.replace(gap.find("\"gpu_index\": 1"), 14, "\"gpu_index\": 3");
  REQUIRE_THROWS_WITH(topology_from_json(parse_json(gap, "g.json"), "g.json"), Catch::Contains("without gaps"));
}

TEST_CASE("Topology JSON: simulator fields round-trip and bad ones name their path", "[core][topology]") {
  std::string doc = kTwoGpus;
  doc.replace(doc.find("\"ldst\": {\"per_sm_GBps\": 38, \"cap_GBps\": 369}"), 44,
              "\"ldst\": {\"per_sm_GBps\": 38, \"cap_GBps\": 369, \"per_sm_threads\": 1024, \"setup_ns\": 900},"
              " \"sm_copy_GBps\": 690, \"kernel_latency_ns\": 12000, \"comm_interference\": 0.1,"
              " \"copy_engine\": {\"count\": 2, \"setup_ns\": 4200, \"rate_GBps\": 398}");
  const Topology t = topology_from_json(parse_json(doc, "sim.json"), "sim.json");
  const GpuSpec& g = *t.nodes[0].gpu;
  REQUIRE(g.ldst.per_sm_threads == 1024);
  REQUIRE(g.ldst.setup_ns == 900);
  REQUIRE(g.sm_copy_bytes_per_s == Approx(690e9));
  REQUIRE(g.kernel_latency_ns == 12000);
  REQUIRE(g.copy_engine.rate_bytes_per_s == Approx(398e9));
  const Topology back = topology_from_json(topology_to_json(t), "again.json");
  REQUIRE(back.nodes[1].gpu->sm_copy_bytes_per_s == Approx(690e9));
  REQUIRE(back.nodes[1].gpu->kernel_latency_ns == 12000);
  REQUIRE(back.nodes[1].gpu->ldst.per_sm_threads == 1024);

  auto fails_at = [&](const std::string& from, const std::string& to, const std::string& path) {
    std::string bad = doc;
    bad.replace(bad.find(from), from.size(), to);
    try {
      topology_from_json(parse_json(bad, "bad.json"), "bad.json");
      FAIL("expected an error for " + to);
    } catch (const InputError& e) {
      REQUIRE(e.where().field == path);
    }
  };
  fails_at("\"per_sm_threads\": 1024", "\"per_sm_threads\": 2048", "$.gpu_defaults.ldst.per_sm_threads");
  fails_at("\"sm_copy_GBps\": 690", "\"sm_copy_GBps\": -1", "$.gpu_defaults.sm_copy_GBps");
  fails_at("\"kernel_latency_ns\": 12000", "\"kernel_latency_ns\": \"soon\"", "$.gpu_defaults.kernel_latency_ns");
  fails_at("\"comm_interference\": 0.1", "\"comm_interference\": -0.5", "$.gpu_defaults.comm_interference");
  fails_at("\"rate_GBps\": 398", "\"rate_GBps\": -398", "$.gpu_defaults.copy_engine.rate_GBps");
  // Found by fuzz_topology_json in CI: a negative memory_GiB was cast to uint64 (UBSan
  // float-cast-overflow). Every number is now bounded where it is read, so no absurd value reaches
  // an integer conversion here or in the simulator's int64-picosecond clock.
  fails_at("\"sm_copy_GBps\": 690", "\"sm_copy_GBps\": 690, \"memory_GiB\": -80", "$.gpu_defaults.memory_GiB");
  fails_at("\"sm_copy_GBps\": 690", "\"sm_copy_GBps\": 690, \"memory_GiB\": 1e300", "$.gpu_defaults.memory_GiB");
  fails_at("\"kernel_latency_ns\": 12000", "\"kernel_latency_ns\": 1e300", "$.gpu_defaults.kernel_latency_ns");
  fails_at("\"setup_ns\": 4200", "\"setup_ns\": 1e12", "$.gpu_defaults.copy_engine.setup_ns");
  fails_at("\"count\": 2", "\"count\": -2", "$.gpu_defaults.copy_engine.count");
  fails_at("\"per_sm_GBps\": 38", "\"per_sm_GBps\": 1e200", "$.gpu_defaults.ldst.per_sm_GBps");
}

TEST_CASE("Topology JSON: the backend's host cost per call round-trips; a bad one names its path", "[core][topology]") {
  std::string doc = kTwoGpus;
  const size_t last = doc.rfind('}');
  doc.insert(last, ", \"host\": {\"collective_call_ns\": 13500, \"source\": \"backend_call_cost.py\"}");
  const Topology t = topology_from_json(parse_json(doc, "host.json"), "host.json");
  REQUIRE(t.host);
  CHECK(t.host->collective_call_ns == 13500);
  CHECK(t.host->source == "backend_call_cost.py");
  const Topology back = topology_from_json(topology_to_json(t), "again.json");
  REQUIRE(back.host);
  CHECK(back.host->collective_call_ns == 13500);
  CHECK(back.host->source == "backend_call_cost.py");
  CHECK_FALSE(topology_from_json(parse_json(kTwoGpus, "plain.json"), "plain.json").host);
  std::string bad = doc;
  bad.replace(bad.find("13500"), 5, "-5");
  try {
    topology_from_json(parse_json(bad, "bad.json"), "bad.json");
    FAIL("expected an error for a negative collective_call_ns");
  } catch (const InputError& e) {
    CHECK(e.where().field == "$.host.collective_call_ns");
  }
}
