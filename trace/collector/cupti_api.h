// CuptiApi: the CUPTI entry points the collector calls, resolved at run time from the libcupti the
// process already has. The collector does not link libcupti: inside a PyTorch process, torch has
// already loaded its own copy (site-packages/nvidia/.../libcupti.so.13, pulled in by libtorch_cuda)
// and a second copy would fight it for the driver's tool interface. Order:
//   1. dlopen("libcupti.so.13", RTLD_NOLOAD): the copy already in the process (matched by soname);
//   2. $PARASCOPE_CUPTI_LIB;  3. "libcupti.so.13" through the usual search path;
//   4. the CUPTI the collector was built against (PARASCOPE_CUPTI_BUILD_PATH).
// A later dlopen of libcupti.so.13 by the program (torch imported after CUDA started) then finds
// ours by soname, so the process still holds one copy. A CUPTI of another major (libcupti.so.12)
// already in the process is refused with a message: its records have other layouts.
#pragma once

#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <string>

namespace parascope::collector {

// X(name, required)
#define PARASCOPE_CUPTI_FUNCTIONS(X)              \
  X(cuptiGetResultString, true)                   \
  X(cuptiGetVersion, true)                        \
  X(cuptiActivityRegisterCallbacks, true)         \
  X(cuptiActivityEnable, true)                    \
  X(cuptiActivityDisable, true)                   \
  X(cuptiActivityFlushAll, true)                  \
  X(cuptiActivityGetNextRecord, true)             \
  X(cuptiActivityGetNumDroppedRecords, true)      \
  X(cuptiActivitySetAttribute, false)             \
  X(cuptiGetTimestamp, true)                      \
  X(cuptiSubscribe, true)                         \
  X(cuptiSubscribe_v2, false)                     \
  X(cuptiUnsubscribe, true)                       \
  X(cuptiEnableCallback, true)                    \
  X(cuptiEnableDomain, true)                      \
  X(cuptiGetCallbackName, false)                  \
  X(cuptiGetGraphId, false)                       \
  X(cuptiGetGraphNodeId, false)                   \
  X(cuptiGetDeviceId, false)                      \
  X(cuptiGetStreamIdEx, false)                    \
  X(cuptiProfilerInitialize, false)               \
  X(cuptiProfilerDeviceSupported, false)          \
  X(cuptiDeviceGetChipName, false)                \
  X(cuptiProfilerHostInitialize, false)           \
  X(cuptiProfilerHostDeinitialize, false)         \
  X(cuptiProfilerHostGetBaseMetrics, false)       \
  X(cuptiProfilerHostConfigAddMetrics, false)     \
  X(cuptiProfilerHostGetConfigImageSize, false)   \
  X(cuptiProfilerHostGetConfigImage, false)       \
  X(cuptiProfilerHostGetNumOfPasses, false)       \
  X(cuptiProfilerHostEvaluateToGpuValues, false)  \
  X(cuptiPmSamplingGetCounterAvailability, false) \
  X(cuptiPmSamplingEnable, false)                 \
  X(cuptiPmSamplingDisable, false)                \
  X(cuptiPmSamplingSetConfig, false)              \
  X(cuptiPmSamplingGetCounterDataSize, false)     \
  X(cuptiPmSamplingCounterDataImageInitialize, false) \
  X(cuptiPmSamplingStart, false)                  \
  X(cuptiPmSamplingStop, false)                   \
  X(cuptiPmSamplingDecodeData, false)             \
  X(cuptiPmSamplingGetCounterDataInfo, false)     \
  X(cuptiPmSamplingCounterDataGetSampleInfo, false)

struct CuptiApi {
#define PARASCOPE_CUPTI_MEMBER(name, required) decltype(&::name) name = nullptr;
  PARASCOPE_CUPTI_FUNCTIONS(PARASCOPE_CUPTI_MEMBER)
#undef PARASCOPE_CUPTI_MEMBER
  // CUPTI's NVTX injection entry (NVTX_INJECTION64_PATH names this library; we forward to it)
  int (*InitializeInjectionNvtx2)(const void* get_export_table) = nullptr;

  void* handle = nullptr;
  std::string path;     // the file the functions came from
  std::string source;   // "already loaded by the process", "PARASCOPE_CUPTI_LIB", ...
  uint32_t runtime_version = 0;  // cuptiGetVersion()

  // "CUPTI_ERROR_...: description" for a result code.
  std::string error(CUptiResult r) const;
};

// Loads once per process; nullptr with *why set when no usable CUPTI was found.
const CuptiApi* load_cupti(std::string* why);

}  // namespace parascope::collector
