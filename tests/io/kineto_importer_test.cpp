#include <catch2/catch.hpp>

#include <algorithm>

#include <filesystem>

#include "import_text.h"
#include "skip.h"
#include "test_paths.h"
#include "trace/core/classify.h"
#include "trace/core/summary.h"
#include "trace/io/load_trace.h"

using namespace parascope;
using test::find_slice;
using test::import_text;

namespace {
const std::string kSample = "allreduce_matmul_2xh200/";
}

TEST_CASE("The bundled 2-rank sample imports with the counts its files hold", "[io][kineto][sample]") {
  LoadReport report;
  const Trace t = load_trace({test::sample_path(kSample + "rank0.json"), test::sample_path(kSample + "rank1.json")}, {}, &report);
  // Counts taken independently with Python's json module (resources/samples/allreduce_matmul_2xh200/README.md):
  // per rank 21 kernels (6 NCCL: 3 all-reduce with "Collective name", 3 SendRecv), 3 gpu_memcpy, 0 memset.
  REQUIRE(t.processes.size() == 2);
  REQUIRE(t.devices.size() == 2);
  const TraceSummary s = summarize(t);
  for (int r = 0; r < 2; ++r) {
    const ProcessSummary& ps = s.processes[static_cast<size_t>(r)];
    REQUIRE(t.processes[ps.process].rank == r);
    REQUIRE(ps.devices.size() == 1);
    const DeviceSummary& ds = ps.devices[0];
    CHECK(t.devices[ds.device].ordinal == r);
    CHECK(t.devices[ds.device].name == "NVIDIA H200");
    CHECK(t.devices[ds.device].sm_count == 132);
    CHECK(ds.kernels == 21);
    CHECK(ds.comm_kernels == 6);
    CHECK(ds.collectives == 3);
    CHECK(ds.memcpys == 3);
    CHECK(ds.memsets == 0);
    CHECK(ds.streams.size() == 2);  // streams 7 and 17
  }
  // Clock: both files carry baseTimeNanoseconds; the trace clock is wall time.
  REQUIRE(report.files.size() == 2);
  CHECK(report.files[0].clock_offset_ns == 1790857026000000000LL);
  CHECK(t.processes[0].clock_offset_reason == "baseTimeNanoseconds");
  // first event of rank 0: the "PyTorch Profiler (0)" span at ts 5176511018272.355 us
  CHECK(s.start <= 1790857026000000000LL + 5176511018272355LL);
}

TEST_CASE("Kineto details: NCCL args become collective annotations, launches become flows", "[io][kineto][sample]") {
  const Trace t = load_trace({test::sample_path(kSample + "rank0.json")});
  REQUIRE(t.collectives.size() == 3);
  const CollectiveInfo& c = t.collectives[0];
  CHECK(c.op == CollectiveOp::kAllReduce);
  CHECK(c.in_elements == 4194304);
  CHECK(c.group_size == 2);
  CHECK(t.str(c.dtype) == "Float");
  CHECK(c.dtype_bytes == 4);
  CHECK(t.str(c.group_ranks) == "[0, 1]");
  CHECK(c.rank == 0);
  REQUIRE(c.kernel.valid());
  const auto& ks = t.tracks[c.kernel.track].slices;
  CHECK(t.str(ks.name[c.kernel.index]).substr(0, 26) == "ncclDevKernel_AllReduce_Su");
  const KernelInfo& k = t.kernel(ks.ref[c.kernel.index]);
  const LaunchConfig* lc = t.launch_config(k);
  REQUIRE(lc);
  CHECK(lc->grid[0] == 24);
  CHECK(lc->block[0] == 544);
  CHECK(lc->registers_per_thread == 96);
  CHECK(c.cpu_op.valid());
  // every kernel and memcpy was launched by a runtime/driver call with its correlation id
  size_t launches = 0;
  for (const Flow& f : t.flows) launches += f.kind == FlowKind::kLaunch;
  CHECK(launches == 24);  // 21 kernels + 3 memcpys
  // the memcpy is device → pinned host
  bool found = false;
  for (const Track& tr : t.tracks)
    for (size_t i = 0; i < tr.slices.size(); ++i)
      if (tr.slices.ref[i].kind() == SliceKind::kMemcpy) {
        const MemcpyInfo& m = t.memcpy(tr.slices.ref[i]);
        CHECK(m.copy_kind == CopyKind::kDtoH);
        CHECK(m.bytes.get() == 4194304);
        CHECK(m.src_memory == MemoryKind::kDevice);
        CHECK(m.dst_memory == MemoryKind::kPinned);
        found = true;
      }
  CHECK(found);
}

