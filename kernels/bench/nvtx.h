// NVTX ranges around every checked and timed region, so Nsight Systems and the CUPTI collector
// show which benchmark row a kernel belongs to. Header-only NVTX 3 (no library to link).
#pragma once

#include <nvtx3/nvToolsExt.h>

#include <string>

namespace parascope::bench {

class NvtxRange {
 public:
  explicit NvtxRange(const std::string& name) { nvtxRangePushA(name.c_str()); }
  ~NvtxRange() { nvtxRangePop(); }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

}  // namespace parascope::bench
