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

TEST_CASE("A capture summary keeps warnings and notes apart, an older collector's notes included", "[collector][summary][notes]") {
  const fs::path dir = test::temp_dir("summary-notes");
  const std::string path = (dir / "h-1-r0.pstrace").string();
  {
    CaptureWriter w(path, {}, nullptr);
    w.start();
    // what an older collector wrote as a warning, and a real one
    w.add_warning("nvlink sampling: PM sampling on device 0 (GH100) every 1000 us: nvlrx__bytes.sum nvltx__bytes.sum");
    w.add_warning("probe records of device 0 stored with clock offset 0 (no clock sync)");
    w.add_note("clock sync device 0: host window none, kernel brackets none from 0 of 0 kernels -> CUPTI - globaltimer = 0 +- 0 ns ()");
    w.finish({{"status", "recording"}});
  }
  const CaptureSummary s = summarize_capture(path);
  CHECK(s.warnings == std::vector<std::string>{"probe records of device 0 stored with clock offset 0 (no clock sync)"});
  REQUIRE(s.notes.size() == 3);  // the old-style line, the note, the writer's run summary
  CHECK(s.notes[0].starts_with("nvlink sampling: PM sampling on device 0"));
  CHECK(s.notes[1].starts_with("clock sync device 0:"));
  CHECK(s.notes[2] == "collector: 0 CUPTI records, 0 dropped by CUPTI, 0 buffer requests refused (exit)");
  const std::string text = format_summary(s);
  CHECK_THAT(text, Catch::Contains("  warning: probe records of device 0"));
  CHECK_THAT(text, Catch::Contains("  note: collector: 0 CUPTI records"));
  const JsonValue j = to_json_value(s);
  CHECK(j.find("warnings")->items().size() == 1);
  CHECK(j.find("notes")->items().size() == 3);
  fs::remove_all(dir);
}

TEST_CASE("Another CUPTI client's calls come back from the capture, the last value of each entry counting", "[collector][summary][guard]") {
  // What the collector writes when the guard saw Kineto (in libtorch_cuda.so) subscribe while the
  // collector held CUPTI, then register activity buffers: a metadata chunk at first sight, the
  // final metadata with the counts at exit (entry 1 called 3 times by then), and one entry that is
  // not what encode_other_cupti_call writes (counted as unreadable, not guessed).
  OtherCuptiCall sub;
  sub.function = "cuptiSubscribe", sub.caller = "/venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so";
  sub.result = 39, sub.result_name = "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED (39)";
  sub.calls = 1, sub.first_unix_ns = 1796037816195372550ull;
  OtherCuptiCall reg = sub;
  reg.function = "cuptiActivityRegisterCallbacks", reg.result = 0, reg.result_name = "CUPTI_SUCCESS (0)";
  reg.first_unix_ns += 1000;
  const fs::path dir = test::temp_dir("summary-guard");
  const std::string path = (dir / "h-2-r0.pstrace").string();
  {
    CaptureWriter w(path, {}, nullptr);
    w.start();
    w.submit_chunk(ChunkType::kMetadata, encode_metadata({{"cupti_guard", "preloaded"},
                                                          {"other_cupti_client.0", encode_other_cupti_call(sub)},
                                                          {"other_cupti_client.1", encode_other_cupti_call(reg)}}));
    reg.calls = 3;
    w.finish({{"status", "recording"},
              {"other_cupti_client.0", encode_other_cupti_call(sub)},
              {"other_cupti_client.1", encode_other_cupti_call(reg)},
              {"other_cupti_client.2", "cuptiSubscribe\tlib.so\tnot-a-number\t\t0\t1\t5"}});
  }
  const CaptureSummary s = summarize_capture(path);
  CHECK(s.meta("cupti_guard") == "preloaded");
  REQUIRE(s.other_cupti_calls.size() == 2);
  CHECK(s.other_cupti_calls_unreadable == 1);
  const OtherCuptiCall& a = s.other_cupti_calls[0];
  CHECK(a.function == "cuptiSubscribe");
  CHECK(a.caller == sub.caller);
  CHECK(a.result == 39);
  CHECK(a.calls == 1);
  CHECK(a.first_unix_ns == 1796037816195372550ull);
  CHECK(s.other_cupti_calls[1].function == "cuptiActivityRegisterCallbacks");
  CHECK(s.other_cupti_calls[1].calls == 3);
  CHECK(other_cupti_client_name(a.caller) == "torch.profiler (Kineto, in libtorch_cuda.so)");
  CHECK(other_cupti_client_name("/opt/tool/libtracer.so") == "libtracer.so");
  const std::string text = format_summary(s);
  CHECK_THAT(text, Catch::Contains("  another CUPTI client: torch.profiler (Kineto, in libtorch_cuda.so) called cuptiSubscribe "
                                   "and CUPTI refused it (CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED (39)): CUPTI serves "
                                   "one subscriber and the collector holds it"));
  CHECK_THAT(text, Catch::Contains("registered its own CUPTI activity buffers (3 times) (CUPTI_SUCCESS (0))"));
  CHECK_THAT(text, Catch::Contains("  another CUPTI client: 1 unreadable metadata entries"));
  const JsonValue j = to_json_value(s);
  CHECK(j.find("cupti_guard")->text() == "preloaded");
  REQUIRE(j.find("other_cupti_clients")->items().size() == 2);
  const JsonValue& first = j.find("other_cupti_clients")->items()[0];
  CHECK(first.find("client")->text() == "torch.profiler (Kineto, in libtorch_cuda.so)");
  CHECK(*first.find("result")->as_int() == 39);
  CHECK(first.find("first_unix_ns")->text() == "1796037816195372550");
  fs::remove_all(dir);
}

TEST_CASE("An other-CUPTI-client entry round-trips and refuses what it did not write", "[collector][guard]") {
  OtherCuptiCall c;
  c.function = "cuptiActivityEnable", c.caller = "/x/libkineto.so", c.result = 0, c.result_name = "CUPTI_SUCCESS (0)";
  c.argument = 10, c.calls = 7, c.first_unix_ns = 42;
  const auto back = decode_other_cupti_call(encode_other_cupti_call(c));
  REQUIRE(back);
  CHECK(back->function == "cuptiActivityEnable");
  CHECK(back->caller == "/x/libkineto.so");
  CHECK(back->argument == 10);
  CHECK(back->calls == 7);
  CHECK(back->first_unix_ns == 42);
  CHECK(describe_other_cupti_call(*back) ==
        "torch.profiler (Kineto, in libkineto.so) enabled CUPTI activity kind 10 (7 times) (CUPTI_SUCCESS (0))");
  CHECK_FALSE(decode_other_cupti_call(""));
  CHECK_FALSE(decode_other_cupti_call("cuptiSubscribe\tlib.so\t39\tx\t0\t1"));        // 6 fields
  CHECK_FALSE(decode_other_cupti_call("cuptiSubscribe\tlib.so\t39\tx\t0\t1\t2\t3"));  // 8 fields
  CHECK_FALSE(decode_other_cupti_call("cuptiSubscribe\tlib.so\t39x\tx\t0\t1\t2"));    // trailing junk in a number
}
