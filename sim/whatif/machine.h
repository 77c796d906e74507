// The machine a what-if runs on: the given topology, or one built around its GPUs when the knobs
// ask for another fabric (fabric=nvswitch|pcie|cluster) or more GPUs than it has (scale_gpus).
// The GPU spec (SMs, measured transfer-mechanism models, interference) is kept from the given
// topology, so a calibrated GPU stays calibrated on a new fabric; the new links use datasheet
// numbers and the result says so (calibration = datasheet, description names the source).
#pragma once

#include <string>

#include "trace/core/topology.h"

namespace parascope::whatif {

enum class Fabric : uint8_t { kTrace, kNvSwitch, kPcie, kCluster };
Fabric fabric_from_knob(std::string_view value);

// Datasheet numbers for built fabrics (per direction).
inline constexpr double kPcieGen5BytesPerS = 63e9;       // x16
inline constexpr double kPcieLatencyNs = 1'000;
inline constexpr double kNdrBytesPerS = 50e9;            // 400 Gb/s InfiniBand NIC
inline constexpr double kNetworkLatencyNs = 1'500;

// `gpus`: how many GPUs are needed (0: as many as `base` has). Throws std::invalid_argument when
// the base has no GPU or the cluster's GPUs do not divide into gpus_per_node.
Topology machine_for(const Topology& base, int gpus, Fabric fabric, int gpus_per_node);

// The per-direction NVLink bandwidth of a GPU's links to its switch (0 when it has none).
double gpu_nvlink_bandwidth(const Topology& t, int32_t gpu);

}  // namespace parascope::whatif
