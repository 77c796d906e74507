#include "bench/graph_floor.h"

#include "bench/row_runner.h"
#include "device/cuda_check.h"
#include "device/device_ptx.cuh"
#include "host/ll_protocol.h"

namespace parascope::bench {

namespace {

__global__ void floor_kernel(uint32_t* counter) {
  pdl_wait();
  pdl_launch_dependents();
  if (blockIdx.x == 0 && threadIdx.x == 0) *counter += 1;
}

}  // namespace

GraphFloorOp::GraphFloorOp(GpuContext& ctx, const SymBuffer& counters, FloorConfig cfg)
    : ctx_(ctx), counters_(counters), cfg_(cfg) {}

std::string GraphFloorOp::name() const {
  return "empty_" + std::to_string(cfg_.blocks) + "x" + std::to_string(cfg_.threads) + (cfg_.pdl ? "_pdl" : "");
}

std::vector<int> GraphFloorOp::devices() const {
  std::vector<int> d;
  for (int r = 0; r < ctx_.n(); ++r) d.push_back(r);
  return d;
}

void GraphFloorOp::enqueue() {
  for (int r = 0; r < ctx_.n(); ++r) {
    ctx_.set(r);
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(static_cast<unsigned>(cfg_.blocks));
    cfg.blockDim = dim3(static_cast<unsigned>(cfg_.threads));
    cfg.stream = ctx_.stream(r);
    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr.val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = cfg_.pdl ? &attr : nullptr;
    cfg.numAttrs = cfg_.pdl ? 1 : 0;
    PS_CUDA(cudaLaunchKernelEx(&cfg, floor_kernel, counters_.at<uint32_t>(r)));
    PS_LAUNCH();
  }
}

std::vector<FloorConfig> default_floor_configs() {
  const int ll64 = ll_blocks(64ull << 10);
  return {{1, 32, false}, {ll64, kLlThreads, false}, {1, 32, true}, {ll64, kLlThreads, true}};
}

ResultRow graph_floor_row(GpuContext& ctx, const SymBuffer& counters, const FloorConfig& cfg) {
  GraphFloorOp op(ctx, counters, cfg);
  ResultRow row;
  row.op = "graph_floor";
  row.variant = op.name();
  row.mechanism = "none";
  row.dtype = "-";
  row.bytes = 0;
  row.nranks = ctx.n();
  row.sms = cfg.blocks;
  row.threads = cfg.threads;
  // The check: one enqueue adds exactly 1 to every rank's counter (the kernel ran, once).
  const CustomCheckFn check = [&](uint64_t) {
    auto read = [&](int r) {
      uint32_t v = 0;
      ctx.set(r);
      PS_CUDA(cudaMemcpy(&v, counters.at(r), sizeof v, cudaMemcpyDeviceToHost));
      return v;
    };
    ctx.sync_all();
    std::vector<uint32_t> before;
    for (int r = 0; r < ctx.n(); ++r) before.push_back(read(r));
    op.enqueue();
    ctx.sync_all();
    CheckVerdict v;
    v.ok = true;
    for (int r = 0; r < ctx.n(); ++r)
      if (read(r) != before[static_cast<size_t>(r)] + 1) {
        v.ok = false;
        v.problem = "GPU " + std::to_string(r) + ": the launch counter did not grow by exactly 1";
      }
    return v;
  };
  measure_row(ctx, op, {}, plan_timing(1000.0), row, {}, check);
  return row;
}

void preload_floor_kernels() {
  cudaFuncAttributes a;
  PS_CUDA(cudaFuncGetAttributes(&a, floor_kernel));
}

}  // namespace parascope::bench
