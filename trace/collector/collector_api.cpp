// The exported entry points of libparascope_cupti.so: CUDA's injection hook, NVTX's injection hook,
// and the functions parascope/collector.h looks up. (The NCCL plugin symbol is in nccl_plugin.cpp.)
#include "trace/collector/collector.h"

#define PARASCOPE_EXPORT extern "C" __attribute__((visibility("default")))

using parascope::collector::Collector;

// CUDA_INJECTION64_PATH: called by the driver during cuInit.
PARASCOPE_EXPORT int InitializeInjection() { return Collector::instance().initialize_injection(); }

// NVTX_INJECTION64_PATH: called by NVTX on the first NVTX call; forwarded to CUPTI's handler so
// markers become MARKER activity records in the same CUPTI session.
PARASCOPE_EXPORT int InitializeInjectionNvtx2(const void* get_export_table) {
  return Collector::instance().initialize_nvtx(get_export_table);
}

PARASCOPE_EXPORT int parascope_collector_impl_status() { return Collector::instance().status(); }
PARASCOPE_EXPORT int parascope_collector_impl_start(const char* label) { return Collector::instance().capture(true, label); }
PARASCOPE_EXPORT int parascope_collector_impl_stop(const char* label) { return Collector::instance().capture(false, label); }
PARASCOPE_EXPORT int parascope_collector_impl_name_rank(int rank, const char* name) {
  return Collector::instance().name_rank(rank, name);
}
PARASCOPE_EXPORT int parascope_collector_impl_submit_probes(int device, const void* host_buffer, size_t bytes,
                                                            const char* kernel_name, unsigned correlation) {
  return Collector::instance().submit_probes(device, host_buffer, bytes, kernel_name, correlation);
}
PARASCOPE_EXPORT int parascope_collector_impl_submit_standin(const char* text, size_t bytes) {
  return Collector::instance().submit_standin(text, bytes);
}
PARASCOPE_EXPORT int parascope_collector_impl_note(const char* text) { return Collector::instance().program_message(false, text); }
PARASCOPE_EXPORT int parascope_collector_impl_warn(const char* text) { return Collector::instance().program_message(true, text); }
PARASCOPE_EXPORT uint32_t parascope_collector_impl_stream_id(uint64_t stream_handle) {
  return Collector::instance().stream_id(stream_handle);
}
