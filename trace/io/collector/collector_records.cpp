#include "trace/io/collector/collector_records.h"

namespace parascope::collector {

std::string_view to_string(RecordKind k) {
  switch (k) {
    case RecordKind::kUnknown: return "unknown";
    case RecordKind::kKernel: return "kernel";
    case RecordKind::kMemcpy: return "memcpy";
    case RecordKind::kMemset: return "memset";
    case RecordKind::kSync: return "sync";
    case RecordKind::kMarker: return "marker";
    case RecordKind::kMarkerData: return "marker_data";
    case RecordKind::kDevice: return "device";
    case RecordKind::kContext: return "context";
    case RecordKind::kStream: return "stream";
    case RecordKind::kApi: return "api";
    case RecordKind::kOverhead: return "overhead";
    case RecordKind::kGraphTrace: return "graph_trace";
    case RecordKind::kNvLink: return "nvlink";
    case RecordKind::kDeviceInfo: return "device_info";
    case RecordKind::kClockSync: return "clock_sync";
    case RecordKind::kCounterSample: return "counter_sample";
    case RecordKind::kGraphNodeClone: return "graph_node_clone";
    case RecordKind::kCaptureRange: return "capture_range";
    case RecordKind::kExternalCorrelation: return "external_correlation";
    case RecordKind::kDropped: return "dropped";
  }
  return "unknown";
}

namespace {

void timed(ByteWriter& w, const CollectedActivity& a) {
  w.varint(a.start_ns);
  w.varint(a.end_ns >= a.start_ns ? a.end_ns - a.start_ns : 0);
}
void read_timed(ByteReader& r, CollectedActivity& a) {
  a.start_ns = r.varint();
  a.end_ns = a.start_ns + r.varint();
}
uint32_t u32v(ByteReader& r) { return static_cast<uint32_t>(r.varint()); }
int32_t i32z(ByteReader& r) { return static_cast<int32_t>(r.svarint()); }

void encode_body(ByteWriter& w, const CollectedActivity& a) {
  switch (a.kind) {
    case RecordKind::kUnknown: break;
    case RecordKind::kKernel:
      timed(w, a);
      w.varint(a.device), w.varint(a.context), w.varint(a.stream), w.varint(a.correlation);
      w.str(a.name);
      for (int v : a.grid) w.svarint(v);
      for (int v : a.block) w.svarint(v);
      w.varint(a.registers), w.varint(a.static_smem), w.varint(a.dynamic_smem);
      w.varint(a.graph_id), w.varint(a.graph_node_id);
      w.varint(a.local_mem_per_thread), w.varint(a.local_mem_total), w.varint(a.shared_mem_executed);
      w.svarint(a.grid_id);
      // queued/submitted as offsets before start (0: not recorded)
      w.varint(a.queued_ns && a.queued_ns <= a.start_ns ? a.start_ns - a.queued_ns + 1 : 0);
      w.varint(a.submitted_ns && a.submitted_ns <= a.start_ns ? a.start_ns - a.submitted_ns + 1 : 0);
      w.u8(a.launch_type);
      for (int v : a.cluster) w.svarint(v);
      w.varint(a.channel_id), w.u8(a.channel_type), w.u8(a.device_launched);
      break;
    case RecordKind::kMemcpy:
      timed(w, a);
      w.varint(a.device), w.varint(a.context), w.varint(a.stream), w.varint(a.correlation);
      w.varint(a.bytes), w.u8(a.copy_kind), w.u8(a.src_kind), w.u8(a.dst_kind), w.varint(a.flags);
      w.varint(a.src_device), w.varint(a.dst_device), w.varint(a.src_context), w.varint(a.dst_context);
      w.u8(a.peer ? 1 : 0);
      w.varint(a.graph_id), w.varint(a.graph_node_id), w.varint(a.channel_id), w.u8(a.channel_type);
      w.varint(a.runtime_correlation), w.varint(a.copy_count);
      break;
    case RecordKind::kMemset:
      timed(w, a);
      w.varint(a.device), w.varint(a.context), w.varint(a.stream), w.varint(a.correlation);
      w.varint(a.bytes), w.varint(a.value), w.varint(a.memory_kind), w.varint(a.flags);
      w.varint(a.graph_id), w.varint(a.graph_node_id), w.varint(a.channel_id), w.u8(a.channel_type);
      break;
    case RecordKind::kSync:
      timed(w, a);
      w.varint(a.context), w.varint(a.stream), w.varint(a.correlation);
      w.u8(a.sync_type), w.varint(a.event_id), w.varint(a.return_value);
      break;
    case RecordKind::kMarker:
      w.varint(a.start_ns);
      w.varint(a.marker_id), w.varint(a.flags), w.u8(a.object_kind);
      w.varint(a.object_id[0]), w.varint(a.object_id[1]), w.varint(a.stream);
      w.str(a.name), w.str(a.domain);
      break;
    case RecordKind::kMarkerData:
      w.varint(a.marker_id), w.varint(a.flags), w.u8(a.payload_kind), w.u64(a.payload);
      w.varint(a.color), w.varint(a.category), w.varint(a.domain_id);
      break;
    case RecordKind::kDevice:
      w.varint(a.device), w.str(a.name), w.varint(a.sm_count), w.varint(a.compute_major), w.varint(a.compute_minor);
      w.varint(a.memory_bytes), w.varint(a.memory_bandwidth_kbps), w.varint(a.clock_khz), w.varint(a.l2_bytes);
      w.varint(a.copy_engines), w.str(a.uuid), w.varint(a.max_shared_per_sm), w.varint(a.max_regs_per_sm);
      w.varint(a.max_threads_per_block), w.varint(a.max_warps_per_sm);
      break;
    case RecordKind::kContext:
      w.varint(a.context), w.varint(a.device), w.varint(a.stream), w.varint(a.compute_api), w.varint(a.flags);
      w.varint(a.sm_count);
      break;
    case RecordKind::kStream:
      w.varint(a.context), w.varint(a.stream), w.varint(a.correlation), w.svarint(a.priority), w.varint(a.flags);
      break;
    case RecordKind::kApi:
      timed(w, a);
      w.u8(static_cast<uint8_t>(a.api_domain)), w.varint(a.cbid), w.str(a.name);
      w.varint(a.pid), w.varint(a.tid), w.varint(a.correlation), w.varint(a.return_value);
      break;
    case RecordKind::kOverhead:
      timed(w, a);
      w.varint(a.overhead_kind), w.u8(a.object_kind), w.varint(a.object_id[0]), w.varint(a.object_id[1]);
      w.varint(a.correlation);
      break;
    case RecordKind::kGraphTrace:
      timed(w, a);
      w.varint(a.device), w.varint(a.context), w.varint(a.stream), w.varint(a.correlation);
      w.varint(a.graph_id), w.varint(a.dst_device);
      break;
    case RecordKind::kNvLink:
      w.varint(a.nvlink_version);
      for (int i = 0; i < 2; ++i) w.varint(a.dev_type[i]), w.str(a.dev_id[i]);
      w.varint(a.flags), w.varint(a.physical_links);
      for (int i = 0; i < 2; ++i) {
        w.varint(a.ports[i].size());
        for (int8_t p : a.ports[i]) w.svarint(p);
      }
      w.varint(a.bandwidth_kbps), w.u8(a.nvswitch_connected ? 1 : 0);
      break;
    case RecordKind::kDeviceInfo:
      w.varint(a.device), w.str(a.name), w.str(a.uuid), w.str(a.pci_bus_id), w.varint(a.sm_count);
      w.varint(a.compute_major), w.varint(a.compute_minor), w.varint(a.memory_bytes);
      break;
    case RecordKind::kClockSync:
      w.varint(a.device), w.u8(static_cast<uint8_t>(a.clock)), w.svarint(a.offset_ns);
      w.varint(a.uncertainty_ns), w.varint(a.samples), w.varint(a.start_ns);
      break;
    case RecordKind::kCounterSample:
      timed(w, a);
      w.varint(a.device), w.str(a.name), w.u8(static_cast<uint8_t>(a.clock)), w.f64(a.counter_value);
      break;
    case RecordKind::kGraphNodeClone:
      w.varint(a.graph_id), w.varint(a.graph_node_id), w.varint(a.original_graph_id), w.varint(a.original_node_id);
      break;
    case RecordKind::kCaptureRange:
      w.varint(a.start_ns), w.varint(a.flags), w.str(a.name);
      break;
    case RecordKind::kExternalCorrelation:
      w.u8(a.external_kind), w.varint(a.external_id), w.varint(a.correlation);
      break;
    case RecordKind::kDropped:
      w.varint(a.context), w.varint(a.stream), w.varint(a.count);
      break;
  }
}

void decode_body(ByteReader& r, CollectedActivity& a) {
  switch (a.kind) {
    case RecordKind::kUnknown: break;
    case RecordKind::kKernel: {
      read_timed(r, a);
      a.device = u32v(r), a.context = u32v(r), a.stream = u32v(r), a.correlation = u32v(r);
      a.name = std::string(r.str());
      for (int& v : a.grid) v = i32z(r);
      for (int& v : a.block) v = i32z(r);
      a.registers = u32v(r), a.static_smem = u32v(r), a.dynamic_smem = u32v(r);
      a.graph_id = u32v(r), a.graph_node_id = r.varint();
      a.local_mem_per_thread = u32v(r), a.local_mem_total = r.varint(), a.shared_mem_executed = u32v(r);
      a.grid_id = r.svarint();
      const uint64_t q = r.varint(), s = r.varint();
      a.queued_ns = q ? a.start_ns - (q - 1) : 0;
      a.submitted_ns = s ? a.start_ns - (s - 1) : 0;
      a.launch_type = r.u8();
      for (int& v : a.cluster) v = i32z(r);
      a.channel_id = u32v(r), a.channel_type = r.u8(), a.device_launched = r.u8();
      break;
    }
    case RecordKind::kMemcpy:
      read_timed(r, a);
      a.device = u32v(r), a.context = u32v(r), a.stream = u32v(r), a.correlation = u32v(r);
      a.bytes = r.varint(), a.copy_kind = r.u8(), a.src_kind = r.u8(), a.dst_kind = r.u8(), a.flags = u32v(r);
      a.src_device = u32v(r), a.dst_device = u32v(r), a.src_context = u32v(r), a.dst_context = u32v(r);
      a.peer = r.u8() != 0;
      a.graph_id = u32v(r), a.graph_node_id = r.varint(), a.channel_id = u32v(r), a.channel_type = r.u8();
      a.runtime_correlation = u32v(r), a.copy_count = r.varint();
      break;
    case RecordKind::kMemset:
      read_timed(r, a);
      a.device = u32v(r), a.context = u32v(r), a.stream = u32v(r), a.correlation = u32v(r);
      a.bytes = r.varint(), a.value = u32v(r), a.memory_kind = static_cast<uint16_t>(r.varint()), a.flags = u32v(r);
      a.graph_id = u32v(r), a.graph_node_id = r.varint(), a.channel_id = u32v(r), a.channel_type = r.u8();
      break;
    case RecordKind::kSync:
      read_timed(r, a);
      a.context = u32v(r), a.stream = u32v(r), a.correlation = u32v(r);
      a.sync_type = r.u8(), a.event_id = u32v(r), a.return_value = u32v(r);
      break;
    case RecordKind::kMarker:
      a.start_ns = a.end_ns = r.varint();
      a.marker_id = u32v(r), a.flags = u32v(r), a.object_kind = r.u8();
      a.object_id[0] = u32v(r), a.object_id[1] = u32v(r), a.stream = u32v(r);
      a.name = std::string(r.str()), a.domain = std::string(r.str());
      break;
    case RecordKind::kMarkerData:
      a.marker_id = u32v(r), a.flags = u32v(r), a.payload_kind = r.u8(), a.payload = r.u64();
      a.color = u32v(r), a.category = u32v(r), a.domain_id = u32v(r);
      break;
    case RecordKind::kDevice:
      a.device = u32v(r), a.name = std::string(r.str()), a.sm_count = u32v(r);
      a.compute_major = u32v(r), a.compute_minor = u32v(r);
      a.memory_bytes = r.varint(), a.memory_bandwidth_kbps = r.varint(), a.clock_khz = u32v(r), a.l2_bytes = u32v(r);
      a.copy_engines = u32v(r), a.uuid = std::string(r.str()), a.max_shared_per_sm = u32v(r);
      a.max_regs_per_sm = u32v(r), a.max_threads_per_block = u32v(r), a.max_warps_per_sm = u32v(r);
      break;
    case RecordKind::kContext:
      a.context = u32v(r), a.device = u32v(r), a.stream = u32v(r), a.compute_api = static_cast<uint16_t>(r.varint());
      a.flags = u32v(r), a.sm_count = u32v(r);
      break;
    case RecordKind::kStream:
      a.context = u32v(r), a.stream = u32v(r), a.correlation = u32v(r), a.priority = i32z(r), a.flags = u32v(r);
      break;
    case RecordKind::kApi: {
      read_timed(r, a);
      const uint8_t d = r.u8();
      if (d < 1 || d > 3) r.fail("api record: unknown api domain " + std::to_string(d));
      a.api_domain = static_cast<ApiDomain>(d);
      a.cbid = u32v(r), a.name = std::string(r.str());
      a.pid = u32v(r), a.tid = u32v(r), a.correlation = u32v(r), a.return_value = u32v(r);
      break;
    }
    case RecordKind::kOverhead:
      read_timed(r, a);
      a.overhead_kind = u32v(r), a.object_kind = r.u8(), a.object_id[0] = u32v(r), a.object_id[1] = u32v(r);
      a.correlation = u32v(r);
      break;
    case RecordKind::kGraphTrace:
      read_timed(r, a);
      a.device = u32v(r), a.context = u32v(r), a.stream = u32v(r), a.correlation = u32v(r);
      a.graph_id = u32v(r), a.dst_device = u32v(r);
      break;
    case RecordKind::kNvLink:
      a.nvlink_version = u32v(r);
      for (int i = 0; i < 2; ++i) a.dev_type[i] = u32v(r), a.dev_id[i] = std::string(r.str());
      a.flags = u32v(r), a.physical_links = u32v(r);
      for (int i = 0; i < 2; ++i) {
        const uint64_t n = r.count(1, "nvlink port");
        a.ports[i].resize(n);
        for (auto& p : a.ports[i]) p = static_cast<int8_t>(r.svarint());
      }
      a.bandwidth_kbps = r.varint(), a.nvswitch_connected = r.u8() != 0;
      break;
    case RecordKind::kDeviceInfo:
      a.device = u32v(r), a.name = std::string(r.str()), a.uuid = std::string(r.str());
      a.pci_bus_id = std::string(r.str()), a.sm_count = u32v(r);
      a.compute_major = u32v(r), a.compute_minor = u32v(r), a.memory_bytes = r.varint();
      break;
    case RecordKind::kClockSync: {
      a.device = u32v(r);
      const uint8_t c = r.u8();
      if (c > 3) r.fail("clock_sync record: unknown clock " + std::to_string(c));
      a.clock = static_cast<ClockDomain>(c);
      a.offset_ns = r.svarint(), a.uncertainty_ns = r.varint(), a.samples = u32v(r);
      a.start_ns = a.end_ns = r.varint();
      break;
    }
    case RecordKind::kCounterSample: {
      read_timed(r, a);
      a.device = u32v(r), a.name = std::string(r.str());
      const uint8_t c = r.u8();
      if (c > 3) r.fail("counter_sample record: unknown clock " + std::to_string(c));
      a.clock = static_cast<ClockDomain>(c);
      a.counter_value = r.f64();
      break;
    }
    case RecordKind::kGraphNodeClone:
      a.graph_id = u32v(r), a.graph_node_id = r.varint(), a.original_graph_id = u32v(r), a.original_node_id = r.varint();
      break;
    case RecordKind::kCaptureRange:
      a.start_ns = a.end_ns = r.varint();
      a.flags = u32v(r), a.name = std::string(r.str());
      break;
    case RecordKind::kExternalCorrelation:
      a.external_kind = r.u8(), a.external_id = r.varint(), a.correlation = u32v(r);
      break;
    case RecordKind::kDropped:
      a.context = u32v(r), a.stream = u32v(r), a.count = r.varint();
      break;
  }
}

}  // namespace

void encode(ByteWriter& w, const CollectedActivity& a) {
  thread_local ByteWriter body;
  body.clear();
  encode_body(body, a);
  w.u8(static_cast<uint8_t>(a.kind));
  w.varint(body.size());
  w.raw(body.bytes().data(), body.size());
}

CollectedActivity decode(ByteReader& r) {
  CollectedActivity a;
  const uint8_t k = r.u8();
  const int64_t body_at = r.offset();
  const uint64_t n = r.varint();
  if (n > r.remaining()) r.fail("collector record of kind " + std::to_string(k) + " claims " + std::to_string(n) +
                                " bytes, " + std::to_string(r.remaining()) + " left");
  const uint8_t* body = r.raw(static_cast<size_t>(n));
  if (k == 0 || k > kMaxRecordKind) {
    a.kind = RecordKind::kUnknown;
    return a;
  }
  a.kind = static_cast<RecordKind>(k);
  // the body is read through its own bounded reader: a body may grow at its end in later
  // versions (readers ignore the extra bytes), but a short body is an error
  ByteReader br(body, static_cast<size_t>(n), "", body_at);
  try {
    decode_body(br, a);
  } catch (const InputError&) {
    r.fail(std::string("truncated ") + std::string(to_string(a.kind)) + " record (" + std::to_string(n) + " bytes)");
  }
  return a;
}

std::vector<CollectedActivity> decode_all(ByteReader& r) {
  std::vector<CollectedActivity> out;
  while (!r.done()) {
    CollectedActivity a = decode(r);
    if (a.kind != RecordKind::kUnknown) out.push_back(std::move(a));
  }
  return out;
}

}  // namespace parascope::collector
