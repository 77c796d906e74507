// The GEMM of the fused kernels: cuBLASLt, bf16 in and out, fp32 accumulation, row-major
// D[rows, n] (leading dimension ldd) = A[rows, k] · W[n, k]ᵀ (+ C, same layout, when beta = 1);
// W is stored like a PyTorch Linear weight ([out, in]). An SM-count target
// (CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET) leaves SMs to a concurrent communication kernel; it is
// a heuristic input, so the harness times the GEMM alone at each target to show what it cost.
// Algorithms are chosen by prepare() (never inside a stream capture) and cached per shape.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <map>
#include <tuple>

namespace parascope::bench {

class GemmRunner {
 public:
  explicit GemmRunner(int device);
  ~GemmRunner();
  GemmRunner(const GemmRunner&) = delete;
  GemmRunner& operator=(const GemmRunner&) = delete;

  void prepare(int rows, int n, int k, int ldd, bool accumulate, int sm_target);
  // d and c may live on another GPU (peer memory): the epilogue then writes over NVLink.
  void run(cudaStream_t s, const void* a, const void* w, void* d, const void* c, int rows, int n, int k, int ldd,
           bool accumulate, int sm_target);

 private:
  using Key = std::tuple<int, int, int, int, bool, int>;
  struct Plan {
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
    cublasLtMatmulAlgo_t algo{};
  };
  Plan& plan(const Key& key);
  int device_;
  cublasLtHandle_t handle_ = nullptr;
  void* workspace_ = nullptr;
  size_t workspace_bytes_ = 64ull << 20;
  std::map<Key, Plan> plans_;
};

}  // namespace parascope::bench
