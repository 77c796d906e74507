#include "gemm/gemm.h"

#include <string>

#include "device/cuda_check.h"

namespace parascope::bench {

GemmRunner::GemmRunner(int device) : device_(device) {
  PS_CUDA(cudaSetDevice(device));
  PS_CUBLAS(cublasLtCreate(&handle_));
  PS_CUDA(cudaMalloc(&workspace_, workspace_bytes_));
}

GemmRunner::~GemmRunner() {
  cudaSetDevice(device_);
  for (auto& [k, p] : plans_) {
    cublasLtMatrixLayoutDestroy(p.a);
    cublasLtMatrixLayoutDestroy(p.b);
    cublasLtMatrixLayoutDestroy(p.c);
    cublasLtMatmulDescDestroy(p.desc);
  }
  cudaFree(workspace_);
  cublasLtDestroy(handle_);
}

// Row-major D[rows, n] = A[rows, k] · W[n, k]ᵀ is, in cuBLAS's column-major terms,
// D'(n × rows, ld ldd) = op(W')(n × k) · A'(k × rows) with W' = W viewed as k × n (ld k), op = T,
// and A' = A viewed as k × rows (ld k): the "TN" layout cuBLAS prefers.
GemmRunner::Plan& GemmRunner::plan(const Key& key) {
  if (auto it = plans_.find(key); it != plans_.end()) return it->second;
  const auto [rows, n, k, ldd, accumulate, sm_target] = key;
  Plan p;
  PS_CUBLAS(cublasLtMatmulDescCreate(&p.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  PS_CUBLAS(cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
  PS_CUBLAS(cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
  if (sm_target > 0) {
    const int32_t t = sm_target;
    PS_CUBLAS(cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET, &t, sizeof t));
  }
  PS_CUBLAS(cublasLtMatrixLayoutCreate(&p.a, CUDA_R_16BF, k, n, k));
  PS_CUBLAS(cublasLtMatrixLayoutCreate(&p.b, CUDA_R_16BF, k, rows, k));
  PS_CUBLAS(cublasLtMatrixLayoutCreate(&p.c, CUDA_R_16BF, n, rows, ldd));
  cublasLtMatmulPreference_t pref;
  PS_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
  PS_CUBLAS(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes_,
                                                 sizeof workspace_bytes_));
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  const cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(handle_, p.desc, p.a, p.b, p.c, p.c, pref, 1, &result, &found);
  cublasLtMatmulPreferenceDestroy(pref);
  if (st != CUBLAS_STATUS_SUCCESS || found == 0)
    throw CudaError("cuBLASLt found no algorithm for " + std::to_string(rows) + "x" + std::to_string(n) + "x" +
                    std::to_string(k) + (accumulate ? " (+C)" : ""));
  p.algo = result.algo;
  return plans_.emplace(key, p).first->second;
}

void GemmRunner::prepare(int rows, int n, int k, int ldd, bool accumulate, int sm_target) {
  PS_CUDA(cudaSetDevice(device_));
  plan({rows, n, k, ldd, accumulate, sm_target});
}

void GemmRunner::run(cudaStream_t s, const void* a, const void* w, void* d, const void* c, int rows, int n, int k,
                     int ldd, bool accumulate, int sm_target) {
  Plan& p = plan({rows, n, k, ldd, accumulate, sm_target});
  const float alpha = 1.0f, beta = accumulate ? 1.0f : 0.0f;
  PS_CUBLAS(cublasLtMatmul(handle_, p.desc, &alpha, w, p.a, a, p.b, &beta, accumulate ? c : d, p.c, d, p.c, &p.algo,
                           workspace_, workspace_bytes_, s));
}

}  // namespace parascope::bench
