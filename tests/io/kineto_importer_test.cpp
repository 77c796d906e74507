#include <catch2/catch.hpp>

#include "test_paths.h"
#include "trace/core/classify.h"
#include "trace/core/summary.h"
#include "trace/io/load_trace.h"

using namespace parascope;

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
