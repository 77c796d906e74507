// The machine a trace ran on, or a machine the simulator models: nodes (GPUs, switches, NICs, host
// bridges) and links with per-direction bandwidth and latency. Plain data in trace core, so traces
// carry it and the simulator reads it; the simulator builds its sealed platform from it.
// Units: bytes/s for bandwidth, nanoseconds for latency. `calibration` says whether the numbers
// were measured on the machine or taken from datasheets, and every preset states which.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace parascope {

enum class Calibration : uint8_t { kDatasheet, kMeasured };
std::string_view to_string(Calibration c);

enum class NodeKind : uint8_t { kGpu, kNvSwitch, kPcieSwitch, kHostBridge, kNic, kNetworkSwitch };
std::string_view to_string(NodeKind k);

enum class Medium : uint8_t { kNvLink, kPcie, kInfiniBand, kEthernet, kHostLink, kInternal };
std::string_view to_string(Medium m);

// Copy-engine model: a transfer of b bytes takes setup_ns + b / rate (fitted on measured curves).
struct CopyEngineModel {
  uint32_t count = 0;               // copy engines usable for peer traffic
  double setup_ns = 0;              // fixed cost per copy (launch + DMA setup)
  double rate_bytes_per_s = 0;      // asymptotic per-copy rate
};

// SM-driven transfer models (per SM, saturating at the link): rate(k SMs) = min(k * per_sm, cap).
struct SmTransferModel {
  double per_sm_bytes_per_s = 0;
  double cap_bytes_per_s = 0;       // 0: only the link limits it
  double setup_ns = 0;              // per message (issue + completion signal)
  uint32_t per_sm_threads = 1024;   // block size per_sm was measured with; fewer threads move less
};

struct GpuSpec {
  std::string model;                 // "NVIDIA H200"
  uint32_t sm_count = 0;
  double hbm_bytes_per_s = 0;
  double bf16_flops = 0;             // dense matrix peak, FLOP/s
  double fp32_flops = 0;
  uint64_t memory_bytes = 0;
  CopyEngineModel copy_engine;
  SmTransferModel tma;               // cp.async.bulk to peer memory
  SmTransferModel ldst;              // 16-byte vector stores/loads to peer memory
  SmTransferModel multimem;          // multimem.st / ld_reduce through an NVSwitch
  double comm_interference = 0;      // fractional slow-down of compute while communication runs
  // Bytes/s all SMs together can copy with loads + stores (0: not modelled). SM-driven transfers
  // charge it by their primitive's memory operations (a reduce-and-forward costs more than a copy).
  double sm_copy_bytes_per_s = 0;
  double kernel_latency_ns = 0;      // a communication kernel's fixed cost before its first transfer
};

struct SwitchSpec {
  bool multicast = false;            // NVLS multicast objects
  bool in_switch_reduction = false;  // NVLS reductions (multimem.ld_reduce)
  double crossbar_bytes_per_s = 0;   // 0: non-blocking
};

struct TopoNode {
  std::string name;                  // unique: "gpu0", "nvswitch0", "node1/nic3"
  NodeKind kind = NodeKind::kGpu;
  int32_t host = 0;                  // machine (node) the element sits in
  int32_t gpu_index = -1;            // for GPUs: 0..N-1 across the whole topology
  std::optional<GpuSpec> gpu;        // set iff kind == kGpu
  std::optional<SwitchSpec> sw;      // set for switches
  double nic_bytes_per_s = 0;        // for NICs: line rate per direction
};

// A duplex link between two nodes; each direction has `bandwidth_bytes_per_s`.
struct TopoLink {
  uint32_t a = 0, b = 0;             // node indexes
  Medium medium = Medium::kNvLink;
  uint32_t lanes = 1;                // e.g. 18 NVLinks bonded; bandwidth is the total
  double bandwidth_bytes_per_s = 0;  // per direction, all lanes together
  double latency_ns = 0;             // per hop
  std::string name;                  // optional label
};

struct Topology {
  std::string name;
  std::string description;
  Calibration calibration = Calibration::kDatasheet;
  std::string calibration_source;    // where the numbers come from (file, date, command)
  std::vector<TopoNode> nodes;
  std::vector<TopoLink> links;

  size_t gpu_count() const;
  // Node index of the GPU with gpu_index i, or -1.
  int32_t gpu_node(int32_t gpu_index) const;
  int32_t find_node(std::string_view name) const;
  // Structural checks (indexes in range, names unique, GPUs numbered 0..N-1, positive bandwidth);
  // returns the problems, empty when valid.
  std::vector<std::string> validate() const;
};

}  // namespace parascope