namespace {
struct CaptureCounts {
  const char* dir;
  int64_t kernels, memcpys, memsets, collectives, launches, fwdbwd, memory_events;
  size_t streams;
};
// Per rank (both ranks hold the same counts), taken independently with Python's json module:
//   cd resources/captures/h200x2_2026-11-30 && python3 -c "
//   import json, gzip, glob
//   for f in sorted(glob.glob('*/*.pt.trace.json*')):
//       ev = json.load(gzip.open(f) if f.endswith('.gz') else open(f))['traceEvents']
//       X = [e for e in ev if e.get('ph') == 'X']; n = lambda c: sum(e.get('cat') == c for e in X)
//       ids = lambda c, ph: {e['id'] for e in ev if e.get('ph') == ph and e.get('cat') == c}
//       print(f, n('kernel'), n('gpu_memcpy'), n('gpu_memset'),
//             sum(e.get('cat') == 'kernel' and 'Collective name' in e['args'] for e in X),
//             len(ids('ac2g', 's') & ids('ac2g', 'f')), len(ids('fwdbwd', 's') & ids('fwdbwd', 'f')),
//             sum(e.get('name') == '[memory]' for e in ev),
//             len({e['args']['stream'] for e in X if e.get('cat') in ('kernel', 'gpu_memcpy', 'gpu_memset')}))
constexpr CaptureCounts kCaptures[] = {
    {"dp_step", 252, 52, 96, 12, 400, 84, 576, 2},
    {"tp_overlap_b1", 32, 0, 16, 12, 48, 0, 56, 2},
    {"tp_overlap_b1_nch4", 32, 0, 16, 12, 48, 0, 56, 2},
    {"tp_overlap_b4", 44, 0, 16, 24, 60, 0, 56, 2},
    {"tp_overlap_b4_nch4", 44, 0, 16, 24, 60, 0, 56, 2},
    {"tp_serial_b1", 32, 0, 16, 12, 48, 0, 56, 1},
    {"tp_serial_b1_nch4", 32, 0, 16, 12, 48, 0, 56, 1},
    {"tp_serial_b4", 44, 0, 16, 24, 60, 0, 56, 1},
    {"tp_serial_b4_nch4", 44, 0, 16, 24, 60, 0, 56, 1},
};
}  // namespace

TEST_CASE("The 2xH200 captures (TensorBoard folders, rank 1 gzipped) import with their counts", "[io][kineto][captures]") {
  for (const CaptureCounts& c : kCaptures) {
    INFO(c.dir);
    LoadReport report;
    const Trace t = load_trace({test::source_path(std::string("resources/captures/h200x2_2026-11-30/") + c.dir)}, {}, &report);
    REQUIRE(report.files.size() == 2);
    CHECK(report.merged.empty());  // one file per worker
    REQUIRE(t.processes.size() == 2);
    const TraceSummary s = summarize(t);
    for (int r = 0; r < 2; ++r) {
      const ProcessSummary& ps = s.processes[static_cast<size_t>(r)];
      CHECK(t.processes[ps.process].rank == r);
      CHECK(t.processes[ps.process].clock_offset_reason == "baseTimeNanoseconds");
      REQUIRE(ps.devices.size() == 1);
      const DeviceSummary& ds = ps.devices[0];
      CHECK(t.devices[ds.device].ordinal == r);
      CHECK(ds.kernels == c.kernels);
      CHECK(ds.memcpys == c.memcpys);
      CHECK(ds.memsets == c.memsets);
      CHECK(ds.collectives == c.collectives);
      CHECK(ds.streams.size() == c.streams);
      CHECK(report.files[static_cast<size_t>(r)].unknown_phases == 0);
    }
    int64_t launches = 0, fwdbwd = 0;
    for (const Flow& f : t.flows) {
      launches += f.kind == FlowKind::kLaunch;
      fwdbwd += f.kind == FlowKind::kDependency;
    }
    CHECK(launches == 2 * c.launches);
    CHECK(fwdbwd == 2 * c.fwdbwd);
    // every [memory] event holds Total Allocated and Total Reserved: two counter samples each
    int64_t samples = 0;
    for (const Track& tr : t.tracks) samples += static_cast<int64_t>(tr.counter.size());
    CHECK(samples == 2 * 2 * c.memory_events);
  }
}

