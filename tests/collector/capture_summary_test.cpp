#include <catch2/catch.hpp>

#include <filesystem>

#include "test_paths.h"
#include "trace/collector/capture_summary.h"
#include "trace/collector/capture_writer.h"
#include "trace/io/collector/collector_records.h"
#include "trace/io/collector/nccl_records.h"

using namespace parascope;
using namespace parascope::collector;
namespace fs = std::filesystem;

namespace {

CollectedActivity kernel(uint32_t device, uint32_t corr, const std::string& name, uint64_t start) {
  CollectedActivity k;
  k.kind = RecordKind::kKernel;
  k.device = device, k.correlation = corr, k.name = name, k.start_ns = start, k.end_ns = start + 20'000;
  return k;
}

}  // namespace

TEST_CASE("A capture summary counts kernels, peer copies and NCCL annotations per device", "[collector][summary]") {
  const fs::path dir = test::temp_dir("summary");
  const std::string path = (dir / "h-1-r0.pstrace").string();
  {
    CaptureWriter w(path, {}, nullptr);
    w.start();
    w.submit_chunk(ChunkType::kMetadata, encode_metadata({{"rank", "0"}, {"pid", "1"}, {"session", "s1"}}));
    ByteWriter recs;
    encode(recs, kernel(0, 10, "ampere_bf16_gemm", 1000));
    encode(recs, kernel(0, 11, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 2000));
    encode(recs, kernel(0, 12, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 3000));  // its op is not linked
    CollectedActivity peer;
    peer.kind = RecordKind::kMemcpy;
    peer.peer = true, peer.device = 0, peer.src_device = 0, peer.dst_device = 1, peer.bytes = 1 << 20;
    peer.start_ns = 500, peer.end_ns = 600;
    encode(recs, peer);
    CollectedActivity info;
    info.kind = RecordKind::kDeviceInfo;
    info.device = 0, info.pci_bus_id = "00000000:19:00.0", info.name = "NVIDIA H200";
    encode(recs, info);
    CollectedActivity mark;
    mark.kind = RecordKind::kMarker;
    mark.flags = 2;  // CUPTI_ACTIVITY_FLAG_MARKER_START
    encode(recs, mark);
    w.submit_chunk(ChunkType::kCuptiRecords, std::move(recs.bytes()));
    ByteWriter nccl;
    NcclRecord launch;
    launch.kind = NcclRecordKind::kKernelLaunch, launch.launch = 1, launch.correlation = 11;
    NcclRecord op;
    op.kind = NcclRecordKind::kCollective, op.launch = 1, op.func = "AllReduce";
    NcclRecord orphan;
    orphan.kind = NcclRecordKind::kCollective, orphan.launch = 0, orphan.func = "AllReduce";
    encode(nccl, launch), encode(nccl, op), encode(nccl, orphan);
    w.submit_chunk(ChunkType::kNcclRecords, std::move(nccl.bytes()));
    w.finish({{"status", "recording"}});
  }
  const CaptureSummary s = summarize_capture(path);
  CHECK(s.complete);
  CHECK(s.meta("session") == "s1");
  CHECK(s.meta("status") == "recording");
  REQUIRE(s.devices.count(0) == 1);
  const DeviceCounts& d = s.devices.at(0);
  CHECK(d.kernels == 3);
  CHECK(d.nccl_kernels == 2);
  CHECK(d.nccl_kernels_annotated == 1);
  CHECK(d.peer_memcpys == 1);
  CHECK(d.peer_pairs.at({0, 1}) == 1);
  CHECK(d.pci_bus_id == "00000000:19:00.0");
  CHECK(s.nvtx_ranges == 1);
  CHECK(s.nccl_collectives == 2);
  CHECK(s.nccl_launches_with_correlation == 1);
  CHECK(s.nccl_ops_linked == 1);
  const std::string text = format_summary(s);
  CHECK_THAT(text, Catch::Contains("device 0 (00000000:19:00.0): 3 kernels (2 NCCL, 1 annotated), 0 copies, 1 peer copies"));
  CHECK_THAT(text, Catch::Contains("1x 0->1"));
  const JsonValue j = to_json_value(s);
  CHECK(*j.find("nccl")->find("operations_linked_to_kernels")->as_int() == 1);
  fs::remove_all(dir);
}
