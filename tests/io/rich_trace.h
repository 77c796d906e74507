// A small trace that uses every part of the model (every detail kind, args of every type, nested
// and unsorted slices, text track ids, parents, links, counters, flows, collectives, SM spans,
// topology, warnings, notes), recorded through a "sink" so the same calls can drive a TraceBuilder and
// a PstraceWriter: both must end up with the same trace.
#pragma once

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "trace/core/trace_builder.h"
#include "trace/io/pstrace/pstrace_writer.h"

namespace parascope::test {

inline constexpr int64_t kTextId = int64_t{1} << 62;

struct BuilderSink {
  TraceBuilder b;
  StringId intern(std::string_view s) { return b.intern(s); }
  uint32_t process(const Process& p) { return b.add_process(p); }
  uint32_t device(const Device& d) { return b.add_device(d); }
  uint32_t link(const Link& l) {
    b.trace().links.push_back(l);
    return static_cast<uint32_t>(b.trace().links.size() - 1);
  }
  uint32_t track(const TrackDecl& d) {
    const uint32_t t = b.track(d.key, d.name);
    Track& tr = b.trace().tracks[t];
    tr.parent = d.parent;
    tr.simulated = d.simulated;
    tr.counter_source = d.counter_source;
    tr.unit = b.intern(d.unit);
    return t;
  }
  void topology(const Topology& t) { b.trace().topology = t; }
  void warn(const std::string& m) { b.warn(m); }
  void note(const std::string& m) { b.note(m); }
  EventRef slice(uint32_t t, TimeNs s, TimeNs d, StringId n, SliceKind k, std::span<const Arg> a = {}) {
    return b.add_slice(t, s, d, n, SliceRef(k, SliceRef::kNoDetail), a);
  }
  EventRef kernel(uint32_t t, TimeNs s, TimeNs d, StringId n, KernelInfo k, const LaunchConfig* c,
                  std::span<const Arg> a = {}) {
    k.launch_config = c ? b.add_launch_config(*c) : kNone32;
    return b.add_slice(t, s, d, n, b.add_kernel(k), a);
  }
  EventRef memcpy(uint32_t t, TimeNs s, TimeNs d, StringId n, const MemcpyInfo& m) { return b.add_slice(t, s, d, n, b.add_memcpy(m)); }
  EventRef memset(uint32_t t, TimeNs s, TimeNs d, StringId n, const MemsetInfo& m) { return b.add_slice(t, s, d, n, b.add_memset(m)); }
  EventRef sync(uint32_t t, TimeNs s, TimeNs d, StringId n, const SyncInfo& m) { return b.add_slice(t, s, d, n, b.add_sync(m)); }
  EventRef nvtx(uint32_t t, TimeNs s, TimeNs d, StringId n, const NvtxInfo& m) { return b.add_slice(t, s, d, n, b.add_nvtx(m)); }
  EventRef cpu_op(uint32_t t, TimeNs s, TimeNs d, StringId n, const CpuOpInfo& m, std::span<const Arg> a = {}) {
    return b.add_slice(t, s, d, n, b.add_cpu_op(m), a);
  }
  EventRef api(uint32_t t, TimeNs s, TimeNs d, StringId n, const ApiInfo& m) { return b.add_slice(t, s, d, n, b.add_api_call(m)); }
  EventRef sm_span(uint32_t t, TimeNs s, TimeNs d, StringId n, const SmSpanInfo& m) { return b.add_slice(t, s, d, n, b.add_sm_span(m)); }
  void counter(uint32_t t, TimeNs s, double v) { b.add_counter_sample(t, s, v); }
  void flow(EventRef f, EventRef to, FlowKind k) { b.add_flow(f, to, k); }
  void collective(const CollectiveInfo& c) { b.add_collective(c); }
};

struct WriterSink {
  PstraceWriter w;
  WriterSink(const std::string& path, const PstraceWriteOptions& o) : w(path, o) {}
  StringId intern(std::string_view s) { return w.intern(s); }
  uint32_t process(const Process& p) { return w.add_process(p); }
  uint32_t device(const Device& d) { return w.add_device(d); }
  uint32_t link(const Link& l) { return w.add_link(l); }
  uint32_t track(const TrackDecl& d) { return w.add_track(d); }
  void topology(const Topology& t) { w.set_topology(t); }
  void warn(const std::string& m) { w.add_warning(m); }
  void note(const std::string& m) { w.add_note(m); }
  EventRef slice(uint32_t t, TimeNs s, TimeNs d, StringId n, SliceKind k, std::span<const Arg> a = {}) {
    return w.add_slice(t, s, d, n, k, a);
  }
  EventRef kernel(uint32_t t, TimeNs s, TimeNs d, StringId n, KernelInfo k, const LaunchConfig* c,
                  std::span<const Arg> a = {}) {
    return w.add_kernel(t, s, d, n, k, c, a);
  }
  EventRef memcpy(uint32_t t, TimeNs s, TimeNs d, StringId n, const MemcpyInfo& m) { return w.add_memcpy(t, s, d, n, m); }
  EventRef memset(uint32_t t, TimeNs s, TimeNs d, StringId n, const MemsetInfo& m) { return w.add_memset(t, s, d, n, m); }
  EventRef sync(uint32_t t, TimeNs s, TimeNs d, StringId n, const SyncInfo& m) { return w.add_sync(t, s, d, n, m); }
  EventRef nvtx(uint32_t t, TimeNs s, TimeNs d, StringId n, const NvtxInfo& m) { return w.add_nvtx(t, s, d, n, m); }
  EventRef cpu_op(uint32_t t, TimeNs s, TimeNs d, StringId n, const CpuOpInfo& m, std::span<const Arg> a = {}) {
    return w.add_cpu_op(t, s, d, n, m, a);
  }
  EventRef api(uint32_t t, TimeNs s, TimeNs d, StringId n, const ApiInfo& m) { return w.add_api_call(t, s, d, n, m); }
  EventRef sm_span(uint32_t t, TimeNs s, TimeNs d, StringId n, const SmSpanInfo& m) { return w.add_sm_span(t, s, d, n, m); }
  void counter(uint32_t t, TimeNs s, double v) { w.add_counter_sample(t, s, v); }
  void flow(EventRef f, EventRef to, FlowKind k) { w.add_flow(f, to, k); }
  void collective(const CollectiveInfo& c) { w.add_collective(c); }
};

inline Topology rich_topology() {
  Topology t;
  t.name = "2xH200-test";
  t.description = "two GPUs on one NVSwitch";
  t.calibration = Calibration::kMeasured;
  t.calibration_source = "h200x2_probe.md, 2026-11-30";
  for (int g = 0; g < 2; ++g) {
    TopoNode n;
    n.name = "gpu" + std::to_string(g);
    n.kind = NodeKind::kGpu;
    n.gpu_index = g;
    GpuSpec s;
    s.model = "NVIDIA H200";
    s.sm_count = 132;
    s.hbm_bytes_per_s = 4.8e12;
    s.bf16_flops = 989.4e12;
    s.fp32_flops = 66.9e12;
    s.memory_bytes = 150'754'820'096ull;  // not a whole number of GiB
    s.copy_engine = {3, 2'345.678, 371.234567e9};
    s.tma = {3.1e9, 0, 850.5};
    s.ldst = {2.2e9, 410.1e9, 640.25};
    s.multimem = {1.7e9, 0, 1200};
    s.comm_interference = 0.137;
    n.gpu = s;
    t.nodes.push_back(n);
  }
  TopoNode sw;
  sw.name = "nvswitch0";
  sw.kind = NodeKind::kNvSwitch;
  sw.sw = SwitchSpec{true, false, 0};
  t.nodes.push_back(sw);
  for (uint32_t g = 0; g < 2; ++g) t.links.push_back({g, 2, Medium::kNvLink, 18, 477.3e9, 730.5, "nv" + std::to_string(g)});
  return t;
}

template <class Sink>
void record_rich_trace(Sink& s) {
  Process p0;
  p0.rank = 0;
  p0.pid = 4242;
  p0.host = "node-a";
  p0.name = "python3";
  p0.source = "/runs/rank0.json";
  p0.clock_offset_ns = 1'790'857'026'000'000'000;
  p0.clock_offset_reason = "baseTimeNanoseconds";
  Process p1 = p0;
  p1.rank = 1;
  p1.pid = 4243;
  p1.source = "/runs/rank1.json";
  const uint32_t r0 = s.process(p0), r1 = s.process(p1);
  Device d0;
  d0.process = r0;
  d0.ordinal = 0;
  d0.name = "NVIDIA H200";
  d0.pci_bus_id = "0000:18:00.0";
  d0.uuid = "GPU-f6b62fcc-9318-c13e-22f6-766d35cb6503";
  d0.sm_count = 132;
  d0.compute_major = 9;
  d0.memory_bytes = 150'754'820'096ull;
  d0.topology_gpu = 0;
  Device d1 = d0;
  d1.process = r1;
  d1.ordinal = 1;
  d1.pci_bus_id = "0000:2a:00.0";
  d1.uuid.clear();
  d1.topology_gpu = 1;
  const uint32_t g0 = s.device(d0), g1 = s.device(d1);
  s.topology(rich_topology());
  const uint32_t l0 = s.link(Link{static_cast<uint16_t>(g0), static_cast<uint16_t>(g1), LinkDirection::kTx, Medium::kNvLink, -1, 477.3e9});
  const uint32_t l1 = s.link(Link{static_cast<uint16_t>(g1), kNoDevice, LinkDirection::kRx, Medium::kInfiniBand, 3, 0});

  auto decl = [&](TrackKind k, uint32_t proc, int32_t dev, int64_t id, std::string name) {
    TrackDecl d;
    d.key = TrackKey{k, proc, dev, id};
    d.name = std::move(name);
    return d;
  };
  const uint32_t cpu = s.track(decl(TrackKind::kCpuThread, r0, -1, 4242, "thread 4242"));
  const uint32_t spans = s.track(decl(TrackKind::kCpuThread, r0, -1, kTextId + s.intern("Spans / Traces"), "Spans / Traces"));
  const uint32_t st7 = s.track(decl(TrackKind::kGpuStream, r0, static_cast<int32_t>(g0), 7, "stream 7"));
  TrackDecl ann = decl(TrackKind::kGpuAnnotation, r0, static_cast<int32_t>(g0), 7, "stream 7 annotations");
  ann.parent = static_cast<int32_t>(st7);
  const uint32_t ann7 = s.track(ann);
  const uint32_t st17 = s.track(decl(TrackKind::kGpuStream, r1, static_cast<int32_t>(g1), 17, "stream 17"));
  const uint32_t sm5 = s.track(decl(TrackKind::kSmLane, r0, static_cast<int32_t>(g0), 5, "SM 5"));
  TrackDecl mem = decl(TrackKind::kCounter, r0, -1, kTextId + s.intern("[memory].Total Allocated"), "[memory].Total Allocated");
  mem.unit = "bytes";
  const uint32_t memc = s.track(mem);
  TrackDecl lk = decl(TrackKind::kLink, r0, static_cast<int32_t>(g0), l0, "gpu0 -> gpu1 nvlink");
  lk.simulated = true;
  lk.counter_source = CounterSource::kSimulated;
  lk.unit = "bytes/s";
  const uint32_t link0 = s.track(lk);
  TrackDecl lk1 = decl(TrackKind::kLink, r1, static_cast<int32_t>(g1), l1, "gpu1 ib rx");
  lk1.counter_source = CounterSource::kEstimated;
  const uint32_t link1 = s.track(lk1);

  // CPU thread: nested ops (added out of order), runtime calls, an instant and a generic slice.
  std::vector<Arg> op_args = {{s.intern("Input Dims"), ArgValue::of_json(s.intern("[[2048, 2048], [2048, 2048]]"))},
                              {s.intern("Ev Idx"), ArgValue::of_int(-17)}};
  const EventRef mm = s.cpu_op(cpu, 1'000, 9'000, s.intern("aten::matmul"), CpuOpInfo{U64Split(1234567890123ull), U64Split(17'179'869'184ull), 88}, op_args);
  s.cpu_op(cpu, 1'500, 4'000, s.intern("aten::mm"), CpuOpInfo{U64Split(1234567890124ull), U64Split(0), kNone32});
  const EventRef launch = s.api(cpu, 2'000, 800, s.intern("cudaLaunchKernel"), ApiInfo{70001, 211, 0});
  s.api(cpu, 6'000, 300, s.intern("cudaMemcpyAsync"), ApiInfo{70002, 41, -2});
  const EventRef early = s.cpu_op(cpu, 100, 200, s.intern("aten::empty"), CpuOpInfo{U64Split(1234567890000ull), U64Split(0), 87});
  s.slice(cpu, 12'000, 0, s.intern("step marker"), SliceKind::kInstant);
  const uint64_t big = std::numeric_limits<uint64_t>::max() - 5;
  std::vector<Arg> generic_args = {{s.intern("i"), ArgValue::of_int(std::numeric_limits<int64_t>::min())},
                                   {s.intern("u"), ArgValue::of_uint(big)},
                                   {s.intern("d"), ArgValue::of_double(-0.1)},
                                   {s.intern("nan"), ArgValue::of_double(std::numeric_limits<double>::quiet_NaN())},
                                   {s.intern("b"), ArgValue::of_bool(true)},
                                   {s.intern("s"), ArgValue::of_string(s.intern("héllo \"world\""))},
                                   {s.intern("j"), ArgValue::of_json(s.intern("{\"a\": [1, 2]}"))}};
  s.slice(spans, 500, 11'000, s.intern("ProfilerStep#2"), SliceKind::kGeneric, generic_args);
  s.slice(spans, 600, 100, s.intern("overhead"), SliceKind::kOverhead);
  s.nvtx(spans, 700, 5'000, s.intern("forward"),
         NvtxInfo{s.intern("PyTorch"), s.intern("layers"), 0xFF76B900u, U64Split(0x400921FB54442D18ull), 3});
  s.nvtx(spans, 800, 0, s.intern("mark"), NvtxInfo{});

  // GPU stream 7: kernels (with and without config), copies, memset, sync; an annotation track.
  const LaunchConfig cfg{{132, 1, 1}, {256, 1, 1}, 128, 0, 232'448};
  const LaunchConfig cfg2{{24, 16, 2}, {128, 2, 1}, 255, 48, 0};
  std::vector<Arg> k_args = {{s.intern("queued"), ArgValue::of_int(0)},
                             {s.intern("est. achieved occupancy %"), ArgValue::of_int(100)}};
  const EventRef k1 = s.kernel(st7, 3'000, 2'500, s.intern("nvjet_tst_192x192"), KernelInfo{0, 70001, 0, U64Split(0)}, &cfg, k_args);
  const EventRef k0 = s.kernel(st7, 2'900, 50, s.intern("fill"), KernelInfo{0, 70000, 12, U64Split(0x1'0000'0007ull)}, &cfg2);
  s.kernel(st7, 5'600, 10, s.intern("no config"), KernelInfo{0, 65000, 0, U64Split(0)}, nullptr);
  s.memcpy(st7, 6'100, 900, s.intern("Memcpy PtoP (Device -> Device)"),
           MemcpyInfo{U64Split(4ull << 30), 70002, static_cast<uint16_t>(g0), static_cast<uint16_t>(g1), CopyKind::kPtoP,
                      Mechanism::kCopyEngine, MemoryKind::kDevice, MemoryKind::kDevice});
  s.memcpy(st7, 7'100, 300, s.intern("Memcpy DtoH (Device -> Pinned)"),
           MemcpyInfo{U64Split(4194304), 70003, static_cast<uint16_t>(g0), kNoDevice, CopyKind::kDtoH, Mechanism::kTma,
                      MemoryKind::kDevice, MemoryKind::kPinned});
  s.memset(st7, 7'500, 40, s.intern("Memset (Device)"), MemsetInfo{U64Split(1 << 20), 70004, 0xDEADBEEF, MemoryKind::kDevice});
  s.sync(st7, 7'600, 20, s.intern("Stream Wait Event"), SyncInfo{70005, 9, 17, SyncKind::kStreamWaitEvent});
  s.sync(st7, 7'700, 5, s.intern("Event Sync"), SyncInfo{0, kNone32, -1, SyncKind::kEventSync});
  s.slice(st7, 7'800, -3, s.intern("negative"), SliceKind::kGeneric);  // clamped to 0 with a warning
  s.slice(ann7, 2'800, 3'000, s.intern("forward"), SliceKind::kGpuAnnotation);

  // The other rank: an NCCL kernel with its collective annotation.
  const EventRef nccl = s.kernel(st17, 4'000, 20'000, s.intern("ncclDevKernel_AllReduce_Sum_f32_RING_LL"),
                                 KernelInfo{0, 80001, 0, U64Split(0)}, &cfg);
  CollectiveInfo c;
  c.op = CollectiveOp::kAllReduce;
  c.dtype_bytes = 4;
  c.channels = 16;
  c.rank = 1;
  c.group_size = 2;
  c.dtype = s.intern("Float");
  c.group = s.intern("default_pg");
  c.group_ranks = s.intern("[0, 1]");
  c.algorithm = s.intern("RING");
  c.protocol = s.intern("LL");
  c.sequence = 41;
  c.in_elements = 4'194'304;
  c.out_elements = 4'194'304;
  c.kernel = nccl;
  c.cpu_op = mm;
  c.peer = -1;
  s.collective(c);
  CollectiveInfo send;
  send.op = CollectiveOp::kSend;
  send.peer = 0;
  send.kernel = k1;
  s.collective(send);

  // SM lane: spans inside k1 (one added before an earlier one).
  s.sm_span(sm5, 3'500, 400, s.intern("communicate"), SmSpanInfo{7, 3, 1, k1, 0xff, SmRole::kCommunicate});
  s.sm_span(sm5, 3'100, 300, s.intern("compute"), SmSpanInfo{7, 2, 1, k1, 2, SmRole::kCompute});
  s.sm_span(sm5, 3'950, 10, s.intern("wait"), SmSpanInfo{8, 0, 1, EventRef{}, 0, SmRole::kWait});

  // Counters, unsorted, with exact doubles.
  s.counter(memc, 2'000, 1.5e9);
  s.counter(memc, 1'000, 0.0);
  s.counter(memc, 3'000, -0.0);
  s.counter(link0, 3'000, 123'456'789.123);
  s.counter(link0, 3'500, std::numeric_limits<double>::infinity());
  s.counter(link1, 3'500, 7);

  s.flow(launch, k1, FlowKind::kLaunch);
  s.flow(early, k0, FlowKind::kDependency);
  s.flow(k1, nccl, FlowKind::kCollective);
  s.warn("rank0.json: 3 async (b/e/n) events are not imported yet");
  s.warn("second warning");
  s.note("rank0.pstrace: collector: 237 CUPTI records, 0 dropped by CUPTI, 0 buffer requests refused (exit)");
  s.note("second note");
}

inline Trace make_rich_trace() {
  BuilderSink s;
  record_rich_trace(s);
  return s.b.finish();
}

}  // namespace parascope::test
