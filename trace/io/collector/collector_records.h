// The collector's compact record encoding inside kCuptiRecords chunks: CUPTI's activity structs
// flattened to the fields Parascope uses, so the file format does not depend on CUPTI's struct
// layout or version. Plain C++: readers decode it without CUDA.
//
// A payload is records back to back: u8 kind, v body_bytes, body. A reader skips a kind it does not
// know (decode() returns RecordKind::kUnknown), so new kinds never break old readers; a known kind
// never changes its body (a new layout gets a new kind number). Units: times are CUPTI nanoseconds
// (CLOCK_REALTIME on Linux) unless a record names another clock; devices are CUDA ordinals
// (CUPTI deviceId); streams are CUPTI stream ids. Which fields each kind fills is listed below.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "trace/io/common/byte_io.h"

namespace parascope::collector {

enum class RecordKind : uint8_t {
  kUnknown = 0,          // a kind this reader does not know (skipped)
  kKernel = 1,           // CONCURRENT_KERNEL
  kMemcpy = 2,           // MEMCPY and MEMCPY2 (peer copies: peer = true, src/dst device + context)
  kMemset = 3,           // MEMSET
  kSync = 4,             // SYNCHRONIZATION
  kMarker = 5,           // MARKER (NVTX range start/end, instant; name + domain)
  kMarkerData = 6,       // MARKER_DATA (payload, colour, category of a marker id)
  kDevice = 7,           // DEVICE (CUPTI's device properties)
  kContext = 8,          // CONTEXT
  kStream = 9,           // STREAM
  kApi = 10,             // RUNTIME, DRIVER, INTERNAL_LAUNCH_API (launch → kernel via correlation)
  kOverhead = 11,        // OVERHEAD (CUPTI's own cost: buffer flush, instrumentation)
  kGraphTrace = 12,      // GRAPH_TRACE (whole-graph execution, when enabled instead of nodes)
  kNvLink = 13,          // NVLINK topology (one record per link pair CUPTI reports)
  kDeviceInfo = 14,      // from the driver: PCI bus id, UUID, name of a CUDA ordinal
  kClockSync = 15,       // an offset between another clock and the CUPTI clock
  kCounterSample = 16,   // a measured counter over [start, end] (NVLink bytes from PM sampling)
  kGraphNodeClone = 17,  // graph instantiation: cloned node id ← original node id
  kCaptureRange = 18,    // parascope_collector_start/stop (API) marks
  kExternalCorrelation = 19,  // EXTERNAL_CORRELATION (external id ↔ CUPTI correlation)
  kDropped = 20,         // records CUPTI dropped for (context, stream) since the previous count
};
inline constexpr uint8_t kMaxRecordKind = 20;
std::string_view to_string(RecordKind k);

enum class ApiDomain : uint8_t { kRuntime = 1, kDriver = 2, kInternalLaunch = 3 };
// kClockSync: the clock whose offset to the CUPTI clock is given.
enum class ClockDomain : uint8_t { kCupti = 0, kRealtime = 1, kMonotonic = 2, kGlobalTimer = 3 };
inline constexpr uint32_t kHostDevice = 0xFFFFFFFFu;  // kClockSync.device for host clocks

// One flattened record. `kind` says which fields are meaningful:
//   all timed kinds     start_ns, end_ns
//   kernel              device context stream correlation name grid block registers static_smem
//                       dynamic_smem local_mem_per_thread local_mem_total shared_mem_executed
//                       graph_id graph_node_id grid_id queued_ns submitted_ns launch_type cluster
//                       channel_id channel_type device_launched
//   memcpy              device context stream correlation bytes copy_kind src_kind dst_kind flags
//                       src_device dst_device (peer: + src_context dst_context) peer graph_id
//                       graph_node_id channel_id channel_type runtime_correlation copy_count
//   memset              device context stream correlation bytes value memory_kind flags graph_id
//                       graph_node_id channel_id channel_type
//   sync                context stream correlation sync_type event_id return_value
//   marker              start_ns (= end_ns) marker_id flags object_kind object_id[2] name domain
//   marker_data         marker_id flags payload_kind payload color category domain_id
//   device              device name sm_count compute_major compute_minor memory_bytes
//                       memory_bandwidth_kbps clock_khz l2_bytes copy_engines uuid
//                       max_shared_per_sm max_regs_per_sm max_threads_per_block max_warps_per_sm
//   context             context device stream (null stream) compute_api flags (1: green) sm_count
//   stream              context stream correlation priority flags (CUpti_ActivityStreamFlag)
//   api                 api_domain cbid name pid tid correlation return_value
//   overhead            overhead_kind object_kind object_id[2] correlation
//   graph_trace         device context stream correlation graph_id dst_device (end device)
//   nvlink              nvlink_version dev_type[2] dev_id[2] (UUID text or "npu:index") flags
//                       physical_links ports[2] bandwidth_kbps nvswitch_connected
//   device_info         device name uuid pci_bus_id sm_count compute_major compute_minor memory_bytes
//   clock_sync          device (kHostDevice: host) clock offset_ns uncertainty_ns samples start_ns
//                       (= when measured, CUPTI ns): CUPTI time = clock time + offset_ns
//   counter_sample      device name (metric) start_ns end_ns (in `clock`) clock value
//   graph_node_clone    graph_id graph_node_id original_graph_id original_node_id
//   capture_range       start_ns flags (1 start, 0 stop) name
//   external_correlation external_kind external_id correlation
//   dropped             context stream count
struct CollectedActivity {
  RecordKind kind = RecordKind::kKernel;
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t device = 0, context = 0, stream = 0, correlation = 0;
  std::string name;
  // kernel
  int32_t grid[3] = {0, 0, 0}, block[3] = {0, 0, 0}, cluster[3] = {0, 0, 0};
  uint32_t registers = 0, static_smem = 0, dynamic_smem = 0, graph_id = 0;
  uint64_t graph_node_id = 0;
  uint32_t local_mem_per_thread = 0, shared_mem_executed = 0;
  uint64_t local_mem_total = 0;
  int64_t grid_id = 0;
  uint64_t queued_ns = 0, submitted_ns = 0;
  uint8_t launch_type = 0, channel_type = 0, device_launched = 0;
  uint32_t channel_id = 0;
  // memcpy / memset
  uint64_t bytes = 0;
  uint8_t copy_kind = 0;      // CUpti_ActivityMemcpyKind (10 = PtoP)
  uint8_t src_kind = 0, dst_kind = 0;  // CUpti_ActivityMemoryKind
  uint32_t flags = 0;
  uint32_t src_device = 0, dst_device = 0, src_context = 0, dst_context = 0;
  bool peer = false;
  uint32_t runtime_correlation = 0;
  uint64_t copy_count = 0;
  uint32_t value = 0;
  uint16_t memory_kind = 0;
  // sync
  uint8_t sync_type = 0;      // CUpti_ActivitySynchronizationType
  uint32_t event_id = 0;
  uint32_t return_value = 0;
  // marker / marker data
  uint32_t marker_id = 0;
  uint8_t object_kind = 0;    // CUpti_ActivityObjectKind: 1 process, 2 thread, 3 device, 4 context, 5 stream
  uint32_t object_id[2] = {0, 0};  // thread: pid, tid; device/context/stream: device, context (stream in `stream`)
  std::string domain;
  uint8_t payload_kind = 0;   // CUpti_MetricValueKind: 0 none... (see docs/collector.md)
  uint64_t payload = 0;       // raw bits
  uint32_t color = 0, category = 0, domain_id = 0;
  // device / device_info / context
  uint32_t sm_count = 0, compute_major = 0, compute_minor = 0;
  uint64_t memory_bytes = 0, memory_bandwidth_kbps = 0;
  uint32_t clock_khz = 0, l2_bytes = 0, copy_engines = 0;
  uint32_t max_shared_per_sm = 0, max_regs_per_sm = 0, max_threads_per_block = 0, max_warps_per_sm = 0;
  std::string uuid, pci_bus_id;
  uint16_t compute_api = 0;
  // stream
  int32_t priority = 0;
  // api
  ApiDomain api_domain = ApiDomain::kRuntime;
  uint32_t cbid = 0, pid = 0, tid = 0;
  // overhead
  uint32_t overhead_kind = 0;
  // nvlink
  uint32_t nvlink_version = 0, physical_links = 0;
  uint32_t dev_type[2] = {0, 0};  // CUpti_DevType: 1 GPU, 2 NPU (NVSwitch)
  std::string dev_id[2];
  std::vector<int8_t> ports[2];
  uint64_t bandwidth_kbps = 0;
  bool nvswitch_connected = false;
  // clock sync / counter sample
  ClockDomain clock = ClockDomain::kCupti;
  int64_t offset_ns = 0;
  uint64_t uncertainty_ns = 0;
  uint32_t samples = 0;
  double counter_value = 0;
  // graph node clone
  uint32_t original_graph_id = 0;
  uint64_t original_node_id = 0;
  // external correlation
  uint8_t external_kind = 0;
  uint64_t external_id = 0;
  // dropped
  uint64_t count = 0;
};

void encode(ByteWriter& w, const CollectedActivity& a);
// Decodes one record; returns kind kUnknown (body skipped) for kinds this reader does not know.
// Throws InputError (via ByteReader) on truncated or inconsistent bodies.
CollectedActivity decode(ByteReader& r);
// Decodes a whole kCuptiRecords payload (unknown kinds dropped).
std::vector<CollectedActivity> decode_all(ByteReader& r);

}  // namespace parascope::collector
