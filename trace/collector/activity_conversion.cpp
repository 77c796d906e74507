#include "trace/collector/activity_conversion.h"

#include <cstdio>
#include <cstring>

#include "trace/collector/cupti_records.h"

namespace parascope::collector {

std::string format_uuid(const CUuuid& uuid) {
  const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
  char s[48];
  std::snprintf(s, sizeof s, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return s;
}

namespace {

bool complete(uint64_t start, uint64_t end) { return start != 0 && end != 0 && end >= start; }

void object_ids(CUpti_ActivityObjectKind kind, const CUpti_ActivityObjectKindId& id, CollectedActivity& a) {
  a.object_kind = static_cast<uint8_t>(kind);
  if (kind == CUPTI_ACTIVITY_OBJECT_PROCESS || kind == CUPTI_ACTIVITY_OBJECT_THREAD) {
    a.object_id[0] = id.pt.processId;
    a.object_id[1] = id.pt.threadId;
  } else {
    a.object_id[0] = id.dcs.deviceId;
    a.object_id[1] = id.dcs.contextId;
    a.stream = id.dcs.streamId;
  }
}

std::string nvlink_end(CUpti_DevType type, const void* id_union) {
  // idDev0/idDev1 are unions of a CUuuid (GPU) and {index, domainId} (NPU: an NVSwitch)
  if (type == CUPTI_DEV_TYPE_GPU) {
    CUuuid u;
    std::memcpy(&u, id_union, sizeof u);
    return format_uuid(u);
  }
  uint32_t index = 0, domain = 0;
  std::memcpy(&index, id_union, 4);
  std::memcpy(&domain, static_cast<const char*>(id_union) + 4, 4);
  return "npu:" + std::to_string(domain) + ":" + std::to_string(index);
}

}  // namespace

bool convert_activity(const CUpti_Activity* record, CollectedActivity& a, const ApiNameFn& api_name,
                      ConversionCounts& counts) {
  a = CollectedActivity{};
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto* k = reinterpret_cast<const KernelRecord*>(record);
      if (!complete(k->start, k->end)) return ++counts.incomplete, false;
      a.kind = RecordKind::kKernel;
      a.start_ns = k->start, a.end_ns = k->end;
      a.device = k->deviceId, a.context = k->contextId, a.stream = k->streamId, a.correlation = k->correlationId;
      a.name = k->name ? k->name : "";
      a.grid[0] = k->gridX, a.grid[1] = k->gridY, a.grid[2] = k->gridZ;
      a.block[0] = k->blockX, a.block[1] = k->blockY, a.block[2] = k->blockZ;
      a.cluster[0] = static_cast<int32_t>(k->clusterX), a.cluster[1] = static_cast<int32_t>(k->clusterY);
      a.cluster[2] = static_cast<int32_t>(k->clusterZ);
      a.registers = k->registersPerThread;
      a.static_smem = static_cast<uint32_t>(k->staticSharedMemory);
      a.dynamic_smem = static_cast<uint32_t>(k->dynamicSharedMemory);
      a.local_mem_per_thread = k->localMemoryPerThread;
      a.local_mem_total = k->localMemoryTotal_v2 ? k->localMemoryTotal_v2 : k->localMemoryTotal;
      a.shared_mem_executed = k->sharedMemoryExecuted;
      a.graph_id = k->graphId, a.graph_node_id = k->graphNodeId;
      a.grid_id = k->gridId;
      a.queued_ns = k->queued == CUPTI_TIMESTAMP_UNKNOWN ? 0 : k->queued;
      a.submitted_ns = k->submitted == CUPTI_TIMESTAMP_UNKNOWN ? 0 : k->submitted;
      a.launch_type = k->launchType;
      a.channel_id = k->channelID, a.channel_type = static_cast<uint8_t>(k->channelType);
      a.device_launched = k->isDeviceLaunched;
      ++counts.kernels;
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const MemcpyRecord*>(record);
      if (!complete(m->start, m->end)) return ++counts.incomplete, false;
      a.kind = RecordKind::kMemcpy;
      a.start_ns = m->start, a.end_ns = m->end;
      a.device = m->deviceId, a.context = m->contextId, a.stream = m->streamId, a.correlation = m->correlationId;
      a.bytes = m->bytes, a.copy_kind = m->copyKind, a.src_kind = m->srcKind, a.dst_kind = m->dstKind, a.flags = m->flags;
      a.src_device = a.dst_device = m->deviceId;
      a.src_context = a.dst_context = m->contextId;
      a.graph_id = m->graphId, a.graph_node_id = m->graphNodeId;
      a.channel_id = m->channelID, a.channel_type = static_cast<uint8_t>(m->channelType);
      a.runtime_correlation = m->runtimeCorrelationId;
      a.copy_count = m->copyCount;
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: {
      const auto* m = reinterpret_cast<const MemcpyPtoPRecord*>(record);
      if (!complete(m->start, m->end)) return ++counts.incomplete, false;
      a.kind = RecordKind::kMemcpy;
      a.peer = true;
      a.start_ns = m->start, a.end_ns = m->end;
      a.device = m->deviceId, a.context = m->contextId, a.stream = m->streamId, a.correlation = m->correlationId;
      a.bytes = m->bytes, a.copy_kind = m->copyKind, a.src_kind = m->srcKind, a.dst_kind = m->dstKind, a.flags = m->flags;
      a.src_device = m->srcDeviceId, a.dst_device = m->dstDeviceId;
      a.src_context = m->srcContextId, a.dst_context = m->dstContextId;
      a.graph_id = m->graphId, a.graph_node_id = m->graphNodeId;
      a.channel_id = m->channelID, a.channel_type = static_cast<uint8_t>(m->channelType);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const MemsetRecord*>(record);
      if (!complete(m->start, m->end)) return ++counts.incomplete, false;
      a.kind = RecordKind::kMemset;
      a.start_ns = m->start, a.end_ns = m->end;
      a.device = m->deviceId, a.context = m->contextId, a.stream = m->streamId, a.correlation = m->correlationId;
      a.bytes = m->bytes, a.value = m->value, a.memory_kind = m->memoryKind, a.flags = m->flags;
      a.graph_id = m->graphId, a.graph_node_id = m->graphNodeId;
      a.channel_id = m->channelID, a.channel_type = static_cast<uint8_t>(m->channelType);
      break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      const auto* s = reinterpret_cast<const SyncRecord*>(record);
      if (!complete(s->start, s->end)) return ++counts.incomplete, false;
      a.kind = RecordKind::kSync;
      a.start_ns = s->start, a.end_ns = s->end;
      a.context = s->contextId, a.stream = s->streamId, a.correlation = s->correlationId;
      a.sync_type = static_cast<uint8_t>(s->type), a.event_id = s->cudaEventId, a.return_value = s->returnValue;
      break;
    }
    case CUPTI_ACTIVITY_KIND_MARKER: {
      const auto* m = reinterpret_cast<const MarkerRecord*>(record);
      a.kind = RecordKind::kMarker;
      a.start_ns = a.end_ns = m->timestamp;
      a.marker_id = m->id, a.flags = static_cast<uint32_t>(m->flags);
      object_ids(m->objectKind, m->objectId, a);
      a.name = m->name ? m->name : "";
      a.domain = m->domain ? m->domain : "";
      break;
    }
    case CUPTI_ACTIVITY_KIND_MARKER_DATA: {
      const auto* m = reinterpret_cast<const MarkerDataRecord*>(record);
      a.kind = RecordKind::kMarkerData;
      a.marker_id = m->id, a.flags = static_cast<uint32_t>(m->flags);
      a.payload_kind = static_cast<uint8_t>(m->payloadKind);
      static_assert(sizeof(m->payload) == 8);
      std::memcpy(&a.payload, &m->payload, 8);
      a.color = m->color, a.category = m->category, a.domain_id = m->cuptiDomainId;
      break;
    }
    case CUPTI_ACTIVITY_KIND_DEVICE: {
      const auto* d = reinterpret_cast<const DeviceRecord*>(record);
      a.kind = RecordKind::kDevice;
      a.device = d->id, a.name = d->name ? d->name : "";
      a.sm_count = d->numMultiprocessors;
      a.compute_major = d->computeCapabilityMajor, a.compute_minor = d->computeCapabilityMinor;
      a.memory_bytes = d->globalMemorySize, a.memory_bandwidth_kbps = d->globalMemoryBandwidth;
      a.clock_khz = d->coreClockRate, a.l2_bytes = d->l2CacheSize, a.copy_engines = d->numMemcpyEngines;
      a.uuid = format_uuid(d->uuid);
      a.max_shared_per_sm = d->maxSharedMemoryPerMultiprocessor, a.max_regs_per_sm = d->maxRegistersPerMultiprocessor;
      a.max_threads_per_block = d->maxThreadsPerBlock, a.max_warps_per_sm = d->maxWarpsPerMultiprocessor;
      break;
    }
    case CUPTI_ACTIVITY_KIND_CONTEXT: {
      const auto* c = reinterpret_cast<const ContextRecord*>(record);
      a.kind = RecordKind::kContext;
      a.context = c->contextId, a.device = c->deviceId, a.stream = c->nullStreamId;
      a.compute_api = c->computeApiKind, a.flags = c->isGreenContext ? 1 : 0, a.sm_count = c->numMultiprocessors;
      break;
    }
    case CUPTI_ACTIVITY_KIND_STREAM: {
      const auto* s = reinterpret_cast<const StreamRecord*>(record);
      a.kind = RecordKind::kStream;
      a.context = s->contextId, a.stream = s->streamId, a.correlation = s->correlationId;
      a.priority = static_cast<int32_t>(s->priority), a.flags = static_cast<uint32_t>(s->flag);
      break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
    case CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API: {
      const auto* r = reinterpret_cast<const ApiRecord*>(record);
      if (!complete(r->start, r->end)) return ++counts.incomplete, false;
      a.kind = RecordKind::kApi;
      a.start_ns = r->start, a.end_ns = r->end;
      a.api_domain = record->kind == CUPTI_ACTIVITY_KIND_RUNTIME  ? ApiDomain::kRuntime
                     : record->kind == CUPTI_ACTIVITY_KIND_DRIVER ? ApiDomain::kDriver
                                                                  : ApiDomain::kInternalLaunch;
      a.cbid = r->cbid, a.pid = r->processId, a.tid = r->threadId, a.correlation = r->correlationId;
      a.return_value = r->returnValue;
      if (a.api_domain == ApiDomain::kInternalLaunch) a.name = "internal_launch";
      else if (api_name)
        a.name = api_name(a.api_domain == ApiDomain::kRuntime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API,
                          r->cbid);
      break;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD: {
      const auto* o = reinterpret_cast<const OverheadRecord*>(record);
      if (!complete(o->start, o->end)) return ++counts.incomplete, false;
      a.kind = RecordKind::kOverhead;
      a.start_ns = o->start, a.end_ns = o->end;
      a.overhead_kind = static_cast<uint32_t>(o->overheadKind);
      object_ids(o->objectKind, o->objectId, a);
      a.correlation = o->correlationId;
      break;
    }
    case CUPTI_ACTIVITY_KIND_GRAPH_TRACE: {
      const auto* g = reinterpret_cast<const GraphTraceRecord*>(record);
      if (!complete(g->start, g->end)) return ++counts.incomplete, false;
      a.kind = RecordKind::kGraphTrace;
      a.start_ns = g->start, a.end_ns = g->end;
      a.device = g->deviceId, a.context = g->contextId, a.stream = g->streamId, a.correlation = g->correlationId;
      a.graph_id = g->graphId, a.dst_device = g->endDeviceId;
      break;
    }
    case CUPTI_ACTIVITY_KIND_NVLINK: {
      const auto* n = reinterpret_cast<const NvLinkRecord*>(record);
      a.kind = RecordKind::kNvLink;
      a.nvlink_version = n->nvlinkVersion;
      a.dev_type[0] = static_cast<uint32_t>(n->typeDev0), a.dev_type[1] = static_cast<uint32_t>(n->typeDev1);
      a.dev_id[0] = nvlink_end(n->typeDev0, &n->idDev0);
      a.dev_id[1] = nvlink_end(n->typeDev1, &n->idDev1);
      a.flags = n->flag, a.physical_links = n->physicalNvLinkCount;
      for (int i = 0; i < CUPTI_MAX_NVLINK_PORTS; ++i) {
        if (n->portDev0[i] >= 0) a.ports[0].push_back(n->portDev0[i]);
        if (n->portDev1[i] >= 0) a.ports[1].push_back(n->portDev1[i]);
      }
      a.bandwidth_kbps = n->bandwidth, a.nvswitch_connected = n->nvswitchConnected != 0;
      break;
    }
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
      const auto* e = reinterpret_cast<const ExternalCorrelationRecord*>(record);
      a.kind = RecordKind::kExternalCorrelation;
      a.external_kind = static_cast<uint8_t>(e->externalKind), a.external_id = e->externalId;
      a.correlation = e->correlationId;
      break;
    }
    default:
      ++counts.ignored;
      return false;
  }
  ++counts.converted;
  return true;
}

}  // namespace parascope::collector
