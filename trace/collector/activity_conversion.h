// Turns CUPTI activity records (the struct versions in cupti_records.h) into the collector's
// flattened records (trace/io/collector/collector_records.h). Pure functions of the record bytes, so tests
// build records in memory and check every field without a GPU or libcupti. Records CUPTI left
// incomplete (forced flush while a kernel ran: start or end 0) are counted, not written.
#pragma once

#include <cupti.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "trace/io/collector/collector_records.h"

namespace parascope::collector {

struct ConversionCounts {
  uint64_t converted = 0;
  uint64_t incomplete = 0;  // timestamps missing (in flight at a forced flush)
  uint64_t ignored = 0;     // kinds the collector does not convert
  uint64_t kernels = 0;     // for the "another CUPTI client took the buffers" check
};

// Name of a runtime/driver API from its callback id ("cudaLaunchKernel"); "" if unknown.
using ApiNameFn = std::function<std::string(CUpti_CallbackDomain, uint32_t cbid)>;

// Converts one record; false when the record is not written (incomplete or ignored kind).
bool convert_activity(const CUpti_Activity* record, CollectedActivity& out, const ApiNameFn& api_name,
                      ConversionCounts& counts);

// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi prints it.
std::string format_uuid(const CUuuid& uuid);

}  // namespace parascope::collector
