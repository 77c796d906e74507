// NCCL 2.28's own low-latency paths as baselines: buffers from ncclMemAlloc registered as
// symmetric windows (ncclCommWindowRegister, NCCL_WIN_COLL_SYMMETRIC) on every rank, so that
//   nccl_symm  the ordinary host calls (ncclAllReduce ...) run NCCL's symmetric-memory kernels;
//   nccl_dev   an all-reduce written on the device API (nccl_device.h): one kernel per rank reads
//              its 1/N slice from every rank through LSA pointers, sums in rank order in fp32 and
//              stores the result to every rank, with LSA barriers before and after (the pattern
//              NCCL documents for device-initiated collectives). No multicast is requested.
// Setup is collective, so each rank's calls run on a thread of their own. When NCCL refuses
// (no nccl_device.h at build time, an old driver, no symmetric support), `problem` says why and
// the variants report "skipped: ..." instead of failing the run.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>

#include "device/gpu_context.h"
#include "device/sync.cuh"
#include "host/test_data.h"

namespace parascope::bench {

inline constexpr int kNcclDevThreads = 512;
inline constexpr int kNcclDevMaxBlocks = 132;  // LSA barriers requested: one per block

class NcclSymmetric {
 public:
  // Allocates `bytes` of input and output per rank and registers both (does not throw: see problem()).
  NcclSymmetric(GpuContext& ctx, uint64_t bytes);
  ~NcclSymmetric();
  NcclSymmetric(const NcclSymmetric&) = delete;
  NcclSymmetric& operator=(const NcclSymmetric&) = delete;

  const std::string& problem() const { return problem_; }                // empty: windows usable
  const std::string& device_problem() const { return device_problem_; }  // empty: nccl_dev can run
  SymBuffer in() const { return in_; }
  SymBuffer out() const { return out_; }
  // Enqueues rank r's device-API all-reduce of `bytes` (a multiple of 16·N) on stream s.
  void launch_all_reduce(int r, DType t, uint64_t bytes, cudaStream_t s) const;
  static int blocks(uint64_t bytes, int nranks);  // grid of launch_all_reduce

 private:
  struct State;
  GpuContext& ctx_;
  std::unique_ptr<State> st_;
  SymBuffer in_, out_;
  std::string problem_, device_problem_;
};

}  // namespace parascope::bench
