// CUDA error checking for the harness: every runtime call is checked and a failure names the
// call, file and line (exit code 0 proves nothing).
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define PS_CUDA_CHECK(call)                                                                        \
  do {                                                                                             \
    const cudaError_t ps_err_ = (call);                                                            \
    if (ps_err_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,                    \
                   cudaGetErrorString(ps_err_));                                                   \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)
