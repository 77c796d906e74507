// Error checking for the harness: every CUDA, NCCL and cuBLAS call is checked and a failure names
// the call, file and line (exit code 0 proves nothing). PS_CUDA_CHECK exits (for the `devices`
// listing); PS_CUDA / PS_NCCL / PS_CUBLAS throw CudaError so a benchmark row can fail alone and
// the run continue, and PS_LAUNCH checks the last error after every kernel launch.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace parascope::bench {

class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] inline void throw_cuda(const char* what, const char* file, int line, const std::string& msg) {
  throw CudaError(std::string(file) + ":" + std::to_string(line) + ": " + what + " failed: " + msg);
}

}  // namespace parascope::bench

#define PS_CUDA_CHECK(call)                                                                        \
  do {                                                                                             \
    const cudaError_t ps_err_ = (call);                                                            \
    if (ps_err_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,                    \
                   cudaGetErrorString(ps_err_));                                                   \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

#define PS_CUDA(call)                                                                               \
  do {                                                                                              \
    const cudaError_t ps_err_ = (call);                                                             \
    if (ps_err_ != cudaSuccess)                                                                     \
      ::parascope::bench::throw_cuda(#call, __FILE__, __LINE__, cudaGetErrorString(ps_err_));       \
  } while (0)

#define PS_LAUNCH() PS_CUDA(cudaGetLastError())

#define PS_NCCL(call)                                                                               \
  do {                                                                                              \
    const ncclResult_t ps_r_ = (call);                                                              \
    if (ps_r_ != ncclSuccess)                                                                       \
      ::parascope::bench::throw_cuda(#call, __FILE__, __LINE__, ncclGetErrorString(ps_r_));         \
  } while (0)

#define PS_CUBLAS(call)                                                                             \
  do {                                                                                              \
    const cublasStatus_t ps_s_ = (call);                                                            \
    if (ps_s_ != CUBLAS_STATUS_SUCCESS)                                                             \
      ::parascope::bench::throw_cuda(#call, __FILE__, __LINE__,                                     \
                                     "cuBLAS status " + std::to_string(static_cast<int>(ps_s_)));   \
  } while (0)
