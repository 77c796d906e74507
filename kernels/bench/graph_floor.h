// The floor under every small-message number: one kernel node per op in the same graph harness,
// doing nothing but counting its launches (block 0, thread 0 adds 1 to a device counter), with a
// chosen grid and optionally programmatic dependent launch. Its per-op time is what a graph of
// dependent kernels costs per node on this machine before any communication.
#pragma once

#include <string>
#include <vector>

#include "device/gpu_context.h"
#include "device/op.h"
#include "host/result_table.h"

namespace parascope::bench {

struct FloorConfig {
  int blocks = 1;
  int threads = 32;
  bool pdl = false;
};

class GraphFloorOp : public Op {
 public:
  GraphFloorOp(GpuContext& ctx, const SymBuffer& counters, FloorConfig cfg);
  std::string name() const override;  // "empty_16x256_pdl"
  std::vector<int> devices() const override;
  void enqueue() override;
  const FloorConfig& config() const { return cfg_; }

 private:
  GpuContext& ctx_;
  SymBuffer counters_;
  FloorConfig cfg_;
};

// Checked (every rank's counter grew by exactly one per enqueue) and timed row: op "graph_floor".
// counters: a symmetric buffer of at least 4 bytes per rank.
ResultRow graph_floor_row(GpuContext& ctx, const SymBuffer& counters, const FloorConfig& cfg);
// The rows `collectives --floor` measures: 1 x 32 and the LL all-reduce's 64 KiB grid (16 x 256),
// each without and with PDL.
std::vector<FloorConfig> default_floor_configs();

void preload_floor_kernels();

}  // namespace parascope::bench
