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
