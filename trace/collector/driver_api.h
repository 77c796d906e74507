// DriverApi: the few CUDA driver entry points the collector calls itself (device identity for the
// trace, the clock-sync kernel, PM sampling's context), resolved from the libcuda the process has
// already loaded (the collector never loads the driver nor links it). Versioned names follow
// cuda.h's macros (cuDeviceTotalMem → cuDeviceTotalMem_v2).
#pragma once

#include <cuda.h>

#include <string>

namespace parascope::collector {

#define PARASCOPE_DRIVER_FUNCTIONS(X) \
  X(cuGetErrorString)                 \
  X(cuDriverGetVersion)               \
  X(cuDeviceGet)                      \
  X(cuDeviceGetCount)                 \
  X(cuDeviceGetName)                  \
  X(cuDeviceGetPCIBusId)              \
  X(cuDeviceGetUuid)                  \
  X(cuDeviceGetAttribute)             \
  X(cuDeviceTotalMem)                 \
  X(cuCtxGetCurrent)                  \
  X(cuCtxSetCurrent)                  \
  X(cuCtxGetDevice)                   \
  X(cuModuleLoadData)                 \
  X(cuModuleGetFunction)              \
  X(cuModuleUnload)                   \
  X(cuLaunchKernel)                   \
  X(cuStreamCreate)                   \
  X(cuStreamDestroy)                  \
  X(cuStreamSynchronize)              \
  X(cuMemHostAlloc)                   \
  X(cuMemFreeHost)                    \
  X(cuMemHostGetDevicePointer)        \
  X(cuMemAlloc)                       \
  X(cuMemFree)                        \
  X(cuMemcpyDtoH)

struct DriverApi {
#define PARASCOPE_DRIVER_MEMBER(name) decltype(&::name) name = nullptr;
  PARASCOPE_DRIVER_FUNCTIONS(PARASCOPE_DRIVER_MEMBER)
#undef PARASCOPE_DRIVER_MEMBER
  std::string error(CUresult r) const;  // "CUDA_ERROR_…: description"
};

// nullptr if libcuda.so.1 is not loaded in this process or lacks a function.
const DriverApi* load_driver(std::string* why);

}  // namespace parascope::collector