TEST_CASE("Kineto [memory] instants become per-device memory counters", "[io][kineto][captures]") {
  const Trace t = load_trace({test::source_path("resources/captures/h200x2_2026-11-30/dp_step/rank0.1796033539809103290.pt.trace.json")});
  // Python: of the 576 [memory] events 464 have Device Type 1 (CUDA, Device Id 0) and 112 Device
  // Type 0 (CPU); the largest CUDA Total Allocated is 1947305472, the last (by ts) 739394048.
  const Track* gpu = nullptr;
  const Track* host = nullptr;
  for (const Track& tr : t.tracks) {
    if (tr.key.kind != TrackKind::kCounter) continue;
    if (t.str(tr.name) == "memory allocated") gpu = &tr;
    if (t.str(tr.name) == "host memory allocated") host = &tr;
  }
  REQUIRE(gpu);
  REQUIRE(host);
  CHECK(gpu->key.device >= 0);
  CHECK(t.devices[static_cast<size_t>(gpu->key.device)].ordinal == 0);
  CHECK(t.str(gpu->unit) == "bytes");
  CHECK(gpu->counter.size() == 464);
  CHECK(host->counter.size() == 112);
  CHECK(*std::max_element(gpu->counter.value.begin(), gpu->counter.value.end()) == 1947305472.0);
  CHECK(gpu->counter.value.back() == 739394048.0);
  // thread names come from the M events
  bool python = false, autograd = false;
  for (const Track& tr : t.tracks) {
    python |= t.str(tr.name) == "thread 727 (python)";
    autograd |= t.str(tr.name) == "thread 756 (pt_autograd_0)";
  }
  CHECK(python);
  CHECK(autograd);
}

TEST_CASE("A TensorBoard folder with several cycle files per rank merges them per worker", "[io][kineto][load]") {
  // tests/data/tb_steps: the bundled sample's ranks cut at ProfilerStep#3 into two files each (rank 1
  // gzipped). Python on the cut files: rank r part 1 holds 7 kernels, 1 memcpy, 1 collective and 8
  // complete ac2g pairs, part 2 holds 14, 2, 2 and 16 — together the sample's 21 / 3 / 3 / 24.
  LoadReport report;
  const Trace t = load_trace({test::data_path("tb_steps")}, {}, &report);
  REQUIRE(report.files.size() == 4);
  REQUIRE(report.merged.size() == 2);
  CHECK(report.merged[0].files.size() == 2);
  CHECK(report.merged[0].worker.substr(report.merged[0].worker.size() - 14) == "tb_steps/rank0");
  CHECK(report.files[1].joined_with == report.files[0].file);
  REQUIRE(t.processes.size() == 2);
  const TraceSummary s = summarize(t);
  for (int r = 0; r < 2; ++r) {
    const DeviceSummary& ds = s.processes[static_cast<size_t>(r)].devices.at(0);
    CHECK(t.processes[static_cast<size_t>(r)].rank == r);
    CHECK(ds.kernels == 21);
    CHECK(ds.memcpys == 3);
    CHECK(ds.collectives == 3);
    CHECK(ds.streams.size() == 2);
  }
  size_t launches = 0;
  for (const Flow& f : t.flows) launches += f.kind == FlowKind::kLaunch;
  CHECK(launches == 48);
}

