// Topology <-> JSON, the format of resources/topologies/*.json. Bandwidths are written in GB/s
// (1e9 bytes/s) and latencies in ns so presets stay readable; `gpu_defaults` is merged into every
// GPU node so an 8-GPU preset does not repeat its GPU spec. Errors name the file and JSON path.
#pragma once

#include <string>

#include "trace/core/json.h"
#include "trace/core/topology.h"

namespace parascope {

inline constexpr int kTopologySchemaVersion = 1;

Topology topology_from_json(const JsonValue& doc, const std::string& file);
Topology load_topology_file(const std::string& path);
JsonValue topology_to_json(const Topology& topo);

}  // namespace parascope
