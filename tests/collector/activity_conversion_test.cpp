// Record conversion from CUPTI's own structs (built in memory, no GPU, no libcupti).
#include <catch2/catch.hpp>

#include <dlfcn.h>

#include <cstring>

#include "parascope/collector.h"
#include "trace/collector/activity_conversion.h"
#include "trace/collector/cupti_records.h"

using namespace parascope::collector;

namespace {

std::string fake_names(CUpti_CallbackDomain d, uint32_t cbid) {
  if (d == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000) return "cudaLaunchKernel";
  return "";
}

}  // namespace

TEST_CASE("CONCURRENT_KERNEL records keep geometry, graph ids and correlation", "[collector][conversion]") {
  KernelRecord k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = 1'000'000, k.end = 1'025'000;
  k.deviceId = 1, k.contextId = 2, k.streamId = 7, k.correlationId = 99;
  k.gridX = 132, k.gridY = 1, k.gridZ = 1, k.blockX = 256, k.blockY = 1, k.blockZ = 1;
  k.registersPerThread = 64, k.staticSharedMemory = 0, k.dynamicSharedMemory = 49152;
  k.graphId = 3, k.graphNodeId = 17;
  k.queued = CUPTI_TIMESTAMP_UNKNOWN, k.submitted = CUPTI_TIMESTAMP_UNKNOWN;
  k.clusterX = 2, k.clusterY = 1, k.clusterZ = 1;
  k.name = "gemm_kernel";
  CollectedActivity a;
  ConversionCounts counts;
  REQUIRE(convert_activity(reinterpret_cast<const CUpti_Activity*>(&k), a, fake_names, counts));
  CHECK(a.kind == RecordKind::kKernel);
  CHECK(a.end_ns - a.start_ns == 25'000);
  CHECK(a.device == 1);
  CHECK(a.stream == 7);
  CHECK(a.correlation == 99);
  CHECK(a.grid[0] == 132);
  CHECK(a.block[0] == 256);
  CHECK(a.cluster[0] == 2);
  CHECK(a.dynamic_smem == 49152);
  CHECK(a.graph_id == 3);
  CHECK(a.graph_node_id == 17);
  CHECK(a.queued_ns == 0);  // CUPTI_TIMESTAMP_UNKNOWN becomes "not recorded"
  CHECK(a.name == "gemm_kernel");
  CHECK(counts.kernels == 1);

  SECTION("a kernel still running at a forced flush is counted, not written") {
    k.end = 0;
    ConversionCounts c2;
    CHECK_FALSE(convert_activity(reinterpret_cast<const CUpti_Activity*>(&k), a, fake_names, c2));
    CHECK(c2.incomplete == 1);
    CHECK(c2.converted == 0);
  }
}

TEST_CASE("MEMCPY2 peer copies carry source and destination devices", "[collector][conversion]") {
  MemcpyPtoPRecord m{};
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  m.bytes = 256ull << 20;
  m.start = 10, m.end = 10 + 700'000;
  m.deviceId = 0, m.srcDeviceId = 0, m.dstDeviceId = 1, m.srcContextId = 1, m.dstContextId = 2, m.correlationId = 5;
  CollectedActivity a;
  ConversionCounts counts;
  REQUIRE(convert_activity(reinterpret_cast<const CUpti_Activity*>(&m), a, fake_names, counts));
  CHECK(a.kind == RecordKind::kMemcpy);
  CHECK(a.peer);
  CHECK(a.src_device == 0);
  CHECK(a.dst_device == 1);
  CHECK(a.dst_context == 2);
  CHECK(a.bytes == (256ull << 20));
  CHECK(a.copy_kind == CUPTI_ACTIVITY_MEMCPY_KIND_PTOP);

  MemcpyRecord h{};
  h.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  h.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  h.bytes = 4096, h.start = 1, h.end = 2, h.deviceId = 1;
  REQUIRE(convert_activity(reinterpret_cast<const CUpti_Activity*>(&h), a, fake_names, counts));
  CHECK_FALSE(a.peer);
  CHECK(a.src_device == 1);  // MEMCPY names one device; both ends are it
  CHECK(a.dst_device == 1);
}

TEST_CASE("Markers, API calls and NVLink records convert with names and ids", "[collector][conversion]") {
  CollectedActivity a;
  ConversionCounts counts;
  MarkerRecord mk{};
  mk.kind = CUPTI_ACTIVITY_KIND_MARKER;
  mk.flags = CUPTI_ACTIVITY_FLAG_MARKER_START;
  mk.timestamp = 777, mk.id = 4;
  mk.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  mk.objectId.pt.processId = 10, mk.objectId.pt.threadId = 11;
  mk.name = "forward", mk.domain = nullptr;
  REQUIRE(convert_activity(reinterpret_cast<const CUpti_Activity*>(&mk), a, fake_names, counts));
  CHECK(a.kind == RecordKind::kMarker);
  CHECK(a.start_ns == 777);
  CHECK(a.object_id[0] == 10);
  CHECK(a.object_id[1] == 11);
  CHECK(a.name == "forward");
  CHECK(a.domain.empty());

  ApiRecord api{};
  api.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  api.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
  api.start = 5, api.end = 9, api.processId = 1, api.threadId = 2, api.correlationId = 3;
  REQUIRE(convert_activity(reinterpret_cast<const CUpti_Activity*>(&api), a, fake_names, counts));
  CHECK(a.api_domain == ApiDomain::kRuntime);
  CHECK(a.name == "cudaLaunchKernel");
  CHECK(a.correlation == 3);

  NvLinkRecord nv{};
  nv.kind = CUPTI_ACTIVITY_KIND_NVLINK;
  nv.nvlinkVersion = 4;
  nv.typeDev0 = CUPTI_DEV_TYPE_GPU;
  nv.typeDev1 = CUPTI_DEV_TYPE_NPU;
  for (int i = 0; i < 16; ++i) nv.idDev0.uuidDev.bytes[i] = static_cast<char>(i);
  nv.idDev1.npu.index = 3, nv.idDev1.npu.domainId = 0;
  std::memset(nv.portDev0, -1, sizeof nv.portDev0);
  std::memset(nv.portDev1, -1, sizeof nv.portDev1);
  nv.portDev0[0] = 0, nv.portDev0[1] = 5;
  nv.physicalNvLinkCount = 2, nv.bandwidth = 26'562'500, nv.nvswitchConnected = 1;
  REQUIRE(convert_activity(reinterpret_cast<const CUpti_Activity*>(&nv), a, fake_names, counts));
  CHECK(a.dev_id[0] == "GPU-00010203-0405-0607-0809-0a0b0c0d0e0f");
  CHECK(a.dev_id[1] == "npu:0:3");
  CHECK(a.ports[0] == std::vector<int8_t>{0, 5});
  CHECK(a.ports[1].empty());
  CHECK(a.nvswitch_connected);
}

TEST_CASE("Kinds the collector does not convert are counted as ignored", "[collector][conversion]") {
  CUpti_ActivityName n{};
  n.kind = CUPTI_ACTIVITY_KIND_NAME;
  CollectedActivity a;
  ConversionCounts counts;
  CHECK_FALSE(convert_activity(reinterpret_cast<const CUpti_Activity*>(&n), a, fake_names, counts));
  CHECK(counts.ignored == 1);
}

TEST_CASE("parascope/collector.h finds the collector library once it is loaded", "[collector][api]") {
  void* h = dlopen(PARASCOPE_CUPTI_LIB, RTLD_NOW | RTLD_LOCAL);
  REQUIRE(h != nullptr);
  CHECK(parascope_collector_lookup()->start != nullptr);
  CHECK(parascope_collector_status() == 0);  // loaded, but CUDA never injected it: not recording
  CHECK(parascope_collector_start("x") == 0);
}