TEST_CASE("Kineto GPU details: peer copies, syncs, NCCL Seq and peers, External id", "[io][kineto]") {
  // Args as Kineto writes them (libkineto CuptiActivity.h: memcpy2 has fromDevice/inDevice/toDevice
  // and no "device"; syncs carry cuda_sync_kind / wait_on_stream / wait_on_cuda_event_id).
  const std::string json = R"J({"schemaVersion": 1, "distributedInfo": {"rank": 0, "world_size": 2},
    "traceEvents": [
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyPeerAsync", "pid": 9, "tid": 9, "ts": 1, "dur": 2,
     "args": {"External id": 5, "cbid": 52, "correlation": 70}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy PtoP (Device -> Device)", "pid": 0, "tid": 7, "ts": 4, "dur": 10,
     "args": {"fromDevice": 0, "inDevice": 0, "toDevice": 1, "fromContext": 1, "inContext": 1, "toContext": 2,
              "stream": 7, "correlation": 70, "bytes": 1048576, "memory bandwidth (GB/s)": 104.8576}},
    {"ph": "X", "cat": "cuda_sync", "name": "Stream Wait Event", "pid": 0, "tid": 7, "ts": 15, "dur": 1,
     "args": {"cuda_sync_kind": "Stream Wait Event", "wait_on_stream": 17, "wait_on_cuda_event_record_corr_id": 9,
              "wait_on_cuda_event_id": 3, "stream": 7, "correlation": 71, "device": 0, "context": 1}},
    {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 9, "tid": 9, "ts": 20, "dur": 5,
     "args": {"External id": 40, "Collective name": "send", "Seq": 7, "Dst Rank": 1, "Ev Idx": 3}},
    {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_SendRecv", "pid": 0, "tid": 17, "ts": 30, "dur": 5,
     "args": {"External id": 40, "device": 0, "stream": 17, "correlation": 80, "grid": [16, 1, 1], "block": [640, 1, 1],
              "Collective name": "send", "In msg nelems": 1024, "Out msg nelems": 1024, "Group size": 2, "dtype": "BFloat16",
              "Process Group Name": "0", "Process Group Ranks": "[0, 1]"}},
    {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce", "pid": 0, "tid": 17, "ts": 40, "dur": 5,
     "args": {"External id": 41, "device": 0, "stream": 17, "correlation": 81, "Collective name": "allreduce",
              "In msg nelems": 8, "Out msg nelems": 8, "Group size": 2, "dtype": "Float", "Seq": 12}}
  ]})J";
  const Trace t = import_text(json);
  const EventRef copy = find_slice(t, "Memcpy PtoP (Device -> Device)");
  REQUIRE(copy.valid());
  const Track& ct = t.tracks[copy.track];
  CHECK(ct.key.kind == TrackKind::kGpuStream);
  CHECK(ct.key.id == 7);
  CHECK(t.devices[static_cast<size_t>(ct.key.device)].ordinal == 0);  // inDevice
  const MemcpyInfo& m = t.memcpy(ct.slices.ref[copy.index]);
  CHECK(m.copy_kind == CopyKind::kPtoP);
  CHECK(m.bytes.get() == 1048576);
  REQUIRE(m.src_device != kNoDevice);
  REQUIRE(m.dst_device != kNoDevice);
  CHECK(t.devices[m.src_device].ordinal == 0);
  CHECK(t.devices[m.dst_device].ordinal == 1);
  // derived bandwidth is not stored; the contexts stay as args; the copy was launched, so its
  // External id is reachable through the launch flow and not repeated as an arg
  std::vector<std::string> keys;
  for (const Arg& a : t.args.get(ct.slices.args_of(copy.index))) keys.emplace_back(t.str(a.key));
  CHECK(keys == std::vector<std::string>{"fromContext", "inContext", "toContext"});
  const EventRef sync = find_slice(t, "Stream Wait Event");
  const SyncInfo& si = t.syncs[t.tracks[sync.track].slices.ref[sync.index].index()];
  CHECK(si.kind == SyncKind::kStreamWaitEvent);
  CHECK(si.stream == 17);
  CHECK(si.event_id == 3);
  CHECK(si.correlation == 71);
  REQUIRE(t.collectives.size() == 2);
  const CollectiveInfo& send = t.collectives[0];
  CHECK(send.op == CollectiveOp::kSend);
  CHECK(send.sequence == 7);  // from record_param_comms, which shares the kernel's External id
  CHECK(send.peer == 1);      // its Dst Rank
  CHECK(send.cpu_op.valid());
  CHECK(t.str(send.dtype) == "BFloat16");
  CHECK(send.dtype_bytes == 2);
  CHECK(t.collectives[1].sequence == 12);  // Seq on the kernel itself
  CHECK(!t.collectives[1].cpu_op.valid());
  // kernels without a launch in the file keep their External id as an arg
  const EventRef ar = find_slice(t, "ncclDevKernel_AllReduce");
  std::string ext;
  for (const Arg& a : t.args.get(t.tracks[ar.track].slices.args_of(ar.index)))
    if (t.str(a.key) == "External id") ext = format_arg(t.strings, a.value);
  CHECK(ext == "41");
  size_t launches = 0;
  for (const Flow& f : t.flows) launches += f.kind == FlowKind::kLaunch;
  CHECK(launches == 1);
}

