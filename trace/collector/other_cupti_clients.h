// Another CUPTI client in a traced process (torch.profiler's Kineto, a second tracer): the calls the
// CUPTI guard (cupti_guard.h) saw it make, what each means for its trace and for ours, and how to
// get both views. The collector writes each distinct call as a metadata entry as soon as it sees it
// (key other_cupti_client.<i>, tab-separated fields; metadata "cupti_guard" says whether the guard
// was in the process at all); summarize_capture reads them back, `record` prints them and writes
// them to manifest.json (docs/collector.md). CUDA-free.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trace/core/json.h"

namespace parascope::collector {

struct OtherCuptiCall {
  std::string function;     // cuptiSubscribe, cuptiSubscribe_v2, cuptiActivityRegisterCallbacks, cuptiActivityEnable
  std::string caller;       // the calling library's file
  int result = 0;           // the CUptiResult it got (0: CUPTI_SUCCESS)
  std::string result_name;  // CUPTI's name for it, e.g. "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED (39)"
  int argument = 0;         // cuptiActivityEnable: the activity kind
  uint64_t calls = 0;
  uint64_t first_unix_ns = 0;
};

inline constexpr const char* kOtherCuptiCallKey = "other_cupti_client.";  // + index
inline constexpr int kCuptiMultipleSubscribers = 39;  // CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED

std::string encode_other_cupti_call(const OtherCuptiCall& c);
// nullopt when the value is not one encode_other_cupti_call wrote (a damaged or foreign file).
std::optional<OtherCuptiCall> decode_other_cupti_call(const std::string& value);

// "torch.profiler (Kineto, in libtorch_cuda.so)" for PyTorch's libraries, else the library's name.
std::string other_cupti_client_name(const std::string& caller);
// What the call did, for which trace: one sentence.
std::string describe_other_cupti_call(const OtherCuptiCall& c);
// How to see the program's own (CPU-side) profile and the collector's GPU records together.
std::string both_views_advice();

JsonValue to_json_value(const OtherCuptiCall& c);

}  // namespace parascope::collector
