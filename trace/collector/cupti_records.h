// The CUPTI activity record versions this collector reads, aliased in one place: when a CUDA
// release bumps a struct (CUpti_ActivityKernel10 → 11), only this header changes.
// Included only by the collector (it pulls in CUPTI headers).
#pragma once

#include <cupti.h>

namespace parascope::collector {

using KernelRecord = CUpti_ActivityKernel10;
using MemcpyRecord = CUpti_ActivityMemcpy6;
using MemcpyPtoPRecord = CUpti_ActivityMemcpyPtoP4;
using MemsetRecord = CUpti_ActivityMemset4;

}  // namespace parascope::collector