TEST_CASE("Kineto: an MTIA process's events are said to be a non-CUDA accelerator's, not silently CPU threads", "[io][kineto]") {
  // the shape of HTA's MTIA traces: process "MTIA 9" with mtia_ccp_events slices
  const Trace t = import_text(R"({"traceEvents": [
    {"ph": "M", "name": "process_name", "pid": 9, "tid": 0, "args": {"name": "MTIA 9"}},
    {"ph": "X", "cat": "mtia_ccp_events", "name": "job", "pid": 9, "tid": 3, "ts": 10, "dur": 5},
    {"ph": "X", "cat": "mtia_ccp_events", "name": "job", "pid": 9, "tid": 3, "ts": 20, "dur": 5},
    {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 10, "dur": 5}]})");
  REQUIRE(t.warnings.size() == 1);
  CHECK_THAT(t.warnings[0], Catch::EndsWith("process 'MTIA 9' holds 2 slices of a non-CUDA accelerator, shown as its CPU "
                                             "threads (Parascope reads CUDA and ROCm GPUs as devices)"));
  CHECK(t.devices.empty());
}

TEST_CASE("Kineto: CUPTI profiler ranges (HTA's cupti_profiler trace, ../shared) are a GPU-side range track of device 0",
          "[io][kineto][shared]") {
  // 77 cuda_profiler_range slices on pid 0 tid 0 (the process labelled "GPU 0"), each a kernel
  // replayed for its counters (121431 us each), the file's only GPU activity: not CPU thread slices
  const std::string f =
      test::shared_path("external/hta_testdata/cupti_profiler__benchmark_result_924719_1679055439_trace.json.gz");
  if (!std::filesystem::exists(f)) PARASCOPE_SKIP("../shared/external/hta_testdata is not present");
  const Trace t = load_trace({f});
  const Track* ranges = nullptr;
  size_t range_tracks = 0;
  for (const Track& tr : t.tracks) {
    if (t.str(tr.name) == "CUPTI profiler ranges") {
      ranges = &tr;
      ++range_tracks;
    }
    if (tr.key.kind == TrackKind::kCpuThread)
      for (size_t i = 0; i < tr.slices.size(); ++i) CHECK(t.str(tr.slices.name[i]) != "__missing__");  // a range's name
  }
  REQUIRE(range_tracks == 1);
  CHECK(ranges->key.kind == TrackKind::kGpuAnnotation);
  REQUIRE(ranges->key.device >= 0);
  CHECK(t.devices[static_cast<size_t>(ranges->key.device)].ordinal == 0);
  REQUIRE(ranges->slices.size() == 77);
  CHECK(ranges->slices.dur[0] == 121431000);
  CHECK(t.str(ranges->slices.name[0]).rfind("void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel", 0) == 0);
  CHECK(ranges->slices.ref[0].kind() == SliceKind::kGpuAnnotation);
  bool ffma = false;
  for (const Arg& a : t.args.get(ranges->slices.args_of(0)))
    ffma = ffma || t.str(a.key) == "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum";
  CHECK(ffma);
  CHECK(SliceClassifier(t).category(static_cast<uint32_t>(ranges - t.tracks.data()), 0) == Category::kAnnotation);
}
