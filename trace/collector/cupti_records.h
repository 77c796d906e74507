// The CUPTI activity record versions this collector reads, aliased in one place: when a CUDA
// release bumps a struct (CUpti_ActivityKernel10 → 11), only this header changes, and the
// static_asserts below fail loudly if a renamed struct changes the fields we read.
// Included only by the collector (it pulls in CUPTI headers). Built against CUPTI 13.0.
#pragma once

#include <cupti.h>

#include <cstddef>

namespace parascope::collector {

using KernelRecord = CUpti_ActivityKernel10;          // CONCURRENT_KERNEL
using MemcpyRecord = CUpti_ActivityMemcpy6;           // MEMCPY
using MemcpyPtoPRecord = CUpti_ActivityMemcpyPtoP4;   // MEMCPY2
using MemsetRecord = CUpti_ActivityMemset4;           // MEMSET
using SyncRecord = CUpti_ActivitySynchronization2;    // SYNCHRONIZATION
using MarkerRecord = CUpti_ActivityMarker2;           // MARKER
using MarkerDataRecord = CUpti_ActivityMarkerData2;   // MARKER_DATA
using DeviceRecord = CUpti_ActivityDevice5;           // DEVICE
using ContextRecord = CUpti_ActivityContext3;         // CONTEXT
using StreamRecord = CUpti_ActivityStream;            // STREAM
using ApiRecord = CUpti_ActivityAPI;                  // RUNTIME, DRIVER, INTERNAL_LAUNCH_API
using OverheadRecord = CUpti_ActivityOverhead3;       // OVERHEAD
using GraphTraceRecord = CUpti_ActivityGraphTrace2;   // GRAPH_TRACE
using NvLinkRecord = CUpti_ActivityNvLink4;           // NVLINK
using ExternalCorrelationRecord = CUpti_ActivityExternalCorrelation;  // EXTERNAL_CORRELATION

// The collector was written against these layouts (CUPTI 13.0.1); a header that moves them must
// be read again before the aliases above are bumped.
static_assert(offsetof(KernelRecord, start) == 16 && offsetof(KernelRecord, correlationId) == 92,
              "CUpti_ActivityKernel10 layout changed");
static_assert(offsetof(MemcpyPtoPRecord, srcDeviceId) == 44 && offsetof(MemcpyPtoPRecord, dstDeviceId) == 52,
              "CUpti_ActivityMemcpyPtoP4 layout changed");
static_assert(sizeof(CUuuid) == 16);

}  // namespace parascope::collector
