// Names of CUDA activity that readers of CUPTI-shaped sources (the collector's records, Nsight
// Systems' CUPTI_ACTIVITY_KIND_* tables) give their slices, so one copy reads "Memcpy PtoP
// (Device -> Device)" whichever file it came from. Each reader maps its own enum numbering to
// MemoryKind first; these functions only spell the result.
#pragma once

#include <string>
#include <string_view>

#include "trace/core/events.h"

namespace parascope {

std::string_view memory_label(MemoryKind k);  // "Pageable", "Pinned", "Device", ..., "Unknown"

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel" (the name users and Kineto know).
std::string_view strip_api_version(std::string_view api_name);

// "Memcpy" + " <copy label>" when there is one + " (<src> -> <dst>)" when either memory is known.
std::string memcpy_name(std::string_view copy_label, MemoryKind src, MemoryKind dst);
std::string memset_name(MemoryKind memory);  // "Memset (<memory>)"

}  // namespace parascope
